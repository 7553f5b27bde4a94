"""Labelled positions of played games: who plays the moves, who labels them.

``label`` plays hands on the game driver (``baloot_env.driver.Table``, hand episodes, deals
from the seed) and records every decision of every seat as that seat's ``PlayerView`` shows it
(its observation and legal mask, with the four hands for a privileged critic): the teacher's
action, the teacher's value of every legal action where it searched the choice (its
``Judgement``, ``agents.teacher``: mean game points of the hand, own team minus the other, R7, of
every card of a card choice, and of every call when its calls are searched), the standard error
of each card's difference to the card it plays (from the spread over its worlds), and the hand's reward
for the acting team as the value target. Who plays the moves is separate from who labels them:
the teacher itself (behaviour cloning, the warm start) or a learner network whose positions
the teacher labels (DAgger, expert iteration), with a share of random moves either way.

The positions are plain arrays (``Labels``), saved and read as ``.npz`` without pickles, so one
labelling job can be fitted under several target rules (``Labels.targets``).
"""

from __future__ import annotations

import io
import math
import random
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.neural.network import BalootNet, NetSpec
from agents.neural.policy import PolicyAgent, sample_masked
from agents.teacher import make_teacher
from baloot_cli import memory_need
from baloot_env.actions import NUM_ACTIONS, NUM_CARD_ACTIONS
from baloot_env.driver import DealSource, Table
from baloot_env.loop import play_hands
from baloot_env.observation import OBS_SIZE, PRIVILEGED_SIZE, seat_hidden_hands
from baloot_env.rewards import Reward, hand_rewards
from baloot_env.rules import RuleConfig
from baloot_env.view import PlayerView
from baloot_io.atomic import write_bytes_atomic
from eval.games import PERSON, Games, decisions
from train.workers import in_chunks

NetState = tuple[dict[str, Any], dict[str, torch.Tensor]]  # a network's spec (as a dict) and weights


def _layout(n: int, privileged: bool) -> list[tuple[tuple[int, ...], torch.dtype]]:
    width = OBS_SIZE + (PRIVILEGED_SIZE if privileged else 0)
    return [
        ((n, width), torch.float32),
        ((n, NUM_ACTIONS), torch.int8),
        ((n, NUM_ACTIONS), torch.float32),
        ((n,), torch.float32),
    ]


def position_bytes(privileged: bool) -> int:
    """The memory one labelled position takes in ``labelled_arrays``."""
    return sum(math.prod(shape) * dt.itemsize for shape, dt in _layout(1, privileged))


def labelled_arrays(n: int, privileged: bool, shared: bool = False) -> tuple[torch.Tensor, ...]:
    """Room for ``n`` labelled positions: observations (with the privileged part when
    ``privileged``), legal masks, targets over the actions, value targets; zeroed, or with
    ``shared`` in shared memory for workers that write every row (``collect_parallel``)."""
    layout = _layout(n, privileged)
    if shared:  # untouched pages cost nothing before they move to shared memory
        return tuple(torch.empty(shape, dtype=dt).share_memory_() for shape, dt in layout)  # type: ignore[no-untyped-call]
    return tuple(torch.zeros(shape, dtype=dt) for shape, dt in layout)


UNVALUED = np.float32(np.nan)  # a value the teacher did not give (not a searched choice)
LABEL_KINDS = "biuf"  # the numpy kinds a labels field may have: bool, integers, floats


def _headers(path: str | Path, where: str) -> None:
    """Every array of the ``.npz`` at ``path`` is of a plain kind (``LABEL_KINDS``) and together
    they fit in this machine's memory, read from the arrays' headers before any is inflated
    (a small file may claim billions of rows)."""
    total = 0
    try:
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                with z.open(info) as f:
                    version = np.lib.format.read_magic(f)
                    read = (
                        np.lib.format.read_array_header_1_0
                        if version == (1, 0)
                        else np.lib.format.read_array_header_2_0
                    )
                    shape, _, dtype = read(f)
                if dtype.kind not in LABEL_KINDS:
                    raise ValueError(f"{where}: {info.filename} holds {dtype} values, not numbers")
                total += math.prod(shape) * dtype.itemsize
    except (OSError, EOFError, zipfile.BadZipFile, ValueError, SyntaxError) as e:
        raise ValueError(f"{where} is not a labels file: {e}") from None
    why = memory_need(where, total, 1)
    if why is not None:
        raise ValueError(why)


@dataclass
class Labels:
    """Labelled positions: observations (with the privileged part when the critic has it),
    legal masks, the teacher's action, the teacher's value of every legal action of a searched
    choice (cards, or calls when the teacher searches them; ``UNVALUED`` elsewhere), the value
    target (the hand's reward, acting team), the learner's policy at the position (its masked
    softmax; zeros where the teacher played) and the standard error of each valued card's
    difference to the teacher's card (``UNVALUED`` where not known: calls, a teacher without
    sampled worlds, a labels file written before the errors were kept)."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    action_values: np.ndarray
    values: np.ndarray
    policy: np.ndarray
    action_errors: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.action_errors is None:
            self.action_errors = np.full(self.action_values.shape, UNVALUED, dtype=np.float32)

    def __len__(self) -> int:
        return len(self.obs)

    @staticmethod
    def join(parts: list[Labels]) -> Labels:
        return Labels(*(np.concatenate([getattr(p, f) for p in parts]) for f in Labels.FIELDS))

    FIELDS = ("obs", "masks", "actions", "action_values", "values", "policy", "action_errors")
    OPTIONAL = ("action_errors",)  # absent from files written before it was kept

    def save(self, path: str | Path) -> None:
        """A compressed ``.npz`` of the fields (observations are mostly 0 and 1), written atomically."""
        buf = io.BytesIO()
        np.savez_compressed(buf, **{f: getattr(self, f) for f in self.FIELDS})
        write_bytes_atomic(Path(path), buf.getvalue())

    @staticmethod
    def load(path: str | Path) -> Labels:
        """Read a ``save``d file: plain arrays only (no pickles: a file cannot run code), checked
        before use (``_headers``: the sizes before anything is inflated; ``check``: the content).

        Raises:
            ValueError: not a regular file, not an ``.npz``, a field missing, of another shape or
                kind, too big for this machine, or content that ``check`` refuses.
        """
        where = f"labels file {str(path)!r}"
        if not Path(path).is_file():
            raise ValueError(f"{where} is not a regular file")
        _headers(path, where)
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {f: data[f] for f in Labels.FIELDS if f in data.files}
        except (OSError, EOFError, ValueError, zipfile.BadZipFile) as e:
            raise ValueError(f"{where} is not a labels file: {e}") from None
        missing = [f for f in Labels.FIELDS if f not in arrays and f not in Labels.OPTIONAL]
        if missing:
            raise ValueError(f"{where} lacks {missing}")
        labels = Labels(**arrays)
        labels.check(where)
        return labels

    def check(self, where: str = "labels") -> None:
        """Shapes that agree (one row a position), observations of the network's width, finite
        numbers (values NaN only where unvalued), a legal action at every position that is
        the teacher's, and at least one position.

        Raises:
            ValueError: naming ``where``, the field and the problem.
        """
        n = len(self.obs)
        if n == 0:
            raise ValueError(f"{where} holds no positions")
        if self.obs.ndim != 2 or self.obs.shape[1] not in (OBS_SIZE, OBS_SIZE + PRIVILEGED_SIZE):
            raise ValueError(f"{where}: obs must be N x {OBS_SIZE} (or + {PRIVILEGED_SIZE}), got {self.obs.shape}")
        wide = {"masks": self.masks, "action_values": self.action_values, "policy": self.policy}
        wide["action_errors"] = self.action_errors if self.action_errors is not None else self.action_values
        for name, a in {**wide, "actions": self.actions, "values": self.values}.items():
            want = (n, NUM_ACTIONS) if name in wide else (n,)
            if a.shape != want:
                raise ValueError(f"{where}: {name} must have shape {want}, got {a.shape}")
        if not (np.isfinite(self.obs).all() and np.isfinite(self.values).all() and np.isfinite(self.policy).all()):
            raise ValueError(f"{where}: the observations, values and policies must be finite")
        for name in ("action_values", "action_errors"):
            if np.isinf(wide[name]).any():
                raise ValueError(f"{where}: {name} must be finite where given (NaN: not given)")
        if not np.isin(self.masks, (0, 1)).all() or not self.masks.any(axis=1).all():
            raise ValueError(f"{where}: every mask must be 0 or 1 with a legal action at every position")
        if not ((self.actions >= 0) & (self.actions < NUM_ACTIONS)).all():
            raise ValueError(f"{where}: the actions must be ids in [0, {NUM_ACTIONS})")
        if not self.masks[np.arange(n), self.actions].all():
            raise ValueError(f"{where}: the teacher's action must be legal at every position")

    def without_call_values(self) -> Labels:
        """These labels as a teacher that does not search its calls gives them: every call
        decision's values ``UNVALUED`` (the cards' kept), so the targets there are the learner's
        own policy ("improve") or the teacher's call ("teacher")."""
        calls = self.masks[:, NUM_CARD_ACTIONS:].any(axis=1)
        values = self.action_values.copy()
        values[calls] = UNVALUED
        return replace(self, action_values=values)

    def figures(self) -> dict[str, float]:
        """How sure the teacher was: the share of searched choices, and of those the share
        whose two best cards tie exactly, and the median gap between them (game points)."""
        valued = ~np.isnan(self.action_values)
        rows = valued.sum(axis=1) >= 2
        best = np.sort(np.where(valued[rows], self.action_values[rows], -np.inf), axis=1)[:, ::-1]
        gap = best[:, 0] - best[:, 1] if len(best) else np.zeros(0)
        return {
            "searched_share": float(rows.mean()) if len(self) else 0.0,
            "tied_share": float((gap == 0).mean()) if len(gap) else 0.0,
            "median_gap": float(np.median(gap)) if len(gap) else 0.0,
        }

    def targets(self, soft_temperature: float, rule: str = "teacher") -> np.ndarray:
        """Policy targets (N x 42) by ``rule`` (``TARGETS``).

        "teacher": one-hot on the teacher's action, or with ``soft_temperature`` > 0 the softmax
        of the values over a searched choice's legal actions.

        "matched": the learner's own policy pi reweighted by how surely the teacher finds each
        card worse than the card it plays: ``pi(a) * exp(-z(a))``, ``z(a)`` the value gap in
        standard errors of that gap (the temperature of each card is its own error, measured
        from the spread over the teacher's worlds, not tuned); a decision where every card is
        within one standard error of the teacher's card keeps pi, since the teacher cannot tell
        them apart; pi itself where nothing was searched (needs the labels' errors).

        "improve": a policy-improvement step on the learner's own policy pi (needs it: the
        learner played): ``pi(a) * exp((value(a) - best value) / soft_temperature)``,
        normalised, over a searched choice's legal actions; pi itself at every other
        position (forced cards, and calls unless the teacher searches them). Cards the
        teacher scores alike (a third of its choices tie exactly: game points are rounded)
        keep the learner's preference among them, instead of the teacher's tie-break or a
        uniform spread; a card the teacher finds worse by many temperatures loses its
        weight.
        """
        if rule == "improve":
            return self._improved(soft_temperature)
        if rule == "matched":
            return self._matched()
        t = np.zeros((len(self), NUM_ACTIONS), dtype=np.float32)
        t[np.arange(len(self)), self.actions] = 1.0
        if soft_temperature > 0:
            valued = ~np.isnan(self.action_values)
            rows = valued.any(axis=1)
            z = np.where(valued[rows], self.action_values[rows] / soft_temperature, -np.inf)
            p = np.exp(z - z.max(axis=1, keepdims=True))
            t[rows] = p / p.sum(axis=1, keepdims=True)
        return t

    def _improved(self, temperature: float) -> np.ndarray:
        if temperature <= 0:
            raise ValueError("the 'improve' targets need a temperature > 0")
        played = self.policy.sum(axis=1) > 0
        if not played.all():
            raise ValueError("the 'improve' targets need the learner's policy at every position (the learner played)")
        t = self.policy.astype(np.float64)
        valued = ~np.isnan(self.action_values)
        rows = valued.sum(axis=1) >= 2
        v = np.where(valued[rows], self.action_values[rows], -np.inf).astype(np.float64)
        w = t[rows] * np.exp((v - v.max(axis=1, keepdims=True)) / temperature)
        total = w.sum(axis=1, keepdims=True)
        # the learner gives no weight to any action the teacher rates near the best: the best one
        best = np.eye(NUM_ACTIONS)[v.argmax(axis=1)]
        t[rows] = np.where(total > 0, w / np.where(total > 0, total, 1.0), best)
        out: np.ndarray = t.astype(np.float32)
        return out

    def _gaps(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows searched with errors (two valued actions or more, every one with its error:
        card choices; searched calls have none), and on them each valued action's value gap to
        the teacher's action (clipped at 0; NaN where unvalued) and that gap's error.

        Raises:
            ValueError: searched rows but none with errors (labels made before they were kept).
        """
        valued = ~np.isnan(self.action_values)
        errors = self.action_errors if self.action_errors is not None else np.full(valued.shape, UNVALUED)
        searched = valued.sum(axis=1) >= 2
        rows = searched & (~np.isnan(errors) | ~valued).all(axis=1)
        if searched.any() and not rows.any():
            raise ValueError(
                "the 'matched' targets and the equally good cards need the teacher's errors (labels made with them)"
            )
        v = self.action_values[rows].astype(np.float64)
        played = v[np.arange(len(v)), self.actions[rows]]
        gap = np.maximum(played[:, None] - v, 0.0)
        return rows, gap, errors[rows].astype(np.float64)

    def equally_good(self) -> tuple[np.ndarray, np.ndarray]:
        """The searched rows, and on them the actions within one standard error of the teacher's
        (its gap to the teacher's action at most the gap's error): the cards the teacher cannot
        tell from its own."""
        rows, gap, err = self._gaps()
        with np.errstate(invalid="ignore"):
            good = gap <= err  # NaN (unvalued) compares false
        return rows, good

    def _matched(self) -> np.ndarray:
        played = self.policy.sum(axis=1) > 0
        if not played.all():
            raise ValueError("the 'matched' targets need the learner's policy at every position (the learner played)")
        t = self.policy.astype(np.float64)
        rows, gap, err = self._gaps()
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(gap == 0, 0.0, gap / err)  # in standard errors; a sure gap (error 0) is infinite
        z = np.where(np.isnan(gap), np.inf, z)  # unvalued: illegal, no weight
        indistinct = (z <= 1.0).sum(axis=1) == (~np.isnan(gap)).sum(axis=1)
        w = t[rows] * np.exp(-z)
        total = w.sum(axis=1, keepdims=True)
        chosen = np.eye(NUM_ACTIONS)[self.actions[rows]]
        reweighted = np.where(total > 0, w / np.where(total > 0, total, 1.0), chosen)
        t[rows] = np.where(indistinct[:, None], t[rows], reweighted)
        out: np.ndarray = t.astype(np.float32)
        return out


def set_agreement(labels: Labels, actions: np.ndarray) -> tuple[float, int]:
    """The share of the searched decisions where ``actions`` (a student's greedy ones, one per
    position) is among the teacher's equally good cards (``Labels.equally_good``), and the
    number of those decisions."""
    rows, good = labels.equally_good()
    n = int(rows.sum())
    if n == 0:
        return float("nan"), 0
    hit = good[np.arange(n), actions[rows]]
    return float(hit.mean()), n


TARGETS = ("teacher", "improve", "matched")  # how Labels.targets turns labels into policy targets


def learner(state: NetState, seed: int) -> PolicyAgent:
    """The network of ``state`` (its spec as a dict, its weights) as a sampling agent."""
    spec, weights = state
    net = BalootNet(NetSpec.from_dict(spec))
    net.load_state_dict(weights)
    return PolicyAgent(net, seed=seed, deterministic=False)


@dataclass(frozen=True)
class LabelJob:
    """One labelling job (module docstring): ``positions`` positions of games dealt and played
    from ``seed`` under ``rules``, each paid by ``reward``; ``player`` (a network's state) plays
    ``learner_share`` of the moves from its sampled policy (None: the teacher plays them all),
    ``random_share`` are random; ``teacher`` (an agent spec) labels every decision, with
    ``guide`` the player playing the teacher's playouts; ``privileged`` adds the hidden hands to
    each observation (``HIDDEN_HANDS``, for a privileged critic)."""

    positions: int
    seed: int
    rules: RuleConfig
    reward: Reward
    teacher: str
    player: NetState | None = None
    privileged: bool = False
    learner_share: float = 1.0
    random_share: float = 0.0
    guide: bool = False

    def chunks(self, count: int) -> list[LabelJob]:
        """The job in ``count`` chunks, chunk k seeded ``seed + k``, the positions shared out."""
        n = self.positions
        return [replace(self, positions=n // count + (k < n % count), seed=self.seed + k) for k in range(count)]


def label(job: LabelJob, progress: Callable[[int], None] | None = None) -> Labels:
    """``job``'s positions of the learner's games labelled by the teacher (module docstring,
    steps 1 and 2); every draw from its seed. With ``guide`` the learner plays the teacher's
    playouts (``agents.teacher.make_teacher``)."""
    n, seed, privileged = job.positions, job.seed, job.privileged
    player, learner_share, random_share = job.player, job.learner_share, job.random_share
    rng = random.Random(seed)
    agent = learner(player, seed + 1) if player is not None else None
    teacher = make_teacher(job.teacher, seed, agent if job.guide else None)
    sampler = np.random.default_rng(seed + 1)  # the learner's draws
    obs, masks, _, values = (a.numpy() for a in labelled_arrays(n, privileged))
    actions = np.zeros(n, dtype=np.int64)
    action_values = np.full((n, NUM_ACTIONS), UNVALUED, dtype=np.float32)
    action_errors = np.full((n, NUM_ACTIONS), UNVALUED, dtype=np.float32)
    policy = np.zeros((n, NUM_ACTIONS), dtype=np.float32)
    table = Table(job.rules, "hand", DealSource(rng), job.reward)
    k = start = 0
    teams: list[int] = []

    def new_hand() -> Callable[[PlayerView], int]:
        nonlocal start
        start = k
        teams.clear()
        return choose

    def choose(view: PlayerView) -> int:
        nonlocal k
        seat = view.seat
        judged = teacher.judge(view)
        action = judged.action
        o, mask = view.observation(), view.action_mask()
        pi = agent.probabilities(o[None], mask[None])[0] if agent is not None else None
        if k < n:
            if pi is not None:
                policy[k] = pi
            if privileged:
                hands = table.current_hand.hands  # the critic's privileged input (training only)
                o = np.concatenate([o, seat_hidden_hands(hands, seat)])
            obs[k], masks[k], actions[k] = o, mask, action
            for card, v in (judged.values or {}).items():
                action_values[k, card] = v
            for card, e in (judged.errors or {}).items():
                action_errors[k, card] = e
            teams.append(seat % 2)
            k += 1
            if progress is not None:
                progress(k)
        explore, learn = rng.random() < random_share, rng.random() < learner_share  # both drawn every move
        if explore:
            return int(rng.choice(view.legal_actions))
        if pi is not None and learn:
            return sample_masked(pi[None], sampler)[0]  # the learner's move, drawn from its policy
        return int(action)

    for turn in play_hands(table, new_hand, lambda: k >= n):
        if turn.outcome.hand_result is not None:
            for j, team in enumerate(teams):
                values[start + j] = turn.outcome.rewards[team]
    return Labels(obs, masks, actions, action_values, values, policy, action_errors)


@dataclass(frozen=True)
class PeoplePositions:
    """The people's own moves in played games (``people_positions``): the positions as the warm
    start's arrays (observation, legal mask, one-hot target on the person's action, the hand's
    reward for the acting team) and, per position, the index of its game."""

    obs: np.ndarray
    masks: np.ndarray
    targets: np.ndarray
    values: np.ndarray
    game: np.ndarray
    skipped: int  # games left out: played under other rules than the run's

    def __len__(self) -> int:
        return len(self.obs)

    def rows(self, keep: np.ndarray) -> tuple[np.ndarray, ...]:
        """(obs, masks, targets, values) of the positions whose game ``keep[game]`` is true."""
        at = keep[self.game]
        return self.obs[at], self.masks[at], self.targets[at], self.values[at]


def people_positions(games: Games, rules: RuleConfig, reward: Reward, privileged: bool) -> PeoplePositions:
    """Every move a person made (``by`` "person": not a time-out, a stand-in or a bot) in the
    ``games`` played under ``rules`` (a position under other rules would teach another game),
    seen as that seat saw it (``eval.games.decisions``); the value target is the hand's reward
    for the acting team, as the warm start's hand episodes pay it (``hand_rewards``)."""
    obs, masks, actions, values, game = [], [], [], [], []
    skipped = 0
    for g, hand in enumerate(games.games):
        if RuleConfig.from_dict(hand["rules"]) != rules:
            skipped += 1
            continue
        moves, result = decisions(hand)
        paid = hand_rewards(reward, result, match_episode=False)
        for d in moves:
            if d.by != PERSON:
                continue
            seat = d.view.seat
            o = d.view.observation()
            if privileged:
                o = np.concatenate([o, seat_hidden_hands(d.hands, seat)])
            obs.append(o)
            masks.append(d.view.action_mask())
            actions.append(d.action)
            values.append(paid[seat % 2])
            game.append(g)
    n = len(obs)
    width = OBS_SIZE + (PRIVILEGED_SIZE if privileged else 0)
    targets = np.zeros((n, NUM_ACTIONS), dtype=np.float32)
    targets[np.arange(n), np.asarray(actions, dtype=np.int64)] = 1.0
    return PeoplePositions(
        np.asarray(obs, dtype=np.float32).reshape(n, width),
        np.asarray(masks, dtype=np.int8).reshape(n, NUM_ACTIONS),
        targets,
        np.asarray(values, dtype=np.float32),
        np.asarray(game, dtype=np.int64),
        skipped,
    )


def _label_chunk(job: LabelJob) -> Labels:
    return label(job)


def label_parallel(job: LabelJob, workers: int, chunks: int = 0, quiet: bool = False) -> Labels:
    """``label`` in ``workers`` processes (``train.workers``), ``chunks`` chunks (default 8 a
    worker), chunk k seeded ``seed + k``, joined in order."""

    def line(done: int, rate: float) -> str:
        return f"[expert] labelled {done:,}/{job.positions:,} positions ({job.teacher}, {rate:,.0f}/s)"

    chunked = job.chunks(chunks or 8 * max(1, workers))
    return Labels.join(in_chunks(_label_chunk, chunked, workers, None if quiet else line))


def tensors(
    labels: Labels, soft_temperature: float, rule: str = "teacher", points_per_unit: float | None = None
) -> tuple[torch.Tensor, ...]:
    """The positions as ``train.fitting.fit_positions`` takes them: observations, int8 masks,
    policy targets (``Labels.targets``), value targets; with ``points_per_unit`` (game points per
    unit of the value targets, ``value_unit``) the teacher's values of the actions too, in the
    value's units (``UNVALUED`` kept), for the consistency loss."""
    out = (
        torch.from_numpy(labels.obs),
        torch.from_numpy(labels.masks.astype(np.int8)),
        torch.from_numpy(labels.targets(soft_temperature, rule)),
        torch.from_numpy(labels.values),
    )
    if points_per_unit is None:
        return out
    return (*out, torch.from_numpy((labels.action_values / points_per_unit).astype(np.float32)))


def value_unit(reward: Reward) -> float:
    """Game points per unit of a hand reward (``baloot_env.rewards``): the scale in ``diff``, 1 in
    ``points``; ``win`` is no multiple of the game points (ValueError)."""
    if reward.mode == "win":
        raise ValueError("a 'win' reward is no multiple of the game points")
    return float(reward.scale) if reward.mode == "diff" else 1.0
