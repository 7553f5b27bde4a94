"""How much search "no search where every card is equivalent" could save (issue 44, goal 3).

Two legal cards are equivalent when they are of one suit, score the same card points in the
contract (R7) and no card that could still fall between them in rank is outside the seat's hand
and the completed tricks (cards of the trick on the table count as between). Whichever is played,
every later trick goes the same way. In ``heuristic`` hands, for every card decision with a
choice, by trick: the share of the legal cards a search could skip (one card of each equivalent
run kept) and the share of decisions where every legal card is equivalent.

Run: ``python benchmarks/equivalent_cards.py [--hands 300] [--seed 3]``
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

from agents import HeuristicAgent, PlayerView
from baloot_env import PLAY, HandState, random_deal
from baloot_env.cards import NUM_TRICKS, card_points, cards_of, mask_of, strength


def runs_of_equivalent(view: PlayerView) -> int:
    """The number of runs of equivalent cards among the view's legal cards."""
    done = 0
    for trick in view.tricks:
        done |= mask_of(trick[1])
    between_ok = view.hand | done  # cards that cannot separate two of the seat's cards
    trump = view.trump
    runs = 0
    for suit in range(4):
        mine = sorted((c for c in cards_of(view.legal_mask) if c // 8 == suit), key=lambda c: strength(c, trump))
        for low, high in zip(mine, mine[1:], strict=False):
            lo, hi = strength(low, trump), strength(high, trump)
            gap = any(lo < strength(x, trump) < hi and not between_ok >> x & 1 for x in range(8 * suit, 8 * suit + 8))
            if gap or card_points(low, trump) != card_points(high, trump):
                runs += 1
        runs += bool(mine)
    return runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    agents = [HeuristicAgent(s) for s in range(4)]
    decisions, cards, kept, all_equivalent = Counter(), Counter(), Counter(), Counter()
    for _ in range(args.hands):
        state = HandState(random_deal(rng))
        while state.result is None:
            view = PlayerView.from_state(state, state.to_act)
            legal = len(cards_of(view.legal_mask))
            if state.phase == PLAY and legal > 1:
                t, runs = len(view.tricks), runs_of_equivalent(view)
                decisions[t] += 1
                cards[t] += legal
                kept[t] += runs
                all_equivalent[t] += runs == 1
            state.apply(agents[state.to_act].act(view))
    print("trick | decisions | legal cards a search could skip | all legal cards equivalent")
    for t in range(NUM_TRICKS):
        if decisions[t]:
            skip, alleq = 1 - kept[t] / cards[t], all_equivalent[t] / decisions[t]
            print(f"{t + 1} | {decisions[t]:,} | {skip:.1%} | {alleq:.1%}")
    n = sum(decisions.values())
    skip = 1 - sum(kept.values()) / sum(cards.values())
    print(f"all | {n:,} | {skip:.1%} | {sum(all_equivalent.values()) / n:.1%}")


if __name__ == "__main__":
    main()
