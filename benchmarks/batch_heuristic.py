"""The ``heuristic`` player as kernels (``agents.rule_based.batch_heuristic``): exactness at
scale and speed against the Python ``HeuristicAgent``, in one run, one process.

(a) Exactness: at least ``--decisions`` decisions compared (``run_heuristic_differential``:
    the kernel's action against ``HeuristicAgent().act(view)`` at every decision, the batched
    core and the engine on the same deals), over every ``RuleConfig`` switch flipped from its
    default and random combinations of all of them, hand and match episodes, some games making
    random legal moves to reach positions the heuristic would not, the others whole games
    played by the kernel on one side and the agent on the other (hand and match results
    compared). One line per configuration and a summary; exits 1 on a mismatch.
(b) Speed, heuristic self-play in match episodes (default rules), on one core:
    - Python: ``HeuristicAgent.act(view)`` alone, timed in a tight loop over the views of the
      positions the engine's self-play reaches; and the whole loop (``PlayerView.from_state``,
      ``act``, ``HandState.apply``, match books);
    - kernel: ``heuristic_actions_all`` alone on ``--games`` games in lockstep (the core steps
      between calls, untimed); and ``heuristic_steps`` (decide and apply in the kernel).
    Rates are decisions per wall-clock second and per CPU second (the machine may be shared).

Run: ``taskset -c 1 .venv/bin/python benchmarks/batch_heuristic.py [--decisions 200000] [--seconds 5]``.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import zlib
from datetime import UTC, datetime

import numba
import numpy as np

from agents.rule_based import batch_heuristic as bh
from agents.rule_based.heuristic import HeuristicAgent
from baloot_env.batch import BatchGame
from baloot_env.batch.differential import Mismatch
from baloot_env.batch.variants import variant_id, variants
from baloot_env.deal import random_deal
from baloot_env.match import MatchState, match_context
from baloot_env.rules import RuleConfig
from baloot_env.view import PlayerView

CHUNK = 4096  # views collected before their act calls are timed together


def exactness(decisions: int, combos: int, seed: int) -> tuple[bh.HeuristicDiffStats, int]:
    configs = list(variants(seed, combos))
    per_run = -(-decisions // (2 * len(configs)))
    total = bh.HeuristicDiffStats()
    mismatches = 0
    for rules in configs:
        for episode in ("hand", "match"):
            games = 32 if episode == "hand" else 4
            run_seed = zlib.crc32(f"{seed} {variant_id(rules)} {episode}".encode())
            try:
                s = bh.run_heuristic_differential(rules, episode, games, per_run, run_seed)
            except Mismatch as e:
                mismatches += 1
                print(f"MISMATCH {episode:5} {variant_id(rules)}\n{e}")
                continue
            total.add(s)
            print(
                f"ok {episode:5} {s.decisions:7,d} decisions ({s.choices:,d} with a choice: {s.bids:,d} bids, "
                f"{s.doubles:,d} doubling calls, {s.cards:,d} cards), {s.hands:,d} hands, {s.matches:,d} matches  "
                f"{variant_id(rules)}"
            )
    return total, mismatches


def python_speed(seconds: float, seed: int) -> dict[str, float]:
    """Engine self-play, four ``HeuristicAgent`` seats, match episodes: act alone and the whole loop."""
    agent = HeuristicAgent(seed)
    rng = np.random.default_rng(seed)
    rules = RuleConfig()
    match = MatchState(rules)
    hand = match.start_hand(random_deal(rng))
    views: list[PlayerView] = []
    loop_wall = loop_cpu = act_wall = act_cpu = 0.0
    decisions = 0
    while loop_wall < seconds:
        w, c = time.perf_counter(), time.process_time()
        for _ in range(CHUNK):
            view = PlayerView.from_state(hand, hand.to_act, match_context(match))
            hand.apply(agent.act(view))
            views.append(view)
            if hand.done:
                match.end_hand()
                if match.result is not None:
                    match = MatchState(rules)
                hand = match.start_hand(random_deal(rng))
        loop_wall += time.perf_counter() - w
        loop_cpu += time.process_time() - c
        w, c = time.perf_counter(), time.process_time()
        for view in views:
            agent.act(view)
        act_wall += time.perf_counter() - w
        act_cpu += time.process_time() - c
        decisions += len(views)
        views.clear()
    return {
        "act": decisions / act_wall,
        "act_cpu": decisions / act_cpu,
        "loop": decisions / loop_wall,
        "loop_cpu": decisions / loop_cpu,
        "decisions": decisions,
    }


def kernel_speed(seconds: float, games: int, seed: int) -> dict[str, float]:
    """Kernel self-play on ``games`` games in lockstep, match episodes: decide alone, and decide + apply."""
    bars = bh.heuristic_bars()
    game = BatchGame(games, RuleConfig(), "match", seed=seed)
    acts = np.zeros(games, dtype=np.int64)
    bh.heuristic_actions_all(game.state.games, bars, acts)  # compiled or loaded before timing
    wall = cpu = 0.0
    decisions = 0
    while wall < seconds:
        w, c = time.perf_counter(), time.process_time()
        bh.heuristic_actions_all(game.state.games, bars, acts)
        wall += time.perf_counter() - w
        cpu += time.process_time() - c
        decisions += games
        game.step(acts)
    out = {"decide": decisions / wall, "decide_cpu": decisions / cpu, "decide_decisions": decisions}
    game = BatchGame(games, RuleConfig(), "match", seed=seed + 1)
    st, res = game.state, game.results
    bh.heuristic_steps(st.games, st.rng, st.queue, res.table, res.reward, game.switches, game.payoff, bars, 1)
    wall = cpu = 0.0
    decisions = 0
    while wall < seconds:
        w, c = time.perf_counter(), time.process_time()
        d, _ = bh.heuristic_steps(
            st.games, st.rng, st.queue, res.table, res.reward, game.switches, game.payoff, bars, 8
        )
        wall += time.perf_counter() - w
        cpu += time.process_time() - c
        decisions += d
    out.update(steps=decisions / wall, steps_cpu=decisions / cpu, steps_decisions=decisions)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=200_000, help="decisions compared in (a), at least")
    parser.add_argument("--combos", type=int, default=8, help="random combinations of every switch")
    parser.add_argument("--seconds", type=float, default=5.0, help="timed seconds of each speed measure")
    parser.add_argument("--games", type=int, default=4096, help="games in lockstep for the kernel's speed")
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    print(
        f"python {platform.python_version()}, numba {numba.__version__}, {platform.machine()}, "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    )
    start = time.perf_counter()
    total, mismatches = exactness(args.decisions, args.combos, args.seed)
    print(
        f"\n(a) exactness: {total.decisions:,d} decisions compared, {total.choices:,d} with two legal actions "
        f"or more ({total.bids:,d} bids, {total.doubles:,d} doubling calls, {total.cards:,d} cards); "
        f"{total.heuristic_moves:,d} heuristic moves, {total.hands:,d} hands and {total.matches:,d} matches "
        f"compared to their end; {mismatches} configurations with a mismatch "
        f"({time.perf_counter() - start:.0f} s)"
    )
    py = python_speed(args.seconds, args.seed)
    k = kernel_speed(args.seconds, args.games, args.seed)
    print("\n(b) speed, heuristic self-play, match episodes, default rules, one process")
    print(f"  Python HeuristicAgent.act alone          {py['act']:>12,.0f} /s  ({py['act_cpu']:>12,.0f} per CPU s)")
    print(
        f"  kernel heuristic_actions_all alone       {k['decide']:>12,.0f} /s  ({k['decide_cpu']:>12,.0f} per CPU s)"
        f"  x{k['decide_cpu'] / py['act_cpu']:.0f}"
    )
    print(f"  Python view + act + engine apply         {py['loop']:>12,.0f} /s  ({py['loop_cpu']:>12,.0f} per CPU s)")
    print(
        f"  kernel heuristic_steps (decide + apply)  {k['steps']:>12,.0f} /s  ({k['steps_cpu']:>12,.0f} per CPU s)"
        f"  x{k['steps_cpu'] / py['loop_cpu']:.0f}"
    )
    print(
        f"  ({py['decisions']:,d} Python decisions, {k['decide_decisions']:,d} + {k['steps_decisions']:,d} kernel "
        f"decisions on {args.games} games)"
    )
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
