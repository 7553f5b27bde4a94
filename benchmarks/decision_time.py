"""Seconds per decision of several agents on the same decisions, by phase.

The decisions are ``eval.league.decision_views``: the first deals of a deal set played by
``heuristic``, every seat's turn with more than one legal action (bidding R3, doubling R4, card
play R5 as they come). Every agent answers every view, in a rotating order so that the load of a
shared machine falls on all of them alike, after one untimed warm-up call (JIT compilation).
The table gives the median and mean over all decisions and the median per phase, so that
agents can be compared at the same median time per decision.

Run: ``taskset -c 0 .venv/bin/python benchmarks/decision_time.py --agents search
runs/ns/A.json --positions 400``.
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import statistics
import time
from collections import defaultdict

import torch

from agents.registry import make_agent
from eval.deals import load_named


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--agents", nargs="+", required=True, help="agent names or spec files")
    p.add_argument("--positions", type=int, default=400, help="decisions to time")
    p.add_argument("--deal-set", default="dev960")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    from eval.league import decision_views

    torch.set_num_threads(1)
    views = decision_views(load_named(a.deal_set), a.positions, a.seed)
    agents = [make_agent(spec, a.seed) for spec in a.agents]
    for agent in agents:
        agent.act(dataclasses.replace(views[0], _cache={}))
    times: dict[int, dict[str, list[float]]] = {i: defaultdict(list) for i in range(len(agents))}
    for k, view in enumerate(views):
        for j in range(len(agents)):
            i = (j + k) % len(agents)
            fresh = dataclasses.replace(view, _cache={})
            t0 = time.perf_counter()
            agents[i].act(fresh)
            times[i][view.phase].append(time.perf_counter() - t0)
    print(
        f"{len(views)} decisions of {a.deal_set} (seed {a.seed}); {platform.processor() or platform.machine()}, "
        f"{time.strftime('%Y-%m-%d')}, one torch thread"
    )
    print(f"{'agent':<40} {'median ms':>10} {'mean ms':>9} {'bidding':>9} {'doubling':>9} {'play':>9}")
    for i, spec in enumerate(a.agents):
        every = [t for ts in times[i].values() for t in ts]
        per = {
            ph: (f"{1000 * statistics.median(times[i][ph]):9.2f}" if times[i][ph] else f"{'-':>9}")
            for ph in ("bidding", "doubling", "play")
        }
        print(
            f"{spec:<40} {1000 * statistics.median(every):10.2f} {1000 * statistics.fmean(every):9.2f} "
            f"{per['bidding']} {per['doubling']} {per['play']}"
        )
    counts = {ph: len(ts) for ph, ts in times[0].items()}
    print(f"decisions per phase: {counts}")


if __name__ == "__main__":
    main()
