"""Decision time of the ``search`` player on one core, per backend and world count (issues 4, 16).

Plays the first ``--hands`` deals of a deal set with ``search`` (16 worlds) on team 0 and
``heuristic`` on team 1, and at every card decision of team 0 (R5) times each configuration
``BACKEND:WORLDS`` of ``--configs`` on that same view, in a rotating order so that the load of a
shared machine falls on all of them alike. The two backends choose the same cards with the same
worlds (``tests/agents/test_search_core.py``), so the positions do not depend on which one drives.
Forced cards (one legal card) are answered at once; the figures are given with and without them.

With ``--reference`` (default ``python:16``), the line after the table gives, for the core
backend, the world count whose median decision time (with a choice) equals the reference's:
interpolated between the measured counts around it (time is close to linear in the worlds).

Run: ``taskset -c 0 .venv/bin/python benchmarks/search_speed.py --configs python:16 core:16 core:64
core:128 core:256 --hands 24``.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

from agents.rule_based.heuristic import HeuristicAgent
from agents.search_player.player import BACKENDS, SearchAgent, SearchConfig
from baloot_env.hand import DONE, PLAY, HandState
from baloot_env.view import PlayerView
from eval.deals import load_named


def _quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def _parse(config: str) -> tuple[str, int]:
    backend, _, worlds = config.partition(":")
    if backend not in BACKENDS or not worlds.isdigit() or int(worlds) < 1:
        raise argparse.ArgumentTypeError(f"a config is BACKEND:WORLDS with BACKEND in {BACKENDS}, got {config!r}")
    return backend, int(worlds)


def positions(hands: int, deal_set: str) -> list[tuple[int, PlayerView]]:
    """(seed, view) of every card decision of team 0 when ``search`` plays the first ``hands`` deals."""
    deals = load_named(deal_set).deals[:hands]
    driver, heuristic = SearchAgent(0, SearchConfig(worlds=16)), HeuristicAgent(0)
    out = []
    for i, deal in enumerate(deals):
        state = HandState(deal)
        while state.phase != DONE:
            seat = state.to_act
            view = PlayerView.from_state(state, seat)
            if seat % 2 == 0 and state.phase == PLAY:
                seed = 1000 * i + len(out)
                driver.reset(seed)
                action = driver.act(view)
                out.append((seed, view))
            else:
                action = heuristic.act(view)
            state.apply(action)
    return out


def measure(configs: list[tuple[str, int]], views: list[tuple[int, PlayerView]]) -> dict[tuple[str, int], dict]:
    """Seconds per decision of each configuration on every view (every card, and with a choice)."""
    agents = {c: SearchAgent(0, SearchConfig(worlds=c[1], backend=c[0])) for c in configs}
    for agent in agents.values():  # compile or load the kernels before any timing
        agent.act(next(v for _, v in views if v.legal_mask.bit_count() > 1))
    times: dict[tuple[str, int], dict] = {c: {"every": [], "choices": []} for c in configs}
    for k, (seed, view) in enumerate(views):
        choice = view.legal_mask.bit_count() > 1
        for j in range(len(configs)):
            c = configs[(j + k) % len(configs)]
            agent = agents[c]
            agent.reset(seed)
            t = time.perf_counter()
            agent.act(view)
            dt = time.perf_counter() - t
            times[c]["every"].append(dt)
            if choice:
                times[c]["choices"].append(dt)
    return times


def affordable_worlds(times: dict[tuple[str, int], dict], target: float, backend: str = "core") -> float | None:
    """The world count of ``backend`` whose median time with a choice is ``target`` (interpolated)."""
    points = sorted((w, statistics.median(t["choices"])) for (b, w), t in times.items() if b == backend)
    for (w0, t0), (w1, t1) in zip(points, points[1:], strict=False):
        if t0 <= target <= t1:
            return w0 + (w1 - w0) * (target - t0) / (t1 - t0) if t1 > t0 else w0
    return None


def _row(name: str, xs: list[float]) -> str:
    if not xs:
        return f"| {name} | 0 | - | - | - | - | - |"
    return (
        f"| {name} | {len(xs)} | {1000 * statistics.median(xs):.1f} | {1000 * statistics.fmean(xs):.1f} | "
        f"{1000 * _quantile(xs, 0.9):.1f} | {1000 * _quantile(xs, 0.99):.1f} | {1000 * max(xs):.1f} |"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--configs",
        type=_parse,
        nargs="+",
        default=[("python", 16), ("core", 16), ("core", 64)],
        help="BACKEND:WORLDS to time (default python:16 core:16 core:64)",
    )
    p.add_argument("--worlds", type=int, nargs="+", help="shorthand: these world counts with every --backend")
    p.add_argument("--backend", choices=BACKENDS, nargs="+", default=["core"], help="the backends of --worlds")
    p.add_argument("--reference", type=_parse, default=("python", 16), help="the time to match (default python:16)")
    p.add_argument("--hands", type=int, default=24, help="deals of the set to play (default 24)")
    p.add_argument("--deal-set", default="standard960")
    args = p.parse_args(argv)
    configs = [(b, w) for b in args.backend for w in args.worlds] if args.worlds else list(args.configs)
    if args.reference not in configs:
        configs.append(args.reference)
    views = positions(args.hands, args.deal_set)
    print(
        f"python {platform.python_version()} on {platform.machine()}; {args.hands} deals of {args.deal_set}, "
        f"{len(views)} card decisions of search (16 worlds) on team 0 against heuristic"
    )
    times = measure(configs, views)
    print("| backend:worlds / decisions | n | median ms | mean ms | p90 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|---|---|")
    for c in configs:
        name = f"{c[0]}:{c[1]}"
        print(_row(f"{name} / all card decisions", times[c]["every"]))
        print(_row(f"{name} / with a choice", times[c]["choices"]))
    target = statistics.median(times[args.reference]["choices"])
    w = affordable_worlds(times, target)
    ref = f"{args.reference[0]}:{args.reference[1]}"
    if w is None:
        print(f"core worlds at the median of {ref} ({1000 * target:.1f} ms with a choice): outside the counts measured")
    else:
        print(f"core worlds at the median of {ref} ({1000 * target:.1f} ms with a choice): about {w:.0f}")


if __name__ == "__main__":
    main()
