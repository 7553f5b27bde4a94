"""Decision time of the ``search`` player on one core (issue 4).

Plays the first ``--hands`` deals of a deal set with ``search`` on team 0 and ``heuristic`` on
team 1, and times every card decision of the search player (R5), for each world count asked.
Forced cards (one legal card) are answered at once; the figures are given with and without them.

Run: ``taskset -c 0 .venv/bin/python benchmarks/search_speed.py --worlds 4 16 64 --hands 24``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

from agents.base import PlayerView
from agents.heuristic import HeuristicAgent
from agents.search import SearchAgent, SearchConfig
from baloot_env.hand import DONE, PLAY, HandState
from eval.deals import load_named


def _quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def measure(worlds: int, hands: int, deal_set: str) -> dict:
    """Times (seconds) of every search card decision over ``hands`` deals."""
    deals = load_named(deal_set).deals[:hands]
    search, heuristic = SearchAgent(0, SearchConfig(worlds=worlds)), HeuristicAgent(0)
    every, choices = [], []
    for i, deal in enumerate(deals):
        search.reset(i)
        state = HandState(deal)
        while state.phase != DONE:
            seat = state.to_act
            view = PlayerView.from_state(state, seat)
            if seat % 2 == 0 and state.phase == PLAY:
                t = time.perf_counter()
                action = search.act(view)
                dt = time.perf_counter() - t
                every.append(dt)
                if view.legal_mask.bit_count() > 1:
                    choices.append(dt)
            else:
                action = heuristic.act(view)
            state.apply(action)
    return {"worlds": worlds, "every": every, "choices": choices}


def _row(name: str, xs: list[float]) -> str:
    if not xs:
        return f"| {name} | 0 | - | - | - | - | - |"
    return (
        f"| {name} | {len(xs)} | {1000 * statistics.median(xs):.0f} | {1000 * statistics.fmean(xs):.0f} | "
        f"{1000 * _quantile(xs, 0.9):.0f} | {1000 * _quantile(xs, 0.99):.0f} | {1000 * max(xs):.0f} |"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--worlds", type=int, nargs="+", default=[4, 16, 64])
    p.add_argument("--hands", type=int, default=24, help="deals of the set to play (default 24)")
    p.add_argument("--deal-set", default="standard960")
    args = p.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}; {args.hands} deals of {args.deal_set}")
    print("| worlds / decisions | n | median ms | mean ms | p90 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|---|")
    for w in args.worlds:
        r = measure(w, args.hands, args.deal_set)
        print(_row(f"{w} / all card decisions", r["every"]))
        print(_row(f"{w} / with a choice", r["choices"]))


if __name__ == "__main__":
    main()
