"""Warm start: behaviour cloning of a teacher (``heuristic`` by default) before PPO (an addition to the issue's PPO).

Why: from a random network, calling a contract loses points (its card play is random), so
PPO's first lesson is to pass every hand; thrown-in hands score 0 and the card-play head then
never sees a played hand (measured: win rate against ``heuristic`` fell from 31% to 4% while
the mean reward rose to about 0). Starting from a copy of a sensible player avoids that trap;
PPO then improves on it by self-play.

Positions come from seeded games of the teacher against itself (with a small share of random
moves so that unusual positions are covered too), played by the game driver
(``baloot_env.driver.Table``) and seen through each seat's ``PlayerView``; the policy heads learn
the teacher's choice (cross-entropy over legal actions) and the value head the hand's reward
for the acting team, by the training reward (``baloot_env.rewards``: by default the hand's score
difference / ``env.reward_scale``).

A policy bundle as the teacher (``teacher: policies/champion``) is how a run starts from what
an earlier run learned without copying its weights: its games are played on the batched core,
every seat the bundle's greedy action (``collect_core``), and the targets are its policy
(one-hot on its action, or its probabilities at ``soft_temperature``).

Options (``PretrainConfig``): ``augment`` renames the suits of every position at random
(``train.augment``; measured: imitating ``heuristic`` on 1M positions went from -0.37 to -0.15
game points per deal against it, docs/RESULTS.md); ``soft_temperature`` turns a searching
teacher's card values into soft targets (measured harmful so far, see docs/RESULTS.md), or a
policy bundle's logits into its probabilities at that temperature.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np
import torch

from agents.neural.bundle import load_net
from agents.neural.network import BalootNet
from agents.registry import resolve_spec
from agents.rule_based.batch_heuristic import act as heuristic_act
from baloot_env.actions import NUM_ACTIONS
from baloot_env.batch import BatchGame
from baloot_env.batch.state import HANDS
from baloot_env.observation import hidden_hands
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig
from eval.games import load_games
from train.config import PretrainConfig
from train.fitting import fit_labelled, fit_processes
from train.hardware import device_of
from train.labels import LabelJob, PeoplePositions, label, labelled_arrays, people_positions
from train.workers import in_workers


def collect(
    n: int,
    seed: int,
    rules: RuleConfig,
    random_share: float,
    reward: Reward,
    privileged: bool,
    teacher_spec: str = "heuristic",
    soft_temperature: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``n`` positions (obs, mask, target, value target) from the teacher's self-play
    (``train.labels.label`` with the teacher playing).

    The target is a distribution over the 42 actions: one-hot on the teacher's choice, or, with
    ``soft_temperature > 0`` and a teacher that values its options (``search``'s ``judge``),
    ``softmax(value / soft_temperature)`` over the legal cards of a searched card choice, so
    that the student also learns how much worse the other cards are (values in game points).
    The value target is the hand's reward for the acting team (``reward``).
    """
    labels = label(LabelJob(n, seed, rules, reward, teacher_spec, privileged=privileged, random_share=random_share))
    return labels.obs, labels.masks, labels.targets(soft_temperature), labels.values


def collect_core(
    n: int,
    seed: int,
    rules: RuleConfig,
    random_share: float,
    reward: Reward,
    privileged: bool,
    games: int = 256,
    deals: list[Any] | None = None,
    teacher: str = "heuristic",
    temperature: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``collect`` on the batched core, ``games`` hands in lockstep, for the ``heuristic`` teacher
    or a policy bundle's (``teacher``).

    The heuristic's labels come from its numba twin (``agents.rule_based.batch_heuristic``,
    equal to ``HeuristicAgent`` on every decision tested); a bundle's from one forward pass over
    every game's position: its greedy action is played and labelled (as ``PolicyAgent`` plays),
    or with ``temperature`` > 0 its probabilities at that temperature are the target. The
    observations and masks come from the core's observation kernel (equal to ``encode`` bit for
    bit), the value targets from the core's rewards (team 0's; team 1 gets its negative). A
    position is kept once its hand has ended, so every value target is known; deals come from
    the core's seeded streams and the random moves from ``numpy.random.default_rng(seed)``: the
    same kind of positions as ``collect``, not the same ones. ``deals`` (one game only) plays
    those deals first, in order.
    """

    rng = np.random.default_rng(seed)
    if deals is not None and games != 1:
        raise ValueError("deals are played by one game: pass games=1")
    net = None if teacher == "heuristic" else load_net(resolve_spec(teacher)["path"])[0].eval()
    game = BatchGame(
        games, rules, episode="hand", seed=seed, reward=reward, deals=None if deals is None else [list(deals)]
    )
    obs, masks, targets, values = (a.numpy() for a in labelled_arrays(n, privileged))
    pending: list[list[tuple[np.ndarray, np.ndarray, np.ndarray, int]]] = [[] for _ in range(games)]
    k = 0
    while k < n:
        seats = game.to_act.copy()
        o, m, labels, wanted = _labelled_step(game, net, temperature, privileged)
        moves = labels.copy()
        explore = rng.random(games) < random_share
        for g in np.flatnonzero(explore).tolist():
            moves[g] = int(rng.choice(np.flatnonzero(m[g])))
        for g in range(games):
            pending[g].append((o[g].copy(), m[g].copy(), wanted[g], int(seats[g]) % 2))
        res = game.step(moves)
        for g in np.flatnonzero(res.hand_done).tolist():
            team0 = float(res.reward[g])
            for ob, mk, target, team in pending[g]:
                if k < n:
                    obs[k], masks[k], targets[k] = ob, mk, target
                    values[k] = team0 if team == 0 else -team0
                    k += 1
            pending[g] = []
    return obs, masks, targets, values


def _labelled_step(
    game: BatchGame, net: BalootNet | None, temperature: float, privileged: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every game's position to act (with the four hands, seen from the seat, when
    ``privileged``), its mask, the teacher's action and its target (``collect_core``)."""
    seats = game.to_act
    o, m = game.observe()
    if net is None:
        labels = heuristic_act(game.state.games)
        wanted = np.eye(NUM_ACTIONS, dtype=np.float32)[labels]
    else:
        labels, wanted = _policy_targets(net, o, m, temperature)
    if privileged:
        hands = game.state.games[:, HANDS : HANDS + 4]
        rel = hands[np.arange(len(seats))[:, None], (seats[:, None] + np.arange(4)[None, :]) % 4]
        o = np.concatenate([o, hidden_hands(rel)], axis=1)
    return o, m, labels, wanted


@torch.no_grad()
def _policy_targets(
    net: BalootNet, obs: np.ndarray, masks: np.ndarray, temperature: float
) -> tuple[np.ndarray, np.ndarray]:
    """A bundle's greedy actions on a batch of positions, and its targets: one-hot on them, or
    its probabilities at ``temperature`` (exactly 0 on illegal actions)."""
    logits = net.policy_logits(torch.from_numpy(obs[:, : net.spec.obs_size]), torch.from_numpy(masks))
    labels = logits.argmax(dim=1).numpy()
    if temperature <= 0:
        return labels, np.eye(NUM_ACTIONS, dtype=np.float32)[labels]
    probs = torch.softmax(logits / temperature, dim=1) * torch.from_numpy(masks).bool()
    return labels, (probs / probs.sum(dim=1, keepdim=True)).numpy().astype(np.float32)


def uses_core(cfg: PretrainConfig) -> bool:
    """Whether the warm start labels on the batched core: the heuristic teacher (it values no
    options, so its targets are one-hot at any ``soft_temperature``), or a policy bundle
    (``teacher_bundle``)."""
    if cfg.backend != "core":
        return False
    return cfg.teacher == "heuristic" or teacher_bundle(cfg.teacher)


def teacher_bundle(spec: str) -> bool:
    """Whether the agent spec ``spec`` names a policy bundle (a folder, or ``policies/NAME``)."""
    return spec != "heuristic" and resolve_spec(spec)["agent"] == "policy"


def _collect_task(args: tuple[Any, ...]) -> int:
    """A worker's chunk: labelled, then written into its rows of the shared arrays."""
    core, out, at, n, seed, rules, random_share, reward, privileged, teacher, temperature = args
    if core:
        part = collect_core(n, seed, rules, random_share, reward, privileged, 256, None, teacher, temperature)
    else:
        part = collect(n, seed, rules, random_share, reward, privileged, teacher, temperature)
    for dst, src in zip(out, part, strict=True):
        dst[at : at + len(src)] = torch.from_numpy(src)
    return len(part[0])


def collect_parallel(
    cfg: PretrainConfig, seed: int, rules: RuleConfig, reward: Reward, privileged: bool, quiet: bool
) -> tuple[np.ndarray, ...]:
    """``collect`` (or, on the batched core, ``collect_core``: ``uses_core``)
    split over ``cfg.workers`` processes, chunk k seeded ``seed + k``, joined in order
    (``labelled``'s arrays as numpy arrays)."""
    return tuple(t.numpy() for t in labelled(cfg, seed, rules, reward, privileged, quiet))


def labelled(
    cfg: PretrainConfig, seed: int, rules: RuleConfig, reward: Reward, privileged: bool, quiet: bool
) -> tuple[torch.Tensor, ...]:
    """The warm start's positions (``collect_parallel``). With ``cfg.workers`` > 1 the workers
    write their rows straight into tensors in shared memory (the positions of a warm start are
    gigabytes: through a pipe they would cost more than labelling them), which the processes
    of the fit then read in place (``fit_positions``)."""
    core = uses_core(cfg)
    teacher = (cfg.teacher, cfg.soft_temperature)
    where = "on the batched core" if core else "in Python"
    if cfg.workers <= 1:  # one chunk, labelled in place
        data = (
            collect_core(cfg.positions, seed, rules, cfg.random_share, reward, privileged, 256, None, *teacher)
            if core
            else collect(cfg.positions, seed, rules, cfg.random_share, reward, privileged, *teacher)
        )
        if not quiet:
            print(
                f"[pretrain] labelled {cfg.positions:,} positions ({cfg.teacher}, {where})", file=sys.stderr, flush=True
            )
        return tuple(torch.from_numpy(a) for a in data)
    chunks = 4 * cfg.workers  # small chunks: balanced workers
    sizes = [cfg.positions // chunks + (k < cfg.positions % chunks) for k in range(chunks)]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).tolist()
    out = labelled_arrays(cfg.positions, privileged, shared=True)
    tasks = [
        (core, out, at, n, seed + k, rules, cfg.random_share, reward, privileged, *teacher)
        for k, (at, n) in enumerate(zip(starts, sizes, strict=True))
    ]
    for k, _ in enumerate(in_workers(_collect_task, tasks, cfg.workers)):
        if not quiet:
            print(
                f"[pretrain] labelled {starts[k] + sizes[k]:,}/{cfg.positions:,} positions "
                f"({cfg.teacher}, {where}, chunk {k + 1}/{chunks})",
                file=sys.stderr,
                flush=True,
            )
    return out


HELDOUT_SEED_OFFSET = 7_919_000  # far above the chunk seeds seed + k, k < 4 * workers


def heldout_size(positions: int) -> int:
    """How many held-out positions judge the imitation: 5% of the training positions, 500 to 10,000."""
    return min(10_000, max(500, positions // 20))


@torch.no_grad()
def imitation_accuracy(net: BalootNet, data: tuple[Any, ...]) -> float:
    """Share of positions where the network's best legal action is the teacher's (its target's argmax)."""
    obs, masks, targets = (torch.from_numpy(a).to(device_of(net)) for a in data[:3])
    logits, _ = net(obs, masks)
    return float((logits.argmax(1) == targets.argmax(1)).float().mean())


def people_split(
    cfg: PretrainConfig, seed: int, rules: RuleConfig, reward: Reward, privileged: bool
) -> tuple[PeoplePositions, np.ndarray]:
    """The people's positions of ``cfg.games`` (``train.labels.people_positions``) and which games
    are held out to judge the imitation (5% of the games, drawn from ``seed``, when there are at
    least 20: a person's moves in one hand are alike, so hands are held out, not moves)."""
    games = load_games(cfg.games)
    people = people_positions(games, rules, reward, privileged)
    n_games = len(games)
    held = np.zeros(n_games, dtype=bool)
    if n_games >= 20:
        rng = np.random.default_rng(seed + HELDOUT_SEED_OFFSET)
        held[rng.permutation(n_games)[: n_games // 20]] = True
    return people, held


def heldout(cfg: PretrainConfig, seed: int, rules: RuleConfig, reward: Reward, privileged: bool) -> tuple[Any, ...]:
    """The teacher's held-out positions: hands of their own (a seed no chunk uses), so that the
    reported imitation accuracy is a generalisation figure and not a memorisation one."""
    held_seed, n_held = seed + HELDOUT_SEED_OFFSET, heldout_size(cfg.positions)
    if uses_core(cfg):
        return collect_core(
            n_held, held_seed, rules, cfg.random_share, reward, privileged, 256, None, cfg.teacher, cfg.soft_temperature
        )
    return collect(n_held, held_seed, rules, cfg.random_share, reward, privileged, cfg.teacher, cfg.soft_temperature)


def pretrain(
    net: BalootNet, cfg: PretrainConfig, seed: int, rules: RuleConfig, reward: Reward, quiet: bool = False
) -> dict[str, Any]:
    """Fit ``net`` to the teacher (and to the people's moves of ``cfg.games``) in place; returns
    accuracy and losses for the log.

    ``reward``: the training reward, which the value head learns to predict. With ``cfg.workers`` > 1 on the CPU the fit runs in that many
    processes (``fit_positions``).
    """
    if cfg.positions <= 0 and not cfg.games:
        return {}
    t0 = time.perf_counter()
    privileged = net.spec.privileged_critic
    parts: list[tuple[torch.Tensor, ...]] = []
    judges: dict[str, tuple[Any, ...]] = {}  # held-out positions, never trained on, by what they judge
    stats: dict[str, Any] = {}
    if cfg.positions > 0:
        parts.append(labelled(cfg, seed, rules, reward, privileged, quiet))
        judges["heldout_accuracy"] = heldout(cfg, seed, rules, reward, privileged)
    if cfg.games:
        people, held_games = people_split(cfg, seed, rules, reward, privileged)
        parts.append(tuple(torch.from_numpy(a) for a in people.rows(~held_games)))
        if held_games.any():
            judges["people_heldout_accuracy"] = people.rows(held_games)
        stats.update(people_positions=len(people), people_games_skipped=people.skipped)
        if not quiet:
            print(
                f"[pretrain] {len(people):,} moves of people from {cfg.games} "
                f"({people.skipped} games under other rules left out, {int(held_games.sum())} held out)",
                file=sys.stderr,
                flush=True,
            )
    data = parts[0] if len(parts) == 1 else tuple(torch.cat(cols) for cols in zip(*parts, strict=True))
    t_collect = time.perf_counter() - t0

    def after_epoch(epoch: int, means: dict[str, float]) -> None:
        stats.update(means, **{k: imitation_accuracy(net, held) for k, held in judges.items()})
        if not quiet:
            judged = "".join(
                f"{stats[k]:.1%} on {len(held[0]):,} held-out positions ({'people' if k.startswith('people') else 'teacher'}), "
                for k, held in judges.items()
            )
            print(
                f"[pretrain] epoch {epoch + 1}/{cfg.epochs}: imitation accuracy {judged}"
                f"{stats['train_accuracy']:.1%} on the training positions, "
                f"policy loss {stats['policy_loss']:.3f}, value loss {stats['value_loss']:.3f}",
                file=sys.stderr,
                flush=True,
            )

    processes = fit_processes(cfg, net)
    fit_labelled(net, data, cfg, seed, after_epoch, processes)
    stats["positions"] = len(data[0])
    stats["fit_processes"] = processes
    stats["seconds"] = time.perf_counter() - t0
    stats["collect_seconds"] = t_collect
    return stats
