"""Running duplicate evaluation over worker processes, deterministically.

The work is cut into tasks that do not depend on each other: chunks of deals (both tables of
each deal) and the two match chains (one per seating, ``duplicate.play_match_chain``). Every
hand is seeded from (seed, deal index, team), so the results do not depend on the number of
workers or the order in which tasks finish. Workers are started with the ``spawn`` method,
which is safe on every platform and with any threads in the parent.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from agents.registry import make_agent, resolve_spec
from baloot_env.deal import parse_deal
from baloot_env.rules import RuleConfig
from eval.deals import DealSet
from eval.duplicate import DealRecord, MatchRecord, play_deal, play_match_chain

CHUNK = 16  # deals per task: small enough to balance two workers, big enough to amortise IPC

_CTX: dict[str, Any] = {}  # per-process context set by _init (one evaluation per process)


def _init(spec_a: str, spec_b: str, deals: list[dict], seed: int, rules: dict) -> None:
    _CTX.clear()
    _CTX.update(
        a=make_agent(spec_a, seed),
        b=make_agent(spec_b, seed),
        deals=tuple(parse_deal(d) for d in deals),
        seed=seed,
        rules=RuleConfig.from_dict(rules),
    )


def _task(task: tuple) -> tuple[tuple, Any]:
    kind = task[0]
    c = _CTX
    if kind == "deals":
        _, lo, hi = task
        recs = [play_deal(i, c["deals"][i], c["a"], c["b"], c["seed"], c["rules"]) for i in range(lo, hi)]
        return task, recs
    if kind == "chain":
        _, table, lo, hi = task
        return task, play_match_chain(c["deals"][lo:hi], c["a"], c["b"], table, c["seed"], c["rules"])
    raise ValueError(f"unknown task {task!r}")


@dataclass
class RunResult:
    """Raw outcome of one run: deal records in deal order, matches in (table, start) order."""

    records: list[DealRecord]
    matches: list[MatchRecord] = field(default_factory=list)
    left_over: tuple[int, int] = (0, 0)  # deals of an unfinished match per table
    seconds: float = 0.0


def run_duplicate(
    spec_a: str,
    spec_b: str,
    deal_set: DealSet,
    *,
    seed: int = 0,
    workers: int = 1,
    lo: int = 0,
    hi: int | None = None,
    matches: bool = True,
    progress: bool = False,
    rules: RuleConfig | None = None,
) -> RunResult:
    """Play deals ``lo:hi`` of ``deal_set`` in duplicate (and the match chains on them).

    Args:
        spec_a, spec_b: agent specs (``agents.make_agent``).
        deal_set: the deals.
        seed: seeds every hand (``duplicate.hand_seed``).
        workers: worker processes; 1 plays in this process.
        lo, hi: the range of deal indices (the seeds use the index in the set).
        matches: also play matches to 152 on the deal sequence, at both seatings.
        progress: a tqdm bar (or log lines) on stderr.
        rules: rule variants (default RULES.md).

    Raises:
        AgentSpecError: an agent spec is unknown or its file missing or corrupt.
        AgentError: an agent played an illegal action.
    """
    resolve_spec(spec_a)  # fail here, with a clear message, before starting workers
    resolve_spec(spec_b)
    rules = rules or RuleConfig()
    hi = len(deal_set) if hi is None else hi
    if not 0 <= lo < hi <= len(deal_set):
        raise ValueError(f"deal range {lo}:{hi} is not inside the {len(deal_set)} deals of {deal_set.name!r}")
    tasks: list[tuple] = []
    if matches:
        tasks += [("chain", 0, lo, hi), ("chain", 1, lo, hi)]  # longest first
    tasks += [("deals", i, min(i + CHUNK, hi)) for i in range(lo, hi, CHUNK)]
    init_args = (spec_a, spec_b, [d.to_dict() for d in deal_set.deals], seed, rules.to_dict())
    units = {t: (t[2] - t[1] if t[0] == "deals" else t[3] - t[2]) for t in tasks}
    bar = _Progress(sum(units.values()), progress, f"{spec_a} vs {spec_b}")
    t0 = time.perf_counter()
    results: dict[tuple, Any] = {}
    if workers <= 1:
        _init(*init_args)
        for t in tasks:
            key, value = _task(t)
            results[key] = value
            bar.update(units[t])
    else:
        ctx = mp.get_context("spawn")
        with ctx.Pool(workers, initializer=_init, initargs=init_args) as pool:
            for key, value in pool.imap_unordered(_task, tasks):
                results[key] = value
                bar.update(units[key])
    bar.close()
    records = [r for t in tasks if t[0] == "deals" for r in results[t]]
    out = RunResult(records, seconds=time.perf_counter() - t0)
    if matches:
        m0, left0 = results[("chain", 0, lo, hi)]
        m1, left1 = results[("chain", 1, lo, hi)]
        out.matches = m0 + m1
        out.left_over = (left0, left1)
    return out


class _Progress:
    """tqdm on stderr when available, else a log line every 10%."""

    def __init__(self, total: int, enabled: bool, label: str):
        self.total, self.done, self.enabled, self.label = total, 0, enabled, label
        self.next_log = 0.1
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc=label, unit="deal", file=sys.stderr, leave=False)
            except ImportError:
                self.bar = None

    def update(self, n: int) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.enabled and self.done >= self.next_log * self.total:
            print(f"[eval] {self.label}: {self.done}/{self.total}", file=sys.stderr, flush=True)
            self.next_log += 0.1

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
