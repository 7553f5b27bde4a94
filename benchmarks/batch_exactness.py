"""Exactness of the batched core against the engine, at scale.

Plays at least ``--hands`` hands in hand episodes and as many again in match episodes through
the batched core (``baloot_env.batch``) and the engine side by side (``run_differential``:
equal seats to act, masks, observations bit for bit, results, scores, match books and ends,
dealer rotation and rewards at every step), spread over every ``RuleConfig`` switch flipped
from its default and random combinations of all of them, with automatic reset on and off,
queued deals, both dealer policies and every reward mode. Prints one line per configuration
and a summary; exits 1 on any mismatch (the first one of a configuration is printed with a
replayable deal and history).

Run: ``.venv/bin/python benchmarks/batch_exactness.py [--hands 100000]``.
"""

from __future__ import annotations

import argparse
import platform
import time
from datetime import UTC, datetime

import numba

from baloot_env.batch.differential import DiffStats, Mismatch, run_differential
from baloot_env.batch.variants import REWARDS, variant_id, variants


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000, help="hands in hand episodes (as many again in matches)")
    parser.add_argument("--games", type=int, default=64, help="games in lockstep per run")
    parser.add_argument("--combos", type=int, default=12, help="random combinations of every switch")
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args()
    print(
        f"python {platform.python_version()}, numba {numba.__version__}, {platform.machine()}, "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    )
    configs = list(variants(args.seed, args.combos))
    per_run = -(-args.hands // len(configs))
    total = DiffStats()
    mismatches = 0
    start = time.perf_counter()
    for episode in ("hand", "match"):
        for i, rules in enumerate(configs):
            options = dict(
                auto_reset=i % 2 == 0,
                queued_deals=(0, 2, 5)[i % 3],
                reward=REWARDS[i % len(REWARDS)],
                dealers="rotate" if episode == "match" and i % 4 == 3 else "given",
            )
            t = time.perf_counter()
            try:
                stats = run_differential(
                    rules, episode, args.games, per_run, seed=args.seed + 1000 * i + (episode == "match"), **options
                )
            except Mismatch as e:
                mismatches += 1
                print(f"MISMATCH {episode} {variant_id(rules)} {options}: {e}")
                continue
            total.add(stats)
            print(
                f"{episode:5} {variant_id(rules)[:70]:70} hands {stats.hands:6,} (thrown in {stats.thrown_in:5,}) "
                f"matches {stats.matches:5,} decisions {stats.decisions:8,} {time.perf_counter() - t:5.1f} s"
            )
    wall = time.perf_counter() - start
    print()
    print(f"configurations: {len(configs)} rule sets x 2 episodes")
    print(
        f"hands: {total.hands:,} (played {total.hands - total.thrown_in:,}, thrown in {total.thrown_in:,}; "
        f"doubled {total.doubled:,}, gahwa {total.gahwas:,}, kaboot {total.kaboots:,})"
    )
    print(f"matches: {total.matches:,} {dict(sorted(total.reasons.items()))}")
    print(f"decisions compared: {total.decisions:,} (seat, mask, observation, reward)")
    print(f"observations compared: {total.observations:,}")
    print(f"mismatches: {mismatches}")
    print(f"wall time: {wall:,.0f} s")
    raise SystemExit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
