"""Evaluating a policy bundle: torch's default thread count against one thread per process.

Times ``eval.runner.run_duplicate(POLICY vs heuristic)`` on the first N deals of a development
deal set, with torch's default thread count (one per core) and with one thread, in one run
(same deals, seed and workers; the two settings alternate when repeated, so that load from
other processes falls on both alike), checks that the results are identical, and prints both
times and their ratio.

Run: ``.venv/bin/python benchmarks/eval_threads.py [--deals 64] [--workers 1] [--repeats 1]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import torch

from eval.deals import require_development
from eval.runner import run_duplicate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="policies/champion", help="the policy bundle (default policies/champion)")
    parser.add_argument("--deals", type=int, default=64, help="the first N deals of the set (default 64)")
    parser.add_argument("--deal-set", default="dev960", help="a development deal set (default dev960)")
    parser.add_argument("--workers", type=int, default=1, help="evaluation processes (default 1: this one)")
    parser.add_argument("--repeats", type=int, default=1, help="timed runs per setting; the fastest counts")
    args = parser.parse_args()
    default_threads = torch.get_num_threads()  # before anything sets it: torch's choice for this machine
    ds = require_development(args.deal_set, "a benchmark").head(args.deals)
    settings = {f"default ({default_threads} threads)": default_threads, "one thread": 1}

    def play(threads: int):
        return run_duplicate(args.policy, "heuristic", ds, workers=args.workers, matches=False, torch_threads=threads)

    play(1)  # warm-up: the bundle verified once, caches filled, outside the timing
    best = {name: float("inf") for name in settings}
    runs = {}
    for _ in range(args.repeats):
        for name, threads in settings.items():
            t0 = time.perf_counter()
            runs[name] = play(threads)
            best[name] = min(best[name], time.perf_counter() - t0)
    records = [r.records for r in runs.values()]
    identical = all(r == records[0] for r in records)
    print(
        f"{args.policy} vs heuristic, {len(ds)} deals of {args.deal_set} (both tables), workers {args.workers}, "
        f"torch {torch.__version__}, {os.cpu_count()} cores, {platform.machine()}"
    )
    for name in settings:
        print(f"  torch {name:<22}: {best[name]:7.2f} s ({2 * len(ds) / best[name]:6.1f} tables/s)")
    slow, fast = best[next(iter(settings))], best["one thread"]
    print(f"  default / one thread   : {slow / fast:.2f}x; results identical: {identical}")
    if not identical:
        raise SystemExit("the results differ between thread counts")


if __name__ == "__main__":
    main()
