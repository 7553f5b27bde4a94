"""The seat's view row: what the seat to act may know, copied out of a game's row (``seat_view``);
the engine's tables the kernels read, and the heuristic's bars as a float64 array.
"""

from __future__ import annotations

import numpy as np

from agents.rule_based.batch_heuristic.jit import njit  # the guard first: before any kernel is defined
from agents.rule_based.heuristic import TRUMP_VALUE, HeuristicConfig
from baloot_env.batch.core import legal_mask
from baloot_env.batch.state import (
    BID_ROUND,
    CALLER,
    DEAL,
    DEAL_TURNED,
    DEALER,
    HANDS,
    HOKUM_BIDDER,
    NO_TRUMPS,
    PHASE,
    PLAYED_BY,
    TO_ACT,
    TRICK_CARDS,
    TRICK_SIZE,
    TRICK_WIN_CARD,
    TRICK_WINNER,
    TRUMP,
    VOIDS,
)
from baloot_env.cards import HIGHER_PLAIN, NUM_SUITS, PLAIN_POINTS
from baloot_env.cards import PLAIN_STRENGTH as _PLAIN_STRENGTH
from baloot_env.cards import SUITS_CARDS as _SUITS_CARDS
from baloot_env.cards import TRUMP_STRENGTH as _TRUMP_STRENGTH
from baloot_env.seats import NUM_SEATS

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


# ---------------------------------------------------------------------- the view row
VIEW_FIELDS: dict[str, tuple[int, int, str]] = {}


def _col(name: str, width: int, meaning: str) -> int:
    start = sum(w for _, w, _ in VIEW_FIELDS.values())
    VIEW_FIELDS[name] = (start, width, meaning)
    return start


V_SEAT = _col("seat", 1, "the seat to act (the view's owner)")
V_PHASE = _col("phase", 1, "BIDDING, DOUBLING, PLAY or DONE")
V_DEALER = _col("dealer", 1, "the dealer (R2.1)")
V_HAND = _col("hand", 1, "the seat's own cards (its 8 cards while doubling, R4.4)")
V_LEGAL = _col("legal", 1, "its legal actions, bit a for action a (R9)")
V_TURNED = _col("turned", 1, "the turned card (R2.2)")
V_BID_ROUND = _col("bid_round", 1, "1 or 2 (R3.1, R3.4)")
V_HOKUM_BIDDER = _col("hokum_bidder", 1, "the seat that said hokum in round 1, -1 none (R3.3)")
V_TRUMP = _col("trump", 1, "the trump suit, -1 in Sun or before the contract")
V_CALLER = _col("caller", 1, "the caller, -1 before the contract (R3.6)")
V_PLAYED = _col("played", NUM_SEATS, "per seat, the cards it has played (public)")
V_VOIDS = _col("voids", NUM_SEATS, "per seat, suits it has shown it lacks (R5.2, R5.4)")
V_NO_TRUMPS = _col("no_trumps", NUM_SEATS, "per seat, trumps it has shown it cannot hold (R5.2, R5.4)")
V_TRICK_CARDS = _col("trick_cards", NUM_SEATS, "the trick so far, in play order")
V_TRICK_SIZE = _col("trick_size", 1, "cards on the table")
V_TRICK_WINNER = _col("trick_winner", 1, "the seat winning the trick so far")
V_TRICK_WIN_CARD = _col("trick_win_card", 1, "the card winning it")
# Derived by ``card_action`` from the columns above (``card_play.Table``), not copied.
V_UNSEEN = _col("unseen", 1, "derived: cards neither played nor its own")
V_POSSIBLE = _col("possible", NUM_SEATS, "derived: per other seat, the unseen cards it may hold; 0 for itself")
VIEW_SIZE = sum(w for _, w, _ in VIEW_FIELDS.values())


@njit
def seat_view(s: np.ndarray, g: int, v: np.ndarray) -> None:
    """Copy into ``v`` what game g's seat to act may know and the player reads (module docstring).

    The only function here that reads the state: the seat's own ``HANDS`` column, public
    columns, and the core's ``legal_mask`` (own cards and public columns).
    """
    seat = s[g, TO_ACT]
    v[V_SEAT] = seat
    v[V_PHASE] = s[g, PHASE]
    v[V_DEALER] = s[g, DEALER]
    v[V_HAND] = s[g, HANDS + seat]
    v[V_LEGAL] = legal_mask(s, g)
    v[V_TURNED] = s[g, DEAL + DEAL_TURNED]
    v[V_BID_ROUND] = s[g, BID_ROUND]
    v[V_HOKUM_BIDDER] = s[g, HOKUM_BIDDER]
    v[V_TRUMP] = s[g, TRUMP]
    v[V_CALLER] = s[g, CALLER]
    for r in range(NUM_SEATS):
        v[V_PLAYED + r] = s[g, PLAYED_BY + r]
        v[V_VOIDS + r] = s[g, VOIDS + r]
        v[V_NO_TRUMPS + r] = s[g, NO_TRUMPS + r]
        v[V_TRICK_CARDS + r] = s[g, TRICK_CARDS + r]
    v[V_TRICK_SIZE] = s[g, TRICK_SIZE]
    v[V_TRICK_WINNER] = s[g, TRICK_WINNER]
    v[V_TRICK_WIN_CARD] = s[g, TRICK_WIN_CARD]
