"""Demo: a few hands through the PettingZoo environment, printed (``python -m baloot_env.demo``).

Plays seeded random legal moves for every seat and prints each hand's result, so a fresh
install can be checked end to end before any agent is trained.
"""

from __future__ import annotations

import argparse
import random
from typing import Any

import numpy as np

from baloot_env.aec import env
from baloot_env.render import render_hand


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=4, help="number of hands to play")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    e = env(episode="hand")
    totals = [0, 0]
    for h in range(args.hands):
        e.reset(seed=args.seed + h)
        result: dict[str, Any] = {"score": [0, 0]}  # a hand always ends with a hand_result (R11.4)
        for _agent in e.agent_iter():
            obs, _, term, trunc, info = e.last()
            result = info.get("hand_result", result)
            if term or trunc:
                e.step(None)
                continue
            e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        print(f"=== hand {h + 1} ===")
        print(render_hand(e.unwrapped.hand))
        totals[0] += result["score"][0]
        totals[1] += result["score"][1]
    print(
        f"\n{args.hands} hands played; total score team 0 (seats 0, 2): {totals[0]}, team 1 (seats 1, 3): {totals[1]}"
    )


if __name__ == "__main__":
    main()
