"""Labelling speed of expert iteration: positions per second of the learner's games labelled by
a lookahead teacher (``train.expert.label_parallel``), with 1 and 2 worker processes.

The learner is a policy bundle (default the shipped champion) playing every seat, its moves
sampled (``expert.learner_share`` 1, 3% random moves as the default ``expert`` section); the
teacher is an agent spec (default ``search`` at its 384 worlds; a spec file sets other worlds); a
guided teacher (a netsearch whose playouts a network plays, ``agents.teacher.guided``) has the
learner play its playouts, as ``expert.guide`` does in ``configs/expert_guided.yaml``.
Each run labels ``--positions`` positions in the same 8 chunks from the same seed after a short
warm-up (the numba kernels' compile), so the 1- and 2-worker figures are the same positions; the
time includes starting the worker processes.

Run: ``python benchmarks/expert_speed.py [--positions 8000] [--teachers search FILE ...]
[--workers 1 2] [--policy policies/champion]``
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from agents.neural.bundle import load_net
from agents.teacher import guided
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig
from train.labels import LabelJob, label, label_parallel


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=8000)
    ap.add_argument("--teachers", nargs="+", default=["search"])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--policy", default="policies/champion")
    args = ap.parse_args()
    torch.set_num_threads(1)
    net, _ = load_net(args.policy)
    player = (net.spec.to_dict(), net.state_dict())
    reward = Reward("diff", 44.0)
    print(f"load average before: {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores", flush=True)
    for teacher in args.teachers:
        warm_up = LabelJob(
            200, 1, RuleConfig(), reward, teacher, player, net.spec.privileged_critic, guide=guided(teacher)
        )
        label(warm_up)  # compile, caches
        for workers in args.workers:
            t0 = time.perf_counter()
            job = LabelJob(
                args.positions,
                0,
                RuleConfig(),
                reward,
                teacher,
                player,
                net.spec.privileged_critic,
                1.0,
                0.03,
                guided(teacher),
            )
            labels = label_parallel(job, workers, chunks=8, quiet=True)
            dt = time.perf_counter() - t0
            f = labels.figures()
            print(
                f"{teacher}, {workers} worker(s): {len(labels) / dt:,.0f} positions/s "
                f"({len(labels) / dt / workers:,.0f} per worker), {f['searched_share']:.0%} searched choices, "
                f"{f['tied_share']:.0%} of them tied",
                flush=True,
            )
    print(f"load average after: {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
