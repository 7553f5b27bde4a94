"""The calling and doubling kernels (R3, R4): ``heuristic.py``'s strengths and decisions."""

from __future__ import annotations

import numpy as np

from agents.rule_based.batch_heuristic.jit import njit  # the guard first: before any kernel is defined
from agents.rule_based.batch_heuristic.tables import (
    _TRUMP_VALUE,
    B_DEALER_DISCOUNT,
    B_DOUBLE,
    B_FOUR,
    B_GAHWA,
    B_HOKUM,
    B_SUN,
    B_SUN_OVER_PARTNER,
    B_THREE,
)
from baloot_env.actions import DOUBLE, FOUR, GAHWA_ACTION, HOKUM_BASE, PASS, SUN_ACTION, THREE
from baloot_env.batch.bits import popcount
from baloot_env.batch.view import (
    V_BID_ROUND,
    V_DEALER,
    V_HAND,
    V_HOKUM_BIDDER,
    V_LEGAL,
    V_SEAT,
    V_TRUMP,
    V_TURNED,
)
from baloot_env.cards import ACE, KING, NUM_RANKS, NUM_SUITS, TEN
from baloot_env.seats import NUM_SEATS


# ---------------------------------------------------------------------- R3, R4 (heuristic.py)
@njit
def hokum_strength(mask: int, trump: int) -> float:
    """``heuristic.hokum_strength``: the same sums in the same order."""
    trumps = (mask >> (8 * trump)) & 0xFF
    score = 0.0
    n_trumps = 0
    for r in range(NUM_RANKS):
        if trumps >> r & 1:
            score += _TRUMP_VALUE[r]
            n_trumps += 1
    for s in range(NUM_SUITS):
        if s == trump:
            continue
        b = (mask >> (8 * s)) & 0xFF
        if b >> ACE & 1:
            score += 1.5
            if b >> TEN & 1:
                score += 1.0
        elif b == 0 and n_trumps >= 3:
            score += 0.5
    return score


@njit
def sun_strength(mask: int) -> float:
    """``heuristic.sun_strength``."""
    score = 0.0
    for s in range(NUM_SUITS):
        b = (mask >> (8 * s)) & 0xFF
        if b == 0:
            continue
        n = popcount(b)
        ace = b >> ACE & 1
        ten = b >> TEN & 1
        if ace:
            score += 3.0 + 0.5 * max(0, n - 3)
        if ten:
            score += 2.0 if ace else (1.0 if n >= 2 else 0.5)
        if b >> KING & 1 and (ace or ten):
            score += 0.5
    return score


@njit
def defence_strength(mask: int, trump: int) -> float:
    """``heuristic.defence_strength``."""
    trumps = (mask >> (8 * trump)) & 0xFF
    score = 0.0
    for r in range(NUM_RANKS):
        if trumps >> r & 1:
            score += _TRUMP_VALUE[r]
    for s in range(NUM_SUITS):
        if s != trump and mask >> (8 * s + ACE) & 1:
            score += 1.0
    return score


@njit
def _bid(v: np.ndarray, bars: np.ndarray) -> int:
    """``HeuristicAgent._bid`` (R3)."""
    legal = v[V_LEGAL]
    seat = v[V_SEAT]
    mine = v[V_HAND] | (1 << v[V_TURNED])  # R2.3: the caller takes the turned card
    turned_suit = v[V_TURNED] >> 3
    sun = sun_strength(mine)
    discount = bars[B_DEALER_DISCOUNT] if seat == v[V_DEALER] and v[V_BID_ROUND] == 2 else 0.0
    if v[V_BID_ROUND] == 1:
        bidder = v[V_HOKUM_BIDDER]
        if bidder >= 0:  # R3.3: only sun can still be said
            bar = bars[B_SUN_OVER_PARTNER] if bidder == (seat + 2) % NUM_SEATS else bars[B_SUN]
            return SUN_ACTION if sun >= bar else PASS
        hokum = hokum_strength(mine, turned_suit)
        hokum_action = HOKUM_BASE + turned_suit
    else:
        best = -1
        hokum = 0.0
        for suit in range(NUM_SUITS):  # max((strength, -suit)): the first suit of the best strength
            if legal >> (HOKUM_BASE + suit) & 1:
                h = hokum_strength(mine, suit)
                if best < 0 or h > hokum:
                    best, hokum = suit, h
        hokum_action = HOKUM_BASE + best
    sun_margin = sun - (bars[B_SUN] - discount)
    hokum_margin = hokum - (bars[B_HOKUM] - discount)
    if sun_margin >= 0 and sun_margin >= hokum_margin:
        return SUN_ACTION
    if hokum_margin >= 0 and legal >> hokum_action & 1:
        return hokum_action
    return PASS


@njit
def _double(v: np.ndarray, bars: np.ndarray) -> int:
    """``HeuristicAgent._double`` (R4; V1 in Sun). The hand is the full 8 cards (R4.4)."""
    legal = v[V_LEGAL]
    hand = v[V_HAND]
    trump = v[V_TRUMP]
    if trump < 0:
        return DOUBLE if legal >> DOUBLE & 1 and sun_strength(hand) >= bars[B_SUN] + 4 else PASS
    strength = defence_strength(hand, trump)
    if legal >> DOUBLE & 1:
        return DOUBLE if strength >= bars[B_DOUBLE] else PASS
    if legal >> THREE & 1:
        return THREE if strength >= bars[B_THREE] else PASS
    if legal >> FOUR & 1:
        return FOUR if strength >= bars[B_FOUR] else PASS
    if legal >> GAHWA_ACTION & 1:
        return GAHWA_ACTION if strength >= bars[B_GAHWA] else PASS
    return PASS
