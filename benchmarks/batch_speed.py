"""Speed of the batched core on one core, beside the engine and the AEC loop.

Measured in one run, one process (pin it to one core with ``taskset``):

(a) ``random``: the batched core alone, N games in lockstep, actions drawn uniformly among the
    legal ones inside the kernel (``BatchGame.random_steps``), hand episodes and matches;
(b) ``observed``: every lockstep step writes the observation (``encode``'s layout) and mask of
    every acting seat into the preallocated (N, OBS_SIZE) / (N, 42) arrays, then draws uniform
    actions from those masks (``core.sample_uniform``) and applies them through ``step``
    (which checks every action): the loop a vectorised environment runs around a policy;
(c) the engine's random play (``HandState``) and the PettingZoo AEC loop (``raw_env``, match
    episodes), from ``benchmarks/env_speed.py``, for the ratios;
(d) the JIT cost: a fresh interpreter importing ``baloot_env.batch`` and making the first call of
    every kernel, with an empty numba cache (cold: compilation and cache fill), then again with
    the cache filled (warm). A private cache directory (NUMBA_CACHE_DIR) keeps the package's own
    cache untouched.

Run: ``taskset -c 1 .venv/bin/python benchmarks/batch_speed.py [--seconds 5]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from env_speed import aec_loop, engine_random_play  # noqa: E402 (a sibling script)

from baloot_env import raw_env  # noqa: E402
from baloot_env.batch import BatchGame, core, seed_streams  # noqa: E402

SIZES = (1024, 4096)

# What a fresh interpreter does in (d): import, then the first call of every kernel.
FIRST_USE = """
import time, numpy as np
t0 = time.perf_counter()
from baloot_env.batch import BatchGame, core, seed_streams
t1 = time.perf_counter()
g = BatchGame(64, episode="match", seed=1)
obs, masks = g.observe()
acts = np.zeros(64, dtype=np.int64)
rng = seed_streams(2, 64)
core.sample_uniform(masks, rng, acts)
g.step(acts)
g.legal_masks()
g.random_steps(1, rng)
g.advance_finished()
t2 = time.perf_counter()
print(f"{t1 - t0:.3f} {t2 - t1:.3f}")
"""


def random_rate(num_games: int, episode: str, seconds: float) -> tuple[float, float, float]:
    """(a): decisions/s and hands/s with uniform actions drawn in the kernel, then decisions per
    second of this process's CPU time (the same on a machine shared with other work)."""
    game = BatchGame(num_games, episode=episode, seed=1)
    rng = seed_streams(2, num_games)
    game.random_steps(20, rng)  # warm: kernels loaded, games spread over all phases
    decisions = hands = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        d, h = game.random_steps(100, rng)
        decisions += d
        hands += h
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return decisions / elapsed, hands / elapsed, decisions / cpu


def observed_rate(num_games: int, episode: str, seconds: float) -> tuple[float, float]:
    """(b): decisions/s writing every acting seat's observation and mask, then stepping; and
    decisions per second of CPU time."""
    game = BatchGame(num_games, episode=episode, seed=1)
    rng = seed_streams(2, num_games)
    actions = np.zeros(num_games, dtype=np.int64)
    for _ in range(20):
        _obs, masks = game.observe()
        core.sample_uniform(masks, rng, actions)
        game.step(actions)
    decisions = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for _ in range(20):
            _obs, masks = game.observe()
            core.sample_uniform(masks, rng, actions)
            game.step(actions)
        decisions += 20 * num_games
    return decisions / (time.perf_counter() - start), decisions / (time.process_time() - cpu)


def first_use(cache_dir: str) -> tuple[float, float]:
    """(d): (import seconds, first calls seconds) in a fresh interpreter using ``cache_dir``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run(
        [sys.executable, "-c", FIRST_USE], env=env, capture_output=True, text=True, check=True, cwd=Path.cwd()
    )
    t_import, t_first = (float(x) for x in out.stdout.split())
    return t_import, t_first


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "cpu"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    args = parser.parse_args()
    affinity = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; python {platform.python_version()}, numba {numba.__version__}, "
        f"numpy {np.__version__}; {cpu_name()}, {os.cpu_count()} cpus, this process on {affinity}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print()
    print("(d) JIT cost in a fresh interpreter (import / first call of every kernel):")
    with tempfile.TemporaryDirectory() as cache_dir:
        cold = first_use(cache_dir)
        warm = first_use(cache_dir)
    print(f"    cold (empty cache, compiles and fills it): import {cold[0]:.2f} s, first calls {cold[1]:.2f} s")
    print(f"    warm (cache filled):                      import {warm[0]:.2f} s, first calls {warm[1]:.2f} s")
    print()
    rows = []
    for episode in ("hand", "match"):
        for n in SIZES:
            dps, hps, dps_cpu = random_rate(n, episode, args.seconds)
            ops, ops_cpu = observed_rate(n, episode, args.seconds)
            rows.append((episode, n, dps, hps, ops))
            print(
                f"(a) random in kernel, {episode:5} episodes, N={n}: {dps:12,.0f} decisions/s "
                f"({hps:,.0f} hands/s; {dps_cpu:,.0f} per CPU second)"
            )
            print(
                f"(b) observation + mask written, {episode:5}, N={n}: {ops:12,.0f} decisions/s "
                f"({ops_cpu:,.0f} per CPU second)"
            )
    print()
    hands_s, engine_dps = engine_random_play(args.seconds)
    print(f"(c) engine random play (HandState): {engine_dps:,.0f} decisions/s ({hands_s:,.0f} hands/s)")
    aec = aec_loop(raw_env, args.seconds)
    print(f"(c) AEC loop raw_env, match episodes (last() with observation + mask, step): {aec:,.0f} decisions/s")
    print()
    best_random = max(r[2] for r in rows if r[1] >= 1024)
    best_observed = max(r[4] for r in rows if r[1] >= 1024)
    print(
        f"ratios: random in kernel / engine = {best_random / engine_dps:,.0f}x; "
        f"observed / AEC loop = {best_observed / aec:,.0f}x"
    )
    print(
        f"targets (N >= 1024, one core): random >= 3,000,000/s: {min(r[2] for r in rows):,.0f} at worst; "
        f"observed >= 500,000/s: {min(r[4] for r in rows):,.0f} at worst"
    )


if __name__ == "__main__":
    main()
