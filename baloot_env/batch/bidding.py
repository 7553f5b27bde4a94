"""Calling the contract (R3) and settling it (R2.3, R6 declared, then R4 or R5)."""

from __future__ import annotations

import numpy as np

from baloot_env.actions import HOKUM_BASE, PASS, SUN_ACTION
from baloot_env.batch.deal import complete_deal
from baloot_env.batch.jit import njit
from baloot_env.batch.projects import declare_projects, has_baloot
from baloot_env.batch.state import (
    BALOOT_SEAT,
    BID_ROUND,
    BIDS,
    CALLER,
    CONTRACT,
    DEAL,
    DEAL_TURNED,
    DEALER,
    DOUBLING,
    HANDS,
    HOKUM,
    HOKUM_BIDDER,
    PHASE,
    PLAY,
    PROJECT_CARDS,
    PROJECT_KEY,
    PROJECT_KINDS,
    SUN,
    SW_ACES_HUNDRED,
    SW_DOUBLING,
    SW_PROJECTS,
    SW_SUN_DOUBLE,
    TO_ACT,
    TRUMP,
)
from baloot_env.cards import NUM_SEATS, NUM_SUITS

_ALL_HOKUM_BITS = sum(1 << (HOKUM_BASE + suit) for suit in range(NUM_SUITS))


@njit
def legal_bids(s: np.ndarray, g: int) -> int:
    """Bit mask of the legal calls (R3.1, R3.4): pass and sun always, hokum as the round allows."""
    bits = 1 << PASS | 1 << SUN_ACTION
    turned_suit = s[g, DEAL + DEAL_TURNED] >> 3
    if s[g, BID_ROUND] == 1:
        if s[g, HOKUM_BIDDER] < 0:
            bits |= 1 << (HOKUM_BASE + turned_suit)  # R3.1: hokum in the turned suit, once
    else:
        bits |= _ALL_HOKUM_BITS & ~(1 << (HOKUM_BASE + turned_suit))  # R3.4: any other suit
    return bits


@njit
def apply_bid(s: np.ndarray, sw: np.ndarray, g: int, action: int) -> bool:
    """R3: record one call and settle the contract when the calling is over.

    Returns True when the deal is thrown in (R3.5); the caller then ends the hand.
    """
    seat = s[g, TO_ACT]
    rnd = s[g, BID_ROUND]
    s[g, BIDS + NUM_SEATS * (rnd - 1) + seat] = action
    if action == SUN_ACTION:  # R3.2, R3.4
        settle(s, sw, g, SUN, -1, seat)
        return False
    if action != PASS:
        if rnd == 2:  # R3.4: the first call settles at once
            settle(s, sw, g, HOKUM, action - HOKUM_BASE, seat)
            return False
        s[g, HOKUM_BIDDER] = seat  # R3.3: round 1 runs on (a later seat may say sun)
    if seat == s[g, DEALER]:  # the round's last speaker
        if rnd == 1:
            if s[g, HOKUM_BIDDER] >= 0:  # R3.3
                settle(s, sw, g, HOKUM, s[g, DEAL + DEAL_TURNED] >> 3, s[g, HOKUM_BIDDER])
                return False
            s[g, BID_ROUND] = 2  # R3.4
        else:
            return True  # R3.5
    s[g, TO_ACT] = (seat + 1) % NUM_SEATS
    return False


@njit
def settle(s: np.ndarray, sw: np.ndarray, g: int, contract: int, trump: int, caller: int) -> None:
    """The contract is settled: deal the stock (R2.3), declare projects (R6), then R4 or R5."""
    s[g, CONTRACT] = contract
    s[g, TRUMP] = trump
    s[g, CALLER] = caller
    complete_deal(s, g)
    hokum = contract == HOKUM
    if sw[SW_PROJECTS]:  # R6.1, R6.5, R6.6
        aces_hundred = sw[SW_ACES_HUNDRED] != 0
        for seat in range(NUM_SEATS):
            hand = s[g, HANDS + seat]
            kind0, kind1, cards, key = declare_projects(hand, hokum, aces_hundred)
            s[g, PROJECT_KINDS + 2 * seat] = kind0
            s[g, PROJECT_KINDS + 2 * seat + 1] = kind1
            s[g, PROJECT_CARDS + seat] = cards
            s[g, PROJECT_KEY + seat] = key
            if hokum and has_baloot(hand, trump):
                s[g, BALOOT_SEAT] = seat
    if sw[SW_DOUBLING] and (hokum or sw[SW_SUN_DOUBLE]):  # R4.3, V1, V3
        s[g, PHASE] = DOUBLING
        s[g, TO_ACT] = (caller + 1) % NUM_SEATS  # R4.2: the first defender after the caller
    else:
        start_play(s, g)


@njit
def start_play(s: np.ndarray, g: int) -> None:
    """R5.1: the seat at the dealer's right leads to the first trick."""
    s[g, PHASE] = PLAY
    s[g, TO_ACT] = (s[g, DEALER] + 1) % NUM_SEATS
