"""The warm start's two parts: labelling with one worker and two, fitting in fp32 and bf16 (issue 24).

Labels ``--positions`` positions of the heuristic's self-play on the batched core
(``train.pretrain.collect_parallel``) with ``pretrain.workers`` 1 and 2, then runs the whole
warm start (``train.pretrain.pretrain``, one epoch) in each ``pretrain.precision`` and reports
its fit's seconds, alternating in one process so that the ratios compare.

Run: ``.venv/bin/python benchmarks/pretrain_speed.py [--positions 400000] [--repeats 2]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import torch

from agents.neural.network import BalootNet
from baloot_env.rules import RuleConfig
from train.config import load_config
from train.pretrain import collect_parallel, pretrain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=400_000)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(1)
    cfg = load_config("configs/default.yaml", [f"pretrain.positions={args.positions}", "pretrain.epochs=1"])
    base, privileged = cfg.pretrain, cfg.net.privileged_critic
    for _ in range(args.repeats):
        for workers in (1, 2):
            t = time.perf_counter()
            collect_parallel(dataclasses.replace(base, workers=workers), 0, RuleConfig(), 44.0, privileged, True)
            dt = time.perf_counter() - t
            print(f"label, {workers} worker(s): {dt:.1f} s, {args.positions / dt:,.0f} positions/s", flush=True)
    for _ in range(args.repeats):
        for precision in ("fp32", "bf16"):
            torch.manual_seed(0)
            net = BalootNet(cfg.net.spec())
            stats = pretrain(net, dataclasses.replace(base, precision=precision), 0, RuleConfig(), 44.0, quiet=True)
            fit = stats["seconds"] - stats["collect_seconds"]
            print(f"fit one epoch, {precision}: {fit:.1f} s, {args.positions / fit:,.0f} positions/s", flush=True)


if __name__ == "__main__":
    main()
