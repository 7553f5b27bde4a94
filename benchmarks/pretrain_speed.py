"""The warm start's two parts: labelling with one worker and two, fitting in fp32 and bf16 in one process and two (issue 24).

Labels ``--positions`` positions of the heuristic's self-play on the batched core
(``train.pretrain.collect_parallel``) with ``pretrain.workers`` 1 and 2, then runs the whole
warm start (``train.pretrain.pretrain``, one epoch) for each ``pretrain.precision`` and number
of workers (which is also the fit's number of processes, ``train.supervised``'s data-parallel
fit) and reports its fit's seconds, alternating in one process so that the ratios compare.

Run: ``.venv/bin/python benchmarks/pretrain_speed.py [--positions 400000] [--repeats 2] [--fit fp32:1 bf16:1 bf16:2]
[--skip-labelling | --skip-fit]``.
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
    parser.add_argument(
        "--fit",
        nargs="+",
        default=["fp32:1", "bf16:1", "bf16:2"],
        metavar="PRECISION:PROCESSES",
        help="the fits to time, alternating (pretrain.precision and pretrain.workers)",
    )
    parser.add_argument("--skip-labelling", action="store_true", help="time the fits only")
    parser.add_argument("--skip-fit", action="store_true", help="time the labelling only")
    args = parser.parse_args()
    try:
        fits = [(v.split(":")[0], int(v.split(":")[1])) for v in args.fit]
    except (IndexError, ValueError):
        parser.error(f"--fit takes PRECISION:PROCESSES, e.g. bf16:2; got {args.fit}")
    torch.set_num_threads(1)
    cfg = load_config("configs/default.yaml", [f"pretrain.positions={args.positions}", "pretrain.epochs=1"])
    base, privileged = cfg.pretrain, cfg.net.privileged_critic
    for _ in range(0 if args.skip_labelling else args.repeats):
        for workers in (1, 2):
            t = time.perf_counter()
            collect_parallel(dataclasses.replace(base, workers=workers), 0, RuleConfig(), 44.0, privileged, True)
            dt = time.perf_counter() - t
            print(f"label, {workers} worker(s): {dt:.1f} s, {args.positions / dt:,.0f} positions/s", flush=True)
    for _ in range(0 if args.skip_fit else args.repeats):
        for precision, processes in fits:
            torch.manual_seed(0)
            net = BalootNet(cfg.net.spec())
            how = dataclasses.replace(base, precision=precision, workers=processes)
            stats = pretrain(net, how, 0, RuleConfig(), 44.0, quiet=True)
            fit = stats["seconds"] - stats["collect_seconds"]
            print(
                f"fit one epoch, {precision}, {stats['fit_processes']} process(es): {fit:.1f} s, "
                f"{args.positions / fit:,.0f} positions/s",
                flush=True,
            )


if __name__ == "__main__":
    main()
