"""Speed of the exact endgame (``batch_endgame.solve_row``) by the cards left at its root.

Positions come from ``heuristic`` games (every seat), taken at the card decisions with 12, 16,
20 and 24 cards left (3 to 6 tricks); each is solved for the side to play, with the world's own
stamp on one shared transposition table as the search uses it. Prints the mean microseconds a
solve, twice over (the second pass is the figure: the first pays the table's first touch).

The solver's value does not depend on the table or the card order (``tests/agents/
test_search_core.py``), only its time; so the figures compare solvers across commits.

Run: ``python benchmarks/endgame_speed.py [--hands 60] [--per-size 40]``
"""

from __future__ import annotations

import argparse
import os
import random
import time

import numpy as np

from agents import HeuristicAgent, PlayerView
from agents.search_player import batch_endgame
from baloot_env.batch.convert import state_row
from baloot_env.batch.state import NUM_RESULTS, rule_switches
from baloot_env.cards import cards_of
from baloot_env.deal import random_deal
from baloot_env.hand import PLAY, HandState
from baloot_env.rules import RuleConfig

SIZES = (12, 16, 20, 24)


def positions(hands: int, per_size: int, seed: int) -> dict[int, list[tuple[np.ndarray, int]]]:
    """Rows of card decisions (two legal cards or more) by cards left, with the side to play."""
    rng = random.Random(seed)
    agents = [HeuristicAgent(s) for s in range(4)]
    out: dict[int, list[tuple[np.ndarray, int]]] = {n: [] for n in SIZES}
    for _ in range(hands):
        state = HandState(random_deal(rng), RuleConfig())
        while state.result is None:
            view = PlayerView.from_state(state, state.to_act)
            left = sum(h.bit_count() for h in state.hands)
            if state.phase == PLAY and left in out and len(cards_of(view.legal_mask)) > 1:
                if len(out[left]) < per_size:
                    out[left].append((state_row(state)[None, :], state.to_act % 2))
            state.apply(agents[state.to_act].act(view))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=60)
    ap.add_argument("--per-size", type=int, default=40)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    sw = rule_switches(RuleConfig(), "hand")
    by_size = positions(args.hands, args.per_size, args.seed)
    print(f"load average before: {os.getloadavg()[0]:.1f}", flush=True)
    for rep in range(2):
        for size, rows in by_size.items():
            table, stamp = batch_endgame.claim_stamps(len(rows))
            t0 = time.perf_counter()
            for i, (row, team) in enumerate(rows):
                cache = np.full(batch_endgame.LEAF_CACHE_SIZE, batch_endgame.NO_VALUE, dtype=np.int64)
                r = np.zeros((1, NUM_RESULTS), dtype=np.int64)
                batch_endgame.solve_row(row, 0, team, row.copy(), r, sw, cache, table, stamp + i)
            us = (time.perf_counter() - t0) / len(rows) * 1e6
            print(f"pass {rep + 1}: {size} cards left ({size // 4} tricks), {len(rows)} solves: {us:,.1f} us a solve")
    print(f"load average after: {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
