"""End-to-end PPO throughput (collection and updates), learner decisions per second (issues 5, 16).

Runs the default config's PPO without the warm start and without evaluations for a fixed
number of learner decisions, once per self-play backend (``core``: the batched core, the
default; ``python``: one driver table a game) and torch thread count, in one process so the
ratios compare; the rate per CPU second of the process stands beside the wall-clock one (the
machine is shared). ``--profile N`` prints each run's N most expensive functions (cProfile, by own
time) and the split between collection and PPO updates; every run prints where its wall-clock
time went (the games, the PPO updates, the rest) without a profiler's overhead.

Run: ``taskset -c 0 .venv/bin/python benchmarks/train_speed.py --backend python core --threads 1``;
``--precision fp32 bf16 fp32 bf16`` alternates the PPO update's number format (``ppo.precision``);
``--variant fp32:1 bf16:2 fp32:1 bf16:2`` alternates precision and learner processes
(``ppo.processes``; run it without ``taskset``: two processes want both cores).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import tempfile
import time

import torch

from train.config import load_config
from train.trainer import Trainer


def measure(
    steps: int, threads: int, overrides: list[str], backend: str = "core", profile: int = 0
) -> tuple[float, float]:
    """(decisions per wall-clock second, decisions per CPU second of this process) of one run."""
    run_dir = tempfile.mkdtemp(prefix="baloot_speed_")
    try:
        cfg = load_config(
            "configs/default.yaml",
            [
                *overrides,
                f"run_dir={run_dir}",
                f"torch_threads={threads}",
                "pretrain.positions=0",
                "eval.every=0",
                f"ppo.total_steps={steps}",
                f"checkpoint_every={10 * steps}",
            ],
        )
        trainer = Trainer(cfg, quiet=True, backend=backend)
        spent = {"games": _timed(trainer.venv, "step_wait"), "update": _timed(trainer.model, "train")}
        prof = cProfile.Profile() if profile else None
        try:
            start, cpu = time.perf_counter(), time.process_time()
            if prof is not None:
                prof.enable()
            trainer.train()  # PPO to ppo.total_steps, with the helpers of ppo.processes > 1
            wall = time.perf_counter() - start
            rate = steps / wall, steps / (time.process_time() - cpu)
        finally:
            trainer.close()  # releases the run-dir lock
        games, update = spent["games"][0], spent["update"][0]
        print(
            f"  {backend}: {wall:.1f} s: games (VecEnv.step_wait) {games:.1f} s, PPO updates {update:.1f} s, "
            f"the rest (the rollout's forward passes, buffer, SB3) {wall - games - update:.1f} s"
        )
        if prof is not None:
            prof.disable()
            _report(prof, profile)
        return rate
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
        for leftover in (f"{run_dir}.lock", f"{run_dir}.lock.holder"):
            if os.path.exists(leftover):
                os.remove(leftover)


def _timed(obj: object, name: str) -> list[float]:
    """Wrap ``obj.name`` to add its wall-clock time to the returned one-element list."""
    inner = getattr(obj, name)
    total = [0.0]

    def wrapper(*args: object, **kwargs: object) -> object:
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            total[0] += time.perf_counter() - t

    setattr(obj, name, wrapper)
    return total


def _report(prof: cProfile.Profile, top: int) -> None:
    """Collection (the games and the rollout's forward passes) against the PPO updates, then the
    ``top`` functions by own time."""
    stats = pstats.Stats(prof)
    cum = {f"{func[0].rsplit('/', 1)[-1]}:{func[2]}": v[3] for func, v in stats.stats.items()}  # type: ignore[attr-defined]
    total = sum(v[2] for v in stats.stats.values())  # type: ignore[attr-defined]
    parts = {
        "collect_rollouts": "ppo_mask.py:collect_rollouts",
        "env step_wait": "vector.py:step_wait",
        "PPO update (train)": "ppo_mask.py:train",
    }
    for name, key in parts.items():
        print(f"  {name}: {cum.get(key, 0.0):.2f} s of {total:.2f} s")
    stats.sort_stats("tottime").print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=65536)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--backend",
        nargs="+",
        default=["core"],
        choices=["core", "python"],
        help="self-play backends to measure, in this order",
    )
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print the N most expensive functions")
    parser.add_argument(
        "--precision",
        nargs="+",
        default=["fp32"],
        choices=["fp32", "bf16"],
        help="ppo.precision of each run, in this order (repeat them to alternate: fp32 bf16 fp32 bf16)",
    )
    parser.add_argument(
        "--variant",
        nargs="+",
        default=None,
        metavar="PRECISION:PROCESSES",
        help="runs of ppo.precision and ppo.processes, in this order (e.g. fp32:1 bf16:2 fp32:1 bf16:2); "
        "instead of --precision",
    )
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args()
    variants = [(p, 1) for p in args.precision]
    if args.variant:
        try:
            variants = [(v.split(":")[0], int(v.split(":")[1])) for v in args.variant]
        except (IndexError, ValueError):
            parser.error(f"--variant takes PRECISION:PROCESSES, e.g. bf16:2; got {args.variant}")
    for backend in args.backend:
        for t in args.threads:
            for precision, processes in variants:
                overrides = [*args.overrides, f"ppo.precision={precision}", f"ppo.processes={processes}"]
                wall, cpu = measure(args.steps, t, overrides, backend, args.profile)
                print(
                    f"backend {backend}, torch threads {t}, {precision}, {processes} process(es): {wall:,.0f} learner "
                    f"decisions/s ({cpu:,.0f} per CPU second of the first; collection + PPO updates), torch {torch.__version__}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
