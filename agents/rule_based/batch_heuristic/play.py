"""The card-play kernels (R5): ``card_play.choose_card`` on the view row."""

from __future__ import annotations

import numpy as np

from agents.rule_based.batch_heuristic.jit import njit  # the guard first: before any kernel is defined
from agents.rule_based.batch_heuristic.tables import (
    _HIGHER_PLAIN,
    _PLAIN_POINTS,
    _SUN_ROW,
    _VOID_MASK,
)
from agents.rule_based.card_play import RICH_TRICK
from baloot_env.batch.bits import popcount
from baloot_env.batch.tables import CARD_POINTS, HIGHER_TRUMP, SUIT_MASK
from baloot_env.batch.view import (
    V_CALLER,
    V_HAND,
    V_LEGAL,
    V_NO_TRUMPS,
    V_PLAYED,
    V_POSSIBLE,
    V_SEAT,
    V_TRICK_CARDS,
    V_TRICK_SIZE,
    V_TRICK_WIN_CARD,
    V_TRICK_WINNER,
    V_TRUMP,
    V_UNSEEN,
    V_VOIDS,
)
from baloot_env.cards import ACE, ALL_CARDS_MASK, NUM_RANKS, NUM_SUITS, TEN
from baloot_env.cards import PLAIN_STRENGTH as _PLAIN_STRENGTH
from baloot_env.cards import TRUMP_STRENGTH as _TRUMP_STRENGTH
from baloot_env.seats import NUM_SEATS


# ---------------------------------------------------------------------- R5 (card_play.py)
@njit
def _higher(card: int, trump: int) -> int:
    return HIGHER_TRUMP[card] if card >> 3 == trump else _HIGHER_PLAIN[card]


@njit
def _points(card: int, trump: int) -> int:
    return CARD_POINTS[trump if trump >= 0 else _SUN_ROW, card]


@njit
def _order(card: int, trump: int) -> int:
    """``card_play.order``: plain strength 0-7, trumps 8-15."""
    return _TRUMP_STRENGTH[card & 7] + NUM_RANKS if card >> 3 == trump else _PLAIN_STRENGTH[card & 7]


@njit
def _is_master(v: np.ndarray, card: int) -> bool:
    return (v[V_UNSEEN] & _higher(card, v[V_TRUMP])) == 0


@njit
def _likely_void(v: np.ndarray, r: int, suit: int) -> bool:
    return (v[V_VOIDS + r] >> suit & 1) != 0 or popcount(v[V_POSSIBLE + r] & SUIT_MASK[suit]) <= 1


@njit
def _can_beat(v: np.ndarray, r: int, card: int, led: int) -> bool:
    """``Table.can_beat``: seat r, still to play, might take a trick ``card`` is winning."""
    trump = v[V_TRUMP]
    poss = v[V_POSSIBLE + r]
    if card >> 3 == trump:
        if not poss & HIGHER_TRUMP[card]:
            return False
        return led == trump or _likely_void(v, r, led)
    if poss & _HIGHER_PLAIN[card]:
        return True
    return trump >= 0 and (poss & SUIT_MASK[trump]) != 0 and _likely_void(v, r, led)


@njit
def _ruff_risk(v: np.ndarray, suit: int) -> bool:
    """``Table.ruff_risk``: an opponent might trump a lead of ``suit`` (R5.4)."""
    trump = v[V_TRUMP]
    if trump < 0 or suit == trump:
        return False
    tm = SUIT_MASK[trump]
    seat = v[V_SEAT]
    for r in ((seat + 1) % NUM_SEATS, (seat + 3) % NUM_SEATS):
        if v[V_POSSIBLE + r] & tm and _likely_void(v, r, suit):
            return True
    return False


@njit
def _beats(card: int, best: int, trump: int) -> bool:
    if card >> 3 == best >> 3:
        return (_higher(best, trump) >> card & 1) != 0
    return card >> 3 == trump


@njit
def _any_opp_beats(v: np.ndarray, card: int, led: int) -> bool:
    """Whether an opponent still to play after the seat might beat ``card``."""
    seat = v[V_SEAT]
    for k in range(1, NUM_SEATS - v[V_TRICK_SIZE]):
        r = (seat + k) % NUM_SEATS
        if (r & 1) != (seat & 1) and _can_beat(v, r, card, led):
            return True
    return False


@njit
def _low(v: np.ndarray, legal: int) -> int:
    """``card_play._low``: min of (is trump, points + 6 for a master, order), first on ties."""
    trump = v[V_TRUMP]
    best, best_key = -1, 0
    m = legal
    while m:
        c = _lowest(m)
        m &= m - 1
        key = (1000 if c >> 3 == trump else 0) + 32 * (_points(c, trump) + (6 if _is_master(v, c) else 0))
        key += _order(c, trump)
        if best < 0 or key < best_key:
            best, best_key = c, key
    return best


@njit
def _smear(v: np.ndarray, legal: int) -> int:
    """``card_play._smear``: give the partner points, keep trumps and masters."""
    trump = v[V_TRUMP]
    plain = legal & ~SUIT_MASK[trump] if trump >= 0 else legal
    if not plain:
        return _min_by_trump_strength(legal)
    best, best_key = -1, 0
    m = plain
    while m:
        c = _lowest(m)
        m &= m - 1
        key = 16 * (_PLAIN_POINTS[c & 7] - (6 if _is_master(v, c) else 0)) - _PLAIN_STRENGTH[c & 7]
        if best < 0 or key > best_key:
            best, best_key = c, key
    return best


@njit
def _lowest(m: int) -> int:
    return popcount((m & -m) - 1)


@njit
def _min_by_trump_strength(cards: int) -> int:
    best = -1
    m = cards
    while m:
        c = _lowest(m)
        m &= m - 1
        if best < 0 or _TRUMP_STRENGTH[c & 7] < _TRUMP_STRENGTH[best & 7]:
            best = c
    return best


@njit
def _max_by_trump_strength(cards: int) -> int:
    best = -1
    m = cards
    while m:
        c = _lowest(m)
        m &= m - 1
        if best < 0 or _TRUMP_STRENGTH[c & 7] > _TRUMP_STRENGTH[best & 7]:
            best = c
    return best


@njit
def _lead(v: np.ndarray, legal: int) -> int:
    """``card_play._lead``."""
    trump = v[V_TRUMP]
    hand = v[V_HAND]
    seat = v[V_SEAT]
    if trump >= 0:
        tm = SUIT_MASK[trump]
        mine = hand & tm
        opp_trumps = (v[V_POSSIBLE + (seat + 1) % NUM_SEATS] | v[V_POSSIBLE + (seat + 3) % NUM_SEATS]) & tm
        if mine and opp_trumps:
            n = popcount(mine)
            top = _max_by_trump_strength(mine)
            ours = (v[V_CALLER] & 1) == (seat & 1)
            if _is_master(v, top) and (ours or n >= 3):
                return top  # draw trumps with the master
            if ours and seat == v[V_CALLER] and n >= 4:
                return _min_by_trump_strength(mine)
    # Cash sure winners: masters nobody is likely to trump (the first of the most points).
    best, best_pts = -1, -1
    m = legal
    while m:
        c = _lowest(m)
        m &= m - 1
        if c >> 3 == trump or not _is_master(v, c) or _ruff_risk(v, c >> 3):
            continue
        p = _PLAIN_POINTS[c & 7]
        if p > best_pts:
            best, best_pts = c, p
    if best >= 0:
        return best
    plain = legal & ~SUIT_MASK[trump] if trump >= 0 else legal
    if not plain:
        top = _max_by_trump_strength(legal)
        return top if _is_master(v, top) else _min_by_trump_strength(legal)
    # Lead low from the suit that costs least; the cost is a float, computed as Python does
    # (an int, then ``+= 0.2 * length`` or ``-= 0.2 * length``), suits in ascending order.
    best_cost = 1e9
    choice = _lowest(plain)
    unseen = v[V_UNSEEN]
    for suit in range(NUM_SUITS):
        cards = plain & SUIT_MASK[suit]
        if not cards:
            continue
        low, low_key = -1, 0
        m = cards
        while m:
            c = _lowest(m)
            m &= m - 1
            key = 8 * _PLAIN_POINTS[c & 7] + _PLAIN_STRENGTH[c & 7]
            if low < 0 or key < low_key:
                low, low_key = c, key
        icost = _PLAIN_POINTS[low & 7]
        if hand >> (8 * suit + TEN) & 1 and unseen >> (8 * suit + ACE) & 1:
            icost += 6  # leading the suit exposes our ten to their ace
        if _ruff_risk(v, suit):
            icost += 3
        if trump >= 0:
            cost = icost + 0.2 * popcount(cards)
        else:
            cost = icost - 0.2 * popcount(cards)
        if cost < best_cost:
            best_cost, choice = cost, low
    return choice


@njit
def _follow(v: np.ndarray, legal: int) -> int:
    """``card_play._follow``."""
    trump = v[V_TRUMP]
    seat = v[V_SEAT]
    size = v[V_TRICK_SIZE]
    led = v[V_TRICK_CARDS] >> 3
    win_card = v[V_TRICK_WIN_CARD]
    if v[V_TRICK_WINNER] == (seat + 2) % NUM_SEATS:
        if not _any_opp_beats(v, win_card, led):
            return _smear(v, legal)
        return _low(v, legal)
    winners = 0
    m = legal
    while m:
        c = _lowest(m)
        m &= m - 1
        if _beats(c, win_card, trump):
            winners |= 1 << c
    if winners:
        safe = 0
        m = winners
        while m:
            c = _lowest(m)
            m &= m - 1
            if not _any_opp_beats(v, c, led):
                safe |= 1 << c
        if safe:
            plain = safe & ~SUIT_MASK[trump] if trump >= 0 else safe
            if plain:
                opp_after = size <= 2  # the next seat, an opponent, has yet to play
                best, best_key = -1, 0
                m = plain
                while m:
                    c = _lowest(m)
                    m &= m - 1
                    if opp_after:
                        key = -_PLAIN_STRENGTH[c & 7]  # min strength
                    else:
                        key = 16 * _PLAIN_POINTS[c & 7] - _PLAIN_STRENGTH[c & 7]  # max (points, -strength)
                    if best < 0 or key > best_key:
                        best, best_key = c, key
                return best
            return _min_by_trump_strength(safe)
        trick_pts = 0
        for i in range(size):
            trick_pts += _points(v[V_TRICK_CARDS + i], trump)
        if trick_pts >= RICH_TRICK and size >= 2:  # the partner has played: nobody of ours after
            best = -1
            m = winners
            while m:
                c = _lowest(m)
                m &= m - 1
                if best < 0 or _order(c, trump) > _order(best, trump):
                    best = c
            return best
    return _low(v, legal)


@njit
def card_action(v: np.ndarray) -> int:
    """``card_play.choose_card`` on the view row ``v`` (fills its derived columns)."""
    legal = v[V_LEGAL] & ALL_CARDS_MASK
    if legal & (legal - 1) == 0:
        return _lowest(legal)
    seat = v[V_SEAT]
    played = 0
    for r in range(NUM_SEATS):
        played |= v[V_PLAYED + r]
    unseen = ~(played | v[V_HAND]) & ALL_CARDS_MASK
    v[V_UNSEEN] = unseen
    for r in range(NUM_SEATS):
        v[V_POSSIBLE + r] = 0 if r == seat else unseen & ~_VOID_MASK[v[V_VOIDS + r]] & ~v[V_NO_TRUMPS + r]
    if v[V_TRICK_SIZE] == 0:
        return _lead(v, legal)
    return _follow(v, legal)
