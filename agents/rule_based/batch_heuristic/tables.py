"""The engine's tables the heuristic's kernels read, and the heuristic's bars as a float64 array
(the seat view row they decide from is the core's, ``baloot_env.batch.view``).
"""

from __future__ import annotations

import numpy as np

from agents.rule_based.heuristic import TRUMP_VALUE, HeuristicConfig
from baloot_env.cards import HIGHER_PLAIN, NUM_SUITS, PLAIN_POINTS
from baloot_env.cards import PLAIN_STRENGTH as _PLAIN_STRENGTH
from baloot_env.cards import SUITS_CARDS as _SUITS_CARDS
from baloot_env.cards import TRUMP_STRENGTH as _TRUMP_STRENGTH

# ---------------------------------------------------------------------- tables (from the engine)
_TRUMP_VALUE = np.array(TRUMP_VALUE, dtype=np.float64)
_HIGHER_PLAIN = np.array(HIGHER_PLAIN, dtype=np.int64)
_VOID_MASK = np.array(_SUITS_CARDS, dtype=np.int64)  # card_play.VOID_MASK
_PLAIN_POINTS = np.array(PLAIN_POINTS, dtype=np.int64)
_PLAIN_STRENGTH = np.array(_PLAIN_STRENGTH, dtype=np.int64)
_TRUMP_STRENGTH = np.array(_TRUMP_STRENGTH, dtype=np.int64)
_SUN_ROW = NUM_SUITS  # CARD_POINTS row of Sun (no trump)

# ---------------------------------------------------------------------- bars
BARS = tuple(HeuristicConfig.__dataclass_fields__)  # the order of ``heuristic_bars``
(B_HOKUM, B_SUN, B_SUN_OVER_PARTNER, B_DEALER_DISCOUNT, B_DOUBLE, B_THREE, B_FOUR, B_GAHWA) = range(len(BARS))
if BARS != (
    "hokum_bar",
    "sun_bar",
    "sun_over_partner",
    "dealer_discount",
    "double_bar",
    "three_bar",
    "four_bar",
    "gahwa_bar",
):
    raise ImportError(f"HeuristicConfig's fields changed ({BARS}); batch_heuristic reads them by position")


def heuristic_bars(config: HeuristicConfig | None = None) -> np.ndarray:
    """The float64[8] array of ``config``'s bars (default ``HeuristicConfig()``), in ``BARS`` order."""
    cfg = config or HeuristicConfig()
    return np.array([float(getattr(cfg, name)) for name in BARS], dtype=np.float64)
