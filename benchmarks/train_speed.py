"""End-to-end PPO throughput (collection and updates), learner decisions per second (issue 5).

Runs the default config's PPO without the warm start and without evaluations for a fixed
number of learner decisions, once per torch thread count, in one process so the ratios compare.

Run: ``.venv/bin/python benchmarks/train_speed.py [--steps 65536] [--threads 1 2]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

import torch

from train.config import load_config
from train.trainer import Trainer


def measure(steps: int, threads: int, overrides: list[str]) -> float:
    run_dir = tempfile.mkdtemp(prefix="baloot_speed_")
    try:
        cfg = load_config("configs/default.yaml", [*overrides, f"run_dir={run_dir}", f"torch_threads={threads}",
                                                   "pretrain.positions=0", "eval.every=0",
                                                   f"ppo.total_steps={steps}", f"checkpoint_every={10 * steps}"])  # fmt: skip
        trainer = Trainer(cfg, quiet=True)
        try:
            start = time.perf_counter()
            trainer.model.learn(total_timesteps=steps)
            return steps / (time.perf_counter() - start)
        finally:
            trainer.close()  # releases the run-dir lock
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
        for leftover in (f"{run_dir}.lock", f"{run_dir}.lock.holder"):
            if os.path.exists(leftover):
                os.remove(leftover)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=65536)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args()
    for t in args.threads:
        rate = measure(args.steps, t, args.overrides)
        print(f"torch threads {t}: {rate:,.0f} learner decisions/s (collection + PPO updates), torch {torch.__version__}")


if __name__ == "__main__":
    main()
