"""Projects and the baloot (R6), as ``baloot_env.projects`` declares and compares them.

A project is handled as its kind (``tables.KINDS``) and its R6.3 key packed into one int:
``category * 16 + is_run * 8 + top`` orders exactly as the engine's key tuples.
"""

from __future__ import annotations

import numpy as np

from baloot_env.batch.jit import njit
from baloot_env.batch.state import DEALER, PROJECT_KEY
from baloot_env.batch.tables import (
    KIND_CATEGORY,
    KIND_FOUR_HUNDRED,
    KIND_HUNDRED,
    KIND_VALUE,
    QUAD_RANK,
    RANK_MASK,
    RUN_BITS,
    RUN_COUNT,
    RUN_KIND,
    RUN_TOP,
)
from baloot_env.cards import ACE, KING, NUM_SEATS, NUM_SUITS, QUEEN


@njit
def project_key(kind: int, is_run: int, top: int) -> int:
    """The R6.3 comparison key as one int (higher is better; 0 is no project)."""
    return KIND_CATEGORY[kind] * 16 + is_run * 8 + top


@njit
def _runs(mask: int, col: int) -> tuple[int, int, int, int, int, int]:
    """The maximal runs of ``mask`` (R6.1, run order R1.5), in the engine's order.

    Returns (count, total value in contract column ``col``, best key, union of their cards,
    first kind or -1, second kind or -1); eight cards hold at most two runs.
    """
    n = 0
    total = 0
    best = 0
    union = 0
    kind0 = -1
    kind1 = -1
    for suit in range(NUM_SUITS):
        b = (mask >> (8 * suit)) & 0xFF
        for i in range(RUN_COUNT[b]):
            k = RUN_KIND[b, i]
            if n == 0:
                kind0 = k
            else:
                kind1 = k
            union |= RUN_BITS[b, i] << (8 * suit)
            total += KIND_VALUE[k, col]
            key = project_key(k, 1, RUN_TOP[b, i])
            if key > best:
                best = key
            n += 1
    return n, total, best, union, kind0, kind1


@njit
def declare_projects(hand: int, hokum: bool, aces_hundred: bool) -> tuple[int, int, int, int]:
    """The projects declared from an 8-card hand (R6.1), as ``projects.declare_projects``.

    Every choice of four-of-a-kinds is tried, in the engine's order (ranks T J Q K A as the
    bits of ``pick``), and the cards left form maximal runs; the highest total in the
    contract's values wins, then the best R6.3 key, and the first such choice on a tie. Eight
    cards hold at most two fours and at most two projects.

    Returns:
        (kind of the first project or -1, kind of the second or -1, union of their cards,
        best R6.3 key or 0).
    """
    col = 0 if hokum else 1
    nq = 0
    q0_kind, q0_rank, q1_kind, q1_rank = -1, -1, -1, -1
    for i in range(QUAD_RANK.shape[0]):
        r = QUAD_RANK[i]
        if hand & RANK_MASK[r] == RANK_MASK[r]:
            if r == ACE and (not hokum or not aces_hundred):
                k = KIND_FOUR_HUNDRED
            else:
                k = KIND_HUNDRED  # V7 "hundred": four A are an ordinary hundred in Hokum
            if nq == 0:
                q0_kind, q0_rank = k, r
            else:
                q1_kind, q1_rank = k, r
            nq += 1
    if nq == 0:
        _n, _total, best, union, kind0, kind1 = _runs(hand, col)
        return kind0, kind1, union, best
    best_total = -1
    best_key = -1
    out0, out1, out_cards = -1, -1, 0
    for pick in range(1 << nq):
        rest = hand
        union = 0
        total = 0
        key = 0
        kind0, kind1, n = -1, -1, 0
        for i in range(nq):
            if pick >> i & 1:
                k = q0_kind if i == 0 else q1_kind
                r = q0_rank if i == 0 else q1_rank
                if n == 0:
                    kind0 = k
                else:
                    kind1 = k
                n += 1
                total += KIND_VALUE[k, col]
                key = max(key, project_key(k, 0, r))
                rest &= ~RANK_MASK[r]
                union |= RANK_MASK[r]
        rn, rtotal, rkey, runion, r0, r1 = _runs(rest, col)
        if rn > 0:
            if n == 0:
                kind0, kind1 = r0, r1
            else:
                kind1 = r0
        total += rtotal
        union |= runion
        key = max(key, rkey)
        if total > best_total or (total == best_total and key > best_key):
            best_total, best_key = total, key
            out0, out1, out_cards = kind0, kind1, union
    return out0, out1, out_cards, best_key


@njit
def has_baloot(hand: int, trump: int) -> bool:
    """K and Q of trump in one 8-card hand (R6.5)."""
    return (hand >> (8 * trump + KING)) & 1 == 1 and (hand >> (8 * trump + QUEEN)) & 1 == 1


@njit
def project_winner(s: np.ndarray, g: int) -> int:
    """The team holding the single best project (R6.3), or -1 when nobody declared one.

    Exactly equal best projects go to the seat first in play order from the dealer's right.
    """
    best = 0
    team = -1
    dealer = s[g, DEALER]
    for i in range(NUM_SEATS):
        seat = (dealer + 1 + i) % NUM_SEATS
        key = s[g, PROJECT_KEY + seat]
        if key > best:  # strict: the earlier seat keeps a tie
            best = key
            team = seat % 2
    return team
