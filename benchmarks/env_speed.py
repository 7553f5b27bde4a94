"""Speed of the engine and of the AEC loop, on one core.

(a) engine: random legal play through ``HandState`` alone, hands/s and decisions/s;
(b) AEC loop: ``env.last()`` (observation + mask) then ``step``, decisions/s, for ``raw_env``
    and for the wrapped ``env()``.

Run: ``taskset -c 0 .venv/bin/python benchmarks/env_speed.py [--seconds 10]``.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

import numpy as np

from baloot_env import env, raw_env
from baloot_env.cards import cards_of
from baloot_env.deal import random_deal
from baloot_env.hand import HandState


def engine_random_play(seconds: float, seed: int = 0) -> tuple[float, float]:
    rng = random.Random(seed)
    rand = rng.random  # a uniform legal action by index: cheaper than rng.choice, same distribution
    hands = decisions = 0
    start = time.perf_counter()
    end = start + seconds
    while time.perf_counter() < end:
        for _ in range(100):
            s = HandState(random_deal(rng))
            while s.phase != "done":
                legal = cards_of(s.legal_mask())
                s.apply(legal[int(rand() * len(legal))])
                decisions += 1
            hands += 1
    elapsed = time.perf_counter() - start
    return hands / elapsed, decisions / elapsed


def aec_loop(make, seconds: float, seed: int = 0) -> float:
    e = make(episode="match")
    rng = random.Random(seed)
    decisions = 0
    e.reset(seed=seed)
    start = time.perf_counter()
    end = start + seconds
    while time.perf_counter() < end:
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            decisions += 1
        e.reset()
    return decisions / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()} ({platform.processor() or 'cpu'})")
    hps, dps = engine_random_play(args.seconds)
    print(f"engine random play: {hps:,.0f} hands/s, {dps:,.0f} decisions/s")
    raw = aec_loop(raw_env, args.seconds)
    print(f"AEC loop raw_env (last() with observation + mask, step): {raw:,.0f} decisions/s")
    wrapped = aec_loop(env, args.seconds)
    print(f"AEC loop env() (OrderEnforcingWrapper): {wrapped:,.0f} decisions/s")


if __name__ == "__main__":
    main()
