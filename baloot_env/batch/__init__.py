"""A compiled, batched Baloot core: N games in lockstep over numpy arrays, kernels by numba.

The readable engine (``baloot_env.hand``, ``match``, ``observation``) is the reference; this
package plays the same rules (R1-R8, every ``RuleConfig`` variant) over arrays and is proven
equal to it step by step (``tests/baloot_env/test_batch_core.py``, ``benchmarks/batch_exactness.py``).

Modules, one concept each, mirroring the engine: ``state`` (the arrays, their columns and the
switches), ``tables`` (lookup tables computed by the engine's functions), ``bits``, ``deal``
(random streams, queued deals, R2), ``bidding`` (R3), ``doubling`` (R4), ``play`` (R5),
``projects`` (R6), ``scoring`` (R7), ``results`` (the hand's end, R11.4), ``match`` (R8,
rewards, the next deal), ``observation`` (``encode``'s layout), ``core`` (the batched kernels),
``game`` (``BatchGame``, the Python face), ``differential`` (the check against the engine).

Kernels are compiled on first use and cached on disk (``jit``). Usage::

    game = BatchGame(1024, RuleConfig(), episode="match", seed=0)
    obs, masks = game.observe()            # float32 (N, OBS_SIZE), int8 (N, 42) of each seat to act
    seats = game.to_act.copy()
    results = game.step(policy(obs, masks))  # results.reward: team 0's; hand/episode ends, R11.4/R11.5
"""

from __future__ import annotations

from baloot_env.batch.game import BatchGame, deal_queue, deal_row, seed_streams
from baloot_env.batch.state import (
    BIDDING,
    DONE,
    DOUBLING,
    HOKUM,
    PLAY,
    SUN,
    BatchResults,
    BatchState,
    new_results,
    new_state,
    rule_switches,
)

__all__ = [
    "BIDDING",
    "DONE",
    "DOUBLING",
    "HOKUM",
    "PLAY",
    "SUN",
    "BatchGame",
    "BatchResults",
    "BatchState",
    "deal_queue",
    "deal_row",
    "new_results",
    "new_state",
    "rule_switches",
    "seed_streams",
]
