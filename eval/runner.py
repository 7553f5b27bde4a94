"""Running duplicate evaluation over worker processes, deterministically.

The work is cut into tasks that do not depend on each other: chunks of deals (both tables of
each deal) and the two match chains (one per seating, ``duplicate.play_match_chain``). Every
hand is seeded from (seed, deal index, team), so the results do not depend on the number of
workers or the order in which tasks finish. Workers are started with the ``spawn`` method,
which is safe on every platform and with any threads in the parent.

Threads: every evaluating process (each worker, and this process when it plays itself) runs
torch on ``torch_threads`` threads, 1 by default. A policy decides on batches of one, which
extra threads do not speed up; torch's default (one thread per core in every process) makes the
workers fight each other for the cores. The results are identical either way; measured by
``benchmarks/eval_threads.py`` (docs/BENCHMARKS.md).

Workers stop with their parent (``baloot_io.processes.die_with_parent``: even a SIGKILLed
parent takes them along). A SIGTERM to the parent terminates the pool first.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from agents.base import Agent
from agents.registry import AgentSpecError, make_agent, policy_bundles
from baloot_env.deal import Deal, parse_deal
from baloot_env.rules import RuleConfig
from baloot_io.processes import die_with_parent
from eval.deals import DealSet
from eval.duplicate import DealRecord, MatchRecord, play_deal, play_match_chain

Task = tuple[Any, ...]  # ("deals", lo, hi) or ("chain", table, lo, hi): plan_tasks's cut
CHUNK = 16  # deals per task: small enough to balance two workers, big enough to amortise IPC
DEFAULT_TORCH_THREADS = 1  # per evaluating process; what run_duplicate uses when not told

_CTX: dict[str, Any] = {}  # per-process context set by _init (one evaluation per process)


class RulesMismatchError(ValueError):
    """A policy bundle asked to play under rules other than those it was trained under."""


def check_rules(specs: list[str], rules: RuleConfig, other_rules: bool = False) -> None:
    """Every policy bundle that ``specs`` play with was trained under ``rules`` (its manifest's
    ``rules``, ``agents.neural.bundle.bundle_rules``), unless ``other_rules`` allows the mismatch.

    Raises:
        RulesMismatchError: a bundle trained under other rules, and ``other_rules`` is False.
        AgentSpecError: a spec is unknown or its file missing or corrupt.
    """
    bundles = [(spec, path) for spec in specs for path in policy_bundles(spec)]
    if other_rules or not bundles:
        return
    from agents.neural.bundle import bundle_rules, read_manifest  # torch: loaded only when a bundle plays

    for spec, path in bundles:
        trained = bundle_rules(read_manifest(path))
        if trained != rules:
            where = "" if path == spec else f" (in {spec})"
            raise RulesMismatchError(
                f"policy bundle {path}{where} was trained under {trained.describe()}, but this evaluation "
                f"plays {rules.describe()}; name its rules (--rules) or allow it (--other-rules)"
            )


Spec = str | Agent  # an agent spec (``agents.make_agent``), or an agent object from Python


def _agent(spec: Spec, seed: int) -> Agent:
    return make_agent(spec, seed) if isinstance(spec, str) else spec


def spec_name(spec: Spec) -> str:
    """How a spec is named in reports and progress lines: the spec itself, or an object's name."""
    return spec if isinstance(spec, str) else spec.name


def _init(spec_a: Spec, spec_b: Spec, deals: list[dict[str, Any]], seed: int, rules: RuleConfig) -> None:
    _CTX.clear()
    _CTX.update(
        a=_agent(spec_a, seed),
        b=_agent(spec_b, seed),
        deals=tuple(parse_deal(d) for d in deals),
        seed=seed,
        rules=rules,
    )


def _torch_threads() -> int | None:
    """torch's thread count in this process; None when torch is not loaded."""
    torch = sys.modules.get("torch")
    return None if torch is None else torch.get_num_threads()


def _set_torch_threads(n: int) -> None:
    """Run torch on ``n`` threads in this process, if it has loaded torch.

    Only a process that has loaded torch (a policy bundle's agent) needs it; rule agents never
    import torch, and importing it just to limit it would cost a second per worker.
    """
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(n)


def _worker_init(parent: int, torch_threads: int, *init_args: Any) -> None:
    """Pool initializer: die with the parent, build the agents, limit torch's threads.

    An agent that fails to build is not raised here: the pool would start a new worker for
    ever. It is kept, and the worker's first task raises it in the parent, which ends the pool.
    """
    die_with_parent(parent)
    try:
        _init(*init_args)
    except Exception as e:  # any failure: the parent gets it as the agent's error
        _CTX.clear()
        _CTX["failed"] = f"a worker could not build its agents: {type(e).__name__}: {e}"
    _set_torch_threads(torch_threads)


class _TerminatePool(Exception):
    """Raised in the parent by SIGTERM while a pool runs, so that the pool is terminated."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise _TerminatePool(f"signal {signum}")


def _run_pool(
    workers: int, init_args: tuple[Any, ...], torch_threads: int, tasks: list[Task], bar: _Progress
) -> dict[Task, Any]:
    """Run ``tasks`` over a spawned pool; a SIGTERM to this process terminates the workers, then
    exits with the usual status (128 + 15)."""
    ctx = mp.get_context("spawn")
    results: dict[Task, Any] = {}
    watch_term = threading.current_thread() is threading.main_thread() and (
        signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    )  # a handler installed by the program is left alone
    if watch_term:
        signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        with ctx.Pool(workers, initializer=_worker_init, initargs=(os.getpid(), torch_threads, *init_args)) as pool:
            for key, value in pool.imap_unordered(_task, tasks):
                results[key] = value
                bar.update(_units(key))
    except _TerminatePool:  # leaving the with block has terminated the workers
        bar.close()
        raise SystemExit(128 + signal.SIGTERM) from None  # the shell's status for a SIGTERMed process
    finally:
        if watch_term:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
    return results


def _units(task: Task) -> int:
    """Hands a task plays at most, its share of the progress bar: a chunk plays each of its deals
    at both tables, a match chain each deal of its range once (at its one seating, until the
    matches end)."""
    hands: int = 2 * (task[2] - task[1]) if task[0] == "deals" else task[3] - task[2]
    return hands


def plan_tasks(lo: int, hi: int, matches: bool) -> list[Task]:
    """The cut of deals ``lo:hi`` into tasks: the two match chains first (the longest), then
    chunks of ``CHUNK`` deals; every executor plays these and puts them together in this order."""
    tasks: list[Task] = [("chain", 0, lo, hi), ("chain", 1, lo, hi)] if matches else []
    return tasks + [("deals", i, min(i + CHUNK, hi)) for i in range(lo, hi, CHUNK)]


def play_task(task: Task, a: Agent, b: Agent, deals: tuple[Deal, ...], seed: int, rules: RuleConfig) -> Any:
    """One task of ``plan_tasks``: a chunk's deal records or a chain's (matches, deals left over)."""
    if task[0] == "deals":
        _, lo, hi = task
        return [play_deal(i, deals[i], a, b, seed, rules) for i in range(lo, hi)]
    if task[0] == "chain":
        _, table, lo, hi = task
        return play_match_chain(deals[lo:hi], a, b, table, seed, rules)
    raise ValueError(f"unknown task {task!r}")


def _task(task: Task) -> tuple[Task, Any]:
    c = _CTX
    if "failed" in c:
        raise AgentSpecError(c["failed"])
    return task, play_task(task, c["a"], c["b"], c["deals"], c["seed"], c["rules"])


@dataclass
class RunResult:
    """Raw outcome of one run: deal records in deal order, matches in (table, start) order."""

    records: list[DealRecord]
    matches: list[MatchRecord] = field(default_factory=list)
    left_over: tuple[int, int] = (0, 0)  # deals of an unfinished match per table
    seconds: float = 0.0


def _run_result(tasks: list[Task], results: dict[Task, Any], matches: bool, lo: int, hi: int, t0: float) -> RunResult:
    """The ``RunResult`` of a run's finished ``tasks`` (``results`` by task), started at ``t0``
    (``time.perf_counter``)."""
    records = [r for t in tasks if t[0] == "deals" for r in results[t]]
    out = RunResult(records, seconds=time.perf_counter() - t0)
    if matches:
        m0, left0 = results[("chain", 0, lo, hi)]
        m1, left1 = results[("chain", 1, lo, hi)]
        out.matches = m0 + m1
        out.left_over = (left0, left1)
    return out


def run_duplicate(
    spec_a: Spec,
    spec_b: Spec,
    deal_set: DealSet,
    *,
    seed: int = 0,
    workers: int = 1,
    lo: int = 0,
    hi: int | None = None,
    matches: bool = True,
    progress: bool = False,
    rules: RuleConfig | None = None,
    other_rules: bool = False,
    torch_threads: int | None = None,
    ray: str | None = None,
) -> RunResult:
    """Play deals ``lo:hi`` of ``deal_set`` in duplicate (and the match chains on them).

    Args:
        spec_a: agent A: a spec (``agents.make_agent``: a name, a file, a bundle,
            ``module:factory``), or an ``Agent`` object (reset before every hand, as built ones; in
            worker processes or on Ray each gets a copy, so an object must pickle there).
        spec_b: agent B, as ``spec_a``.
        deal_set: the deals.
        seed: seeds every hand (``duplicate.hand_seed``).
        workers: worker processes; 1 plays in this process (with ``ray``: the CPUs of a private
            local Ray).
        lo: the first deal index played (the seeds use the index in the set).
        hi: one past the last deal index played (None: the set's end).
        matches: also play matches to 152 on the deal sequence, at both seatings.
        progress: a tqdm bar (or log lines) on stderr.
        rules: rule variants of every hand (default RULES.md).
        other_rules: let a policy bundle play under rules other than its manifest's.
        torch_threads: torch threads in every evaluating process (default
            ``DEFAULT_TORCH_THREADS``, 1); this process's own setting is restored afterwards.
        ray: play the tasks on Ray instead of local processes (``eval.ray_runner``): "local" a
            private Ray on this machine, "auto" or HOST:PORT a running cluster. Same result.

    Raises:
        AgentSpecError: an agent spec is unknown or its file missing or corrupt.
        AgentError: an agent played an illegal action.
        RulesMismatchError: a bundle trained under other rules (``check_rules``).
        RayUnavailableError: ``ray`` without Ray installed.
    """
    rules = rules or RuleConfig()
    hi, threads = _check_run(spec_a, spec_b, deal_set, lo, hi, workers, torch_threads, ray, rules, other_rules)
    tasks = plan_tasks(lo, hi, matches)
    init_args = (spec_a, spec_b, [d.to_dict() for d in deal_set.deals], seed, rules)
    label = f"{spec_name(spec_a)} vs {spec_name(spec_b)}" + (" (ray)" if ray else "")
    bar = _Progress(sum(_units(t) for t in tasks), progress, label)
    t0 = time.perf_counter()
    results = _run_tasks(tasks, init_args, threads, bar, workers, ray)
    bar.close()
    return _run_result(tasks, results, matches, lo, hi, t0)


def _check_run(
    spec_a: Spec,
    spec_b: Spec,
    deal_set: DealSet,
    lo: int,
    hi: int | None,
    workers: int,
    torch_threads: int | None,
    ray: str | None,
    rules: RuleConfig,
    other_rules: bool,
) -> tuple[int, int]:
    """``run_duplicate``'s checks, before any worker starts: the bundles' rules, the deal range,
    the workers and threads, Ray installed and given specs. Returns the range's end and the
    torch threads."""
    check_rules([s for s in (spec_a, spec_b) if isinstance(s, str)], rules, other_rules)
    hi = len(deal_set) if hi is None else hi
    if not 0 <= lo < hi <= len(deal_set):
        raise ValueError(f"deal range {lo}:{hi} is not inside the {len(deal_set)} deals of {deal_set.name!r}")
    threads = DEFAULT_TORCH_THREADS if torch_threads is None else torch_threads
    if threads < 1 or workers < 1:
        raise ValueError(f"workers and torch_threads must be >= 1, got {workers} and {threads}")
    if ray is not None:
        from eval.ray_runner import require_ray  # Ray is the optional scale extra

        require_ray()
        if not (isinstance(spec_a, str) and isinstance(spec_b, str)):
            raise ValueError("Ray plays agent specs only (names, files, bundles, module:factory), not agent objects")
    return hi, threads


def _run_tasks(
    tasks: list[Task], init_args: tuple[Any, ...], threads: int, bar: _Progress, workers: int, ray: str | None
) -> dict[Task, Any]:
    """Every task's result: on Ray, in this process (one worker) or in a pool of processes."""
    if ray is not None:
        from eval.ray_runner import run_tasks  # Ray is the optional scale extra

        spec_a, spec_b, deals, seed, rules = init_args  # specs, as _check_run made sure
        return run_tasks(tasks, spec_a, spec_b, deals, seed, rules, threads, bar, address=ray, num_cpus=workers)
    if workers == 1:
        return _run_here(init_args, threads, tasks, bar)
    return _run_pool(min(workers, len(tasks)), init_args, threads, tasks, bar)  # no idle processes


def _run_here(init_args: tuple[Any, ...], threads: int, tasks: list[Task], bar: _Progress) -> dict[Task, Any]:
    """Run ``tasks`` in this process; its torch thread count is restored afterwards."""
    results: dict[Task, Any] = {}
    previous = _torch_threads()  # before the agents: loading a bundle may set its own count
    _init(*init_args)
    _set_torch_threads(threads)
    try:
        for t in tasks:
            key, value = _task(t)
            results[key] = value
            bar.update(_units(t))
    finally:
        if previous is not None:
            _set_torch_threads(previous)
    return results


class _Progress:
    """tqdm on stderr when available, else a log line every 10%; it counts hands played (``_units``)."""

    def __init__(self, total: int, enabled: bool, label: str):
        self.total, self.done, self.enabled, self.label = total, 0, enabled, label
        self.next_log = 0.1
        self.bar = None
        if enabled:
            try:
                # optional dependency: tqdm (the train and eval extras)
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc=label, unit="hand", file=sys.stderr, leave=False)
            except ImportError:
                self.bar = None

    def update(self, n: int) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.enabled and self.done >= self.next_log * self.total:
            print(f"[eval] {self.label}: {self.done}/{self.total} hands", file=sys.stderr, flush=True)
            self.next_log += 0.1

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
