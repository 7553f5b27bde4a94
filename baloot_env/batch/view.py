"""The seat view row of the batched core: what the seat to act may know, copied out of a game's
row into one int64 row (``seat_view``), for the batched players (``agents.rule_based.batch_heuristic``
and the searches that play it out).

It is the batched face of ``baloot_env.view.PlayerView``: the seat's own cards, the turned card,
the calling so far (round, the round-1 hokum caller, R3), the contract (trump, caller), the cards
each seat has played, the voids and missing trumps the play has shown (R5.2, R5.4), the trick on
the table, and the legal actions (the core's ``legal_mask``, which reads only the seat's own
cards and public columns). ``seat_view`` is the only reader of the state here: ``HANDS`` only at
the seat to act, no stock, no hidden project. The last columns (``unseen``, ``possible``) are the
player's to derive from the others; ``seat_view`` leaves them as they are.
"""

from __future__ import annotations

import numpy as np

from baloot_env.batch.core import legal_mask
from baloot_env.batch.jit import njit
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
from baloot_env.seats import NUM_SEATS

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
# Derived by the player from the columns above (the heuristic: ``card_action``), not copied.
V_UNSEEN = _col("unseen", 1, "derived: cards neither played nor its own")
V_POSSIBLE = _col("possible", NUM_SEATS, "derived: per other seat, the unseen cards it may hold; 0 for itself")
VIEW_SIZE = sum(w for _, w, _ in VIEW_FIELDS.values())


@njit
def seat_view(s: np.ndarray, g: int, v: np.ndarray) -> None:
    """Copy into ``v`` what game g's seat to act may know (module docstring): the seat's own
    ``HANDS`` column, public columns, and the core's ``legal_mask``."""
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
