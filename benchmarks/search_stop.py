"""A search that stops once its choice is settled (``SearchConfig.stop_z``): time and worlds.

On the card decisions with a choice of seeded ``heuristic`` hands, each search values every
decision with the same world stream (``random.Random(i)`` for decision i), in one process, one
torch thread. For each: mean and median ms a decision (``card_values`` alone, as the search's
time), the mean worlds played, and the share of decisions whose card is the first search's (the
reference; with the same worlds a stopped search sees the reference's first worlds). The
reference runs again last, so that the machine's drift shows.

Run: ``python benchmarks/search_stop.py [--decisions 400] [--specs SPEC ...]``
(a spec: an agent spec file or name of a ``search`` or ``netsearch``; default: ``search`` at 384
worlds with and without ``stop_z``, and the 128-world guided teacher with and without it).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from agents import HeuristicAgent, PlayerView
from agents.registry import make_agent
from baloot_env import PLAY, HandState, random_deal
from baloot_env.cards import cards_of
from baloot_env.rules import RuleConfig

TEACHER = {"leaves": "policy", "worlds": 128, "precision": "auto", "calls": "heuristic"}
DEFAULTS = {
    "search": {"agent": "search", "params": {}},
    "search stop_z 2, 64 at a time": {"agent": "search", "params": {"stop_z": 2.0, "stop_worlds": 64}},
    "search stop_z 3, 64 at a time": {"agent": "search", "params": {"stop_z": 3.0, "stop_worlds": 64}},
    "search stop_z 2, 32 at a time": {"agent": "search", "params": {"stop_z": 2.0, "stop_worlds": 32}},
    "search 768 stop_z 2, 64 at a time": {
        "agent": "search",
        "params": {"worlds": 768, "stop_z": 2.0, "stop_worlds": 64},
    },
    "teacher_w128": {"agent": "netsearch", "params": TEACHER},
    "teacher_w128 stop_z 2, 32 at a time": {
        "agent": "netsearch",
        "params": {**TEACHER, "stop_z": 2.0, "stop_worlds": 32},
    },
}


def decisions(n: int, seed: int) -> list[PlayerView]:
    """The first ``n`` card decisions with two legal cards or more of seeded heuristic hands."""
    rng = random.Random(seed)
    agents = [HeuristicAgent(s) for s in range(4)]
    out: list[PlayerView] = []
    while len(out) < n:
        state = HandState(random_deal(rng), RuleConfig())
        while state.result is None:
            view = PlayerView.from_state(state, state.to_act)
            if state.phase == PLAY and len(cards_of(view.legal_mask)) > 1:
                out.append(view)
            state.apply(agents[state.to_act].act(view))
    return out[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=400)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--specs", nargs="*", help="agent spec files (default: the module docstring's)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    views = decisions(args.decisions, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        specs = {s: s for s in args.specs} if args.specs else {}
        for name, spec in ({} if args.specs else DEFAULTS).items():
            path = Path(tmp) / f"{len(specs)}.json"
            path.write_text(json.dumps(spec))
            specs[name] = str(path)
        names = [*specs, next(iter(specs))]
        reference: list[int] = []
        print(f"{args.decisions} card decisions with a choice (heuristic hands, seed {args.seed}), one thread")
        for k, name in enumerate(names):
            agent = make_agent(specs[name], 0)
            search = getattr(agent, "search", agent)  # netsearch's search underneath
            search.card_values(views[0], random.Random(0))  # compile and warm up
            times, worlds, cards = [], [], []
            for i, view in enumerate(views):
                t = time.perf_counter()
                found = search.card_values(view, random.Random(i))
                times.append(time.perf_counter() - t)
                worlds.append(found.worlds)
                cards.append(agent.pick(view, found.values()))
            reference = reference or cards
            same = np.mean(np.array(cards) == np.array(reference))
            label = name + (" (again)" if k == len(names) - 1 else "")
            print(
                f"  {label:<40} ms a decision {1000 * np.mean(times):6.2f} (median {1000 * np.median(times):6.2f})"
                f"  worlds {np.mean(worlds):6.1f}  same card as the first {same:.3f}"
            )


if __name__ == "__main__":
    main()
