"""The teacher's noise: how often a search agrees with itself (issue 44, goal 1).

A learner (a policy bundle) plays hands against itself on the game driver, every move drawn
from its policy, so the positions are the ones expert iteration labels. At every card choice
with two or more legal cards the teacher searches the position twice, with independent world
seeds (two copies of the teacher, seeded apart); the teacher's moves are never played, so the
games, and the positions, do not depend on which teacher is measured.

Each search gives every card's value in every world it played (``SearchAgent.card_values``,
exactly the search the teacher plays by: under ``netsearch``'s ``prune`` the cards it searches,
and a decision it plays unsearched is not measured), and their spread each card's standard error. Every
world plays every card, so the error of a card's difference to the best card is taken on the
paired values, world by world (``CardValues.gap_errors``).

For one search of a decision:

- **best**: the card the teacher plays (its own tie-break, ``pick``);
- **equally good**: the cards whose value is within one standard error (of the difference) of
  the best card's;
- **all tied**: every legal card has exactly the best value (nothing to learn from the values).

Reported overall and by trick (``NoiseReport``): agreement on the best card (the two searches
play the same card), agreement on the set (a search's card is among the other's equally good
cards, the mean of both ways round), the share of all-tied decisions, the share where every
card is equally good, and the standard error of a card's value (median and mean, game points).
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.neural.bundle import BundleError, bundle_rules, load_net
from agents.neural.policy import sample_masked
from agents.registry import AgentSpecError, make_agent
from agents.search_player.netsearch import NetSearchAgent
from agents.search_player.player import SearchAgent
from agents.shipped import shipped_policies
from agents.teacher import guided, make_teacher
from baloot_cli import MAX_WORKERS, OneLineParser, check_output, check_range, one_line
from baloot_env.cards import NUM_TRICKS
from baloot_env.driver import DealSource, Table
from baloot_env.errors import ConfigError
from baloot_env.hand import PLAY
from baloot_env.loop import play_hands
from baloot_env.view import PlayerView
from baloot_io.atomic import write_bytes_atomic
from train.config import EnvConfig
from train.labels import LabelJob, learner
from train.workers import in_chunks

SECOND_SEARCH_SEED = 7_919_001  # the second search's teacher is seeded this far from the first


Searching = SearchAgent | NetSearchAgent  # the teachers whose worlds can be seen


def searcher(teacher: object) -> SearchAgent:
    """The search under a teacher (``search``, or ``netsearch``'s), checked to be measurable:
    on the core backend, a fixed number of worlds.

    Raises:
        ConfigError: another kind of agent, the Python backend or a time budget.
    """
    search = teacher.search if isinstance(teacher, NetSearchAgent) else teacher
    if not isinstance(search, SearchAgent):
        raise ConfigError(f"the teacher must be a search or netsearch agent, got {type(teacher).__name__}")
    if search.config.backend != "core" or search.config.time_budget > 0:
        raise ConfigError("the teacher's noise is measured on the core backend with a fixed number of worlds")
    return search


@dataclass(frozen=True)
class Searched:
    """One search of a decision (per legal card, ``cards_of`` order)."""

    pick: int  # index into the legal cards of the card the teacher plays
    values: np.ndarray  # mean value (game points) over all worlds
    se: np.ndarray  # standard error of the value
    se_gap: np.ndarray  # standard error of (value of ``pick``) - (value of the card); 0 at ``pick``

    @property
    def all_tied(self) -> bool:
        return bool((self.values == self.values.max()).all())

    @property
    def equally_good(self) -> np.ndarray:
        """Whether each card is within one standard error of the card played."""
        out: np.ndarray = self.values[self.pick] - self.values <= self.se_gap
        return out


def search_once(teacher: Searching, view: PlayerView) -> Searched | None:
    """The teacher's search of ``view``: what it plays and why (module docstring); under
    ``netsearch``'s ``prune`` the cards it searches only, and None where it plays a card unsearched
    (the network alone finds it likely: no search to disagree with)."""
    search = searcher(teacher)
    candidates: list[int] = []
    if isinstance(teacher, NetSearchAgent) and teacher.config.prune:
        candidates = teacher.candidates(view)
        if len(candidates) == 1:
            return None
    found = search.card_values(view, search.rng, candidates)
    values = found.values()
    card = teacher.pick(view, values)
    gaps = found.gap_errors(card)
    return Searched(
        found.cards.index(card),
        np.array([values[c] for c in found.cards]),
        found.errors(),
        np.array([gaps[c] for c in found.cards]),
    )


@dataclass
class Decisions:
    """The measured decisions: per decision its trick (0-7) and the two searches' verdicts, and
    per legal card its trick and standard error (both searches)."""

    trick: np.ndarray
    same_best: np.ndarray
    set_agree: np.ndarray  # 0, 0.5 or 1: the mean of "A's card is among B's equally good" and back
    all_tied: np.ndarray  # the mean over the two searches (0, 0.5 or 1)
    all_equal: np.ndarray  # every card equally good, the mean over the two searches
    card_trick: np.ndarray
    card_se: np.ndarray
    card_se_gap: np.ndarray  # nan at the card played

    FIELDS = ("trick", "same_best", "set_agree", "all_tied", "all_equal", "card_trick", "card_se", "card_se_gap")

    @staticmethod
    def join(parts: list[Decisions]) -> Decisions:
        return Decisions(*(np.concatenate([getattr(p, f) for p in parts]) for f in Decisions.FIELDS))

    def __len__(self) -> int:
        return len(self.trick)


def compare(a: Searched, b: Searched) -> tuple[bool, float, float, float]:
    """Same best card, set agreement, all tied and all equally good (means over the two)."""
    set_agree = (float(a.equally_good[b.pick]) + float(b.equally_good[a.pick])) / 2
    tied = (a.all_tied + b.all_tied) / 2
    equal = (float(a.equally_good.all()) + float(b.equally_good.all())) / 2
    return a.pick == b.pick, set_agree, tied, equal


def measure(job: LabelJob) -> Decisions:
    """``job.positions`` card decisions of the learner's games (``job.player`` plays every move;
    its shares are not read), each searched twice by ``job.teacher`` (module docstring); every
    draw from ``job.seed``."""
    seed = job.seed
    if job.player is None:
        raise ConfigError("the teacher's noise is measured on a learner's games: the job needs a player")
    rng = random.Random(seed)
    agent = learner(job.player, seed + 1)
    sampler = np.random.default_rng(seed + 1)
    rollout = agent if job.guide else None
    teachers: list[Searching] = []
    for s in (seed, seed + SECOND_SEARCH_SEED):
        t = make_teacher(job.teacher, s, rollout)
        if not isinstance(t, SearchAgent | NetSearchAgent):
            raise ConfigError(f"the teacher must be a search or netsearch agent, got {job.teacher!r}")
        searcher(t)
        teachers.append(t)
    rows: list[tuple[int, bool, float, float, float]] = []
    cards: list[tuple[int, float, float]] = []
    table = Table(job.rules, "hand", DealSource(rng), job.reward)

    def choose(view: PlayerView) -> int:
        mask = view.action_mask()
        if view.phase == PLAY and len(view.legal_actions) > 1 and len(rows) < job.positions:
            trick = NUM_TRICKS - view.hand.bit_count()
            a, b = (search_once(t, view) for t in teachers)
            if a is not None and b is not None:  # both None, or neither: the same network prunes
                rows.append((trick, *compare(a, b)))
                for s in (a, b):
                    gaps = s.se_gap.copy()
                    gaps[s.pick] = np.nan
                    cards.extend((trick, float(se), float(g)) for se, g in zip(s.se, gaps, strict=True))
        pi = agent.probabilities(view.observation()[None], mask[None])[0]
        return sample_masked(pi[None], sampler)[0]

    for _ in play_hands(table, lambda: choose, lambda: len(rows) >= job.positions):
        pass
    r, c = np.array(rows, dtype=np.float64).reshape(-1, 5), np.array(cards, dtype=np.float64).reshape(-1, 3)
    return Decisions(
        r[:, 0].astype(np.int64), r[:, 1] > 0, r[:, 2], r[:, 3], r[:, 4], c[:, 0].astype(np.int64), c[:, 1], c[:, 2]
    )


def measure_parallel(job: LabelJob, workers: int, quiet: bool = False) -> Decisions:
    """``measure`` in ``workers`` processes (``train.workers``), 8 chunks a worker, chunk k
    seeded ``seed + k``, joined in order."""

    def line(done: int, rate: float) -> str:
        return f"[noise] {done:,}/{job.positions:,} decisions searched twice ({rate:,.1f}/s)"

    return Decisions.join(in_chunks(measure, job.chunks(8 * max(1, workers)), workers, None if quiet else line))


def _figures(d: Decisions, at: np.ndarray, card_at: np.ndarray) -> dict[str, float]:
    se = d.card_se[card_at]
    gap = d.card_se_gap[card_at]
    gap = gap[~np.isnan(gap)]
    return {
        "decisions": int(at.sum()),
        "same_best": float(d.same_best[at].mean()) if at.any() else math.nan,
        "set_agreement": float(d.set_agree[at].mean()) if at.any() else math.nan,
        "all_tied": float(d.all_tied[at].mean()) if at.any() else math.nan,
        "all_equally_good": float(d.all_equal[at].mean()) if at.any() else math.nan,
        "median_se": float(np.median(se)) if len(se) else math.nan,
        "mean_se": float(se.mean()) if len(se) else math.nan,
        "median_se_gap": float(np.median(gap)) if len(gap) else math.nan,
    }


def report(d: Decisions) -> dict[str, Any]:
    """The figures overall and by trick (1-8)."""
    everything = np.ones(len(d), dtype=bool)
    by_trick = {
        str(t + 1): _figures(d, d.trick == t, d.card_trick == t) for t in range(NUM_TRICKS) if (d.trick == t).any()
    }
    return {"all": _figures(d, everything, np.ones(len(d.card_se), dtype=bool)), "by_trick": by_trick}


def table(figures: dict[str, Any]) -> str:
    """The report as a Markdown table, one row a trick and the total last."""
    head = (
        "| trick | decisions | same best card | set agreement | all tied | all equally good "
        "| median se | mean se | median se of the gap to the best |"
    )
    lines = [head, "|" + "---|" * 9]
    rows = [*figures["by_trick"].items(), ("all", figures["all"])]
    for name, f in rows:
        lines.append(
            f"| {name} | {f['decisions']:,} | {f['same_best']:.1%} | {f['set_agreement']:.1%} | {f['all_tied']:.1%} "
            f"| {f['all_equally_good']:.1%} | {f['median_se']:.3f} | {f['mean_se']:.3f} | {f['median_se_gap']:.3f} |"
        )
    return "\n".join(lines)


DEFAULT_DECISIONS = 5_000


def main(argv: list[str] | None = None) -> int:
    """``python -m train noise``: how often the teacher agrees with itself (module docstring).

    Bad input: one line, exit code 2, before any work.
    """
    p = OneLineParser(prog="python -m train noise", description=(main.__doc__ or "").splitlines()[0])
    p.add_argument("--policy", default="policies/champion", help="the bundle whose own games give the positions")
    p.add_argument("--teacher", default="search", help="a search or netsearch agent spec (default search)")
    p.add_argument("--positions", type=int, default=DEFAULT_DECISIONS, help="card decisions, each searched twice")
    p.add_argument("--guide", action="store_true", help="the --policy plays the teacher's playouts (expert.guide)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, help="the report (.json)")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    torch.set_num_threads(1)
    try:
        check_range("--positions", a.positions, 1)
        check_range("--workers", a.workers, 1, MAX_WORKERS)
        check_range("--seed", a.seed, 0)
        net, manifest = load_net(a.policy)
        rules = bundle_rules(manifest)
        search = searcher(make_agent(a.teacher, a.seed))
        if a.guide and not guided(a.teacher):
            raise ValueError(f"--guide needs a netsearch teacher with leaves 'policy', got {a.teacher!r}")
        fewest = min(search.config.worlds_by_trick or (search.config.worlds,))
        check_range("worlds", fewest, 2, note=" (the teacher's fewest: a standard error needs two)")
        if not a.out.endswith(".json"):
            raise ValueError(f"--out must name a .json file, got {a.out!r}")
        check_output(a.out, "--out", [("--policy", a.policy), ("--teacher", a.teacher)], [shipped_policies()])
    except (ValueError, BundleError, AgentSpecError, OSError) as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    reward = EnvConfig().as_reward()
    player = (net.spec.to_dict(), {k: v.detach().cpu() for k, v in net.state_dict().items()})
    t0 = time.perf_counter()
    job = LabelJob(a.positions, a.seed, rules, reward, a.teacher, player, guide=a.guide)
    decisions = measure_parallel(job, a.workers, a.quiet)
    figures = report(decisions)
    out = {
        "policy": a.policy,
        "teacher": a.teacher,
        "guide": a.guide,
        "seed": a.seed,
        "seconds": time.perf_counter() - t0,
        **figures,
    }
    write_bytes_atomic(Path(a.out), (json.dumps(out, indent=2) + "\n").encode())
    print(table(figures))
    print(f"{len(decisions):,} decisions of {a.policy}'s games, {a.teacher} twice -> {a.out}")
    return 0
