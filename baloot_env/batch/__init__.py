"""A compiled, batched Baloot core: N games in lockstep over numpy arrays, kernels by numba.

The readable engine (``baloot_env.hand``, ``match``, ``observation``) is the reference; this
package plays the same rules (R1-R8, every ``RuleConfig`` variant) over arrays and is proven
equal to it step by step (``tests/test_batch_core.py``, ``benchmarks/batch_exactness.py``).

Modules, one concept each, mirroring the engine: ``state`` (the arrays and switches), ``deal``
(random streams, R2), ``bidding`` (R3), ``doubling`` (R4), ``play`` (R5), ``projects`` (R6),
``scoring`` (R7), ``results`` (the hand's end, R11.4), ``match`` (R8, rewards, the next deal),
``observation`` (``encode``'s layout), ``core`` (the kernels), ``game`` (``BatchGame``).

Kernels are compiled on first use and cached on disk (``jit``).
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
    "BIDDING", "DONE", "DOUBLING", "HOKUM", "PLAY", "SUN",
    "BatchGame", "BatchResults", "BatchState", "deal_queue", "deal_row", "new_results", "new_state",
    "rule_switches", "seed_streams",
]  # fmt: skip
