"""``endgame.solve`` as a numba kernel on a row of the batched core.

The same exact perfect-information alpha-beta as ``agents.search_player.endgame``: the seats of
``team`` maximise, the others minimise, and a finished hand is worth the leaf value (its score
for ``team`` minus the other's, R6, R7). The search is iterative (an explicit stack of frames,
one per card played) instead of recursive, and visits the cards in the same ascending order;
alpha-beta returns the exact minimax value whatever the order, so the value equals the Python
solver's (``tests/agents/test_search_core.py``).

The leaf is scored by the core itself: the world's row with the final card points and tricks
written in, through ``results.finish_played`` (R6.3-R6.5, R7), as ``player.leaf_function`` does
with the engine's ``score_hand``; values are cached per world in ``cache`` (``LEAF_CACHE_SIZE``
entries, ``NO_VALUE`` when not yet known).

Positions at the start of a trick are kept in a transposition table (``table``, ``TABLE_SIZE``
entries of key, stamp, lower and upper bound). In one world the four hands are fixed, so the
cards still held, the seat to lead and team 0's points and tricks so far (the leaf's arguments)
settle the rest of the hand: that is the key. The table is shared by every world a process
solves; each world gets its own ``stamp`` (``claim_stamps``), and an entry of another stamp is
empty, so the table is never wiped. A bound found under an alpha-beta window is stored as such
(fail-soft: at most the value when it failed low, at least it when it failed high), so a probe
returns a value only where it is exact or cuts the window; the tests re-solve every root card
with a fresh table and must get the same value.
"""

from __future__ import annotations

import numpy as np

from agents.search_player.jit import njit
from baloot_env.batch.bits import lowest_index
from baloot_env.batch.results import finish_played
from baloot_env.batch.state import (
    CONTRACT,
    HANDS,
    R_SCORE,
    RAW,
    TO_ACT,
    TRICK_CARDS,
    TRICK_SIZE,
    TRICK_WIN_CARD,
    TRICK_WINNER,
    TRICKS_PLAYED,
    TRICKS_WON,
    TRUMP,
)
from baloot_env.batch.tables import CARD_POINTS, HIGHER_TRUMP, PLAIN_RANK_STRENGTH, SUIT_MASK, TRUMP_RANK_STRENGTH
from baloot_env.cards import (
    HOKUM_RAW_TOTAL,
    LAST_TRICK_BONUS,
    NUM_RANKS,
    NUM_SEATS,
    NUM_SUITS,
    NUM_TRICKS,
    SUN_RAW_TOTAL,
)

# Per contract (HOKUM 0, SUN 1): the hand's card points, last trick included (R1.4).
_RAW_TOTAL = np.array([HOKUM_RAW_TOTAL, SUN_RAW_TOTAL], dtype=np.int64)
NO_VALUE = np.iinfo(np.int64).min  # a leaf not yet scored
LEAF_CACHE_SIZE = (HOKUM_RAW_TOTAL + 1) * (NUM_TRICKS + 1)  # (team 0 raw, team 0 tricks)
_MAX_DEPTH = NUM_SEATS * NUM_TRICKS + 1
_INF = np.inf
TABLE_BITS = 18
TABLE_SIZE = 1 << TABLE_BITS  # entries of the transposition table: 8 MB
KEY, STAMP, LOWER, UPPER = 0, 1, 2, 3  # an entry's columns
_UNBOUNDED = 1 << 40  # an entry's missing bound (values are game points, far inside)
_MIX_KEY = np.uint64(0x9E3779B97F4A7C15)
_MIX_STAMP = np.uint64(0xC2B2AE3D27D4EB4F)
_INDEX_SHIFT = np.uint64(64 - TABLE_BITS)
TABLE_TRICKS = 2  # trick starts with this many tricks left or more use the table; smaller ones are cheaper searched
ORDER_CARDS = 12  # frames with more cards left than this try the likeliest best card first; others the lowest


class _Stamps:
    """The process's transposition table and its next unused stamp (stamp 0 marks an empty entry)."""

    table: np.ndarray | None = None
    next_stamp = 1


def claim_stamps(n: int) -> tuple[np.ndarray, int]:
    """The process's transposition table and the first of ``n`` stamps no solve has used: one per
    world, so entries of earlier worlds read as empty without wiping the table."""
    if _Stamps.table is None:
        _Stamps.table = np.zeros((TABLE_SIZE, 4), dtype=np.int64)
    first = _Stamps.next_stamp
    _Stamps.next_stamp += n
    return _Stamps.table, first


def new_table() -> np.ndarray:
    """An empty transposition table of one's own (tests, tools): use it with stamps from 1."""
    return np.zeros((TABLE_SIZE, 4), dtype=np.int64)


@njit
def _slot(key: int, stamp: int) -> int:
    """The table row of ``key`` solved in the world of ``stamp``."""
    h = np.uint64(key) * _MIX_KEY ^ np.uint64(stamp) * _MIX_STAMP
    return int(h >> _INDEX_SHIFT)


@njit
def _store(table: np.ndarray, key: int, stamp: int, value: float, alpha: float, beta: float) -> None:
    """Record a trick-start position's fail-soft result under the window (alpha, beta)."""
    v = int(value)
    lower = v if v > alpha else -_UNBOUNDED
    upper = v if v < beta else _UNBOUNDED
    i = _slot(key, stamp)
    if table[i, KEY] == key and table[i, STAMP] == stamp:
        lower = max(lower, table[i, LOWER])
        upper = min(upper, table[i, UPPER])
    table[i, KEY], table[i, STAMP], table[i, LOWER], table[i, UPPER] = key, stamp, lower, upper


@njit
def leaf_value(world: np.ndarray, r: np.ndarray, sw: np.ndarray, team: int, raw0: int, tricks0: int, cache) -> int:
    """Value for ``team`` of the world's hand finished with team 0 at ``raw0`` points (last trick
    included) and ``tricks0`` tricks: ``world`` is a 1-row scratch copy of the world's row."""
    key = raw0 * (NUM_TRICKS + 1) + tricks0
    v = cache[key]
    if v != NO_VALUE:
        return v
    world[0, RAW] = raw0
    world[0, RAW + 1] = _RAW_TOTAL[world[0, CONTRACT]] - raw0
    world[0, TRICKS_WON] = tricks0
    world[0, TRICKS_WON + 1] = NUM_TRICKS - tricks0
    finish_played(world, r, sw, 0)  # R6.3-R6.5, R7 (it also marks the scratch row done)
    v = r[0, R_SCORE + team] - r[0, R_SCORE + 1 - team]
    cache[key] = v
    return v


@njit
def legal_cards(hand: int, seat: int, led: int, win_seat: int, win_card: int, trump: int) -> int:
    """R5.1-R5.4 on a compact position, as ``baloot_env.play.legal_cards``."""
    if led < 0:
        return hand  # R5.1
    follow = hand & SUIT_MASK[led]
    if follow:
        if led == trump:  # R5.2: overtrump when able
            higher = follow & HIGHER_TRUMP[win_card]
            return higher if higher else follow
        return follow  # R5.2
    if trump < 0:
        return hand  # R5.3
    if win_seat == (seat + 2) % NUM_SEATS:
        return hand  # R5.4: partner winning
    trumps = hand & SUIT_MASK[trump]
    if not trumps:
        return hand  # R5.4: no trump
    if win_card >> 3 == trump:
        higher = trumps & HIGHER_TRUMP[win_card]
        return higher if higher else trumps  # R5.4
    return trumps


@njit
def _order(card: int, trump: int) -> int:
    """A total trick order with trumps above plain cards (R1.3), as ``endgame.tables``."""
    if card >> 3 == trump:
        return TRUMP_RANK_STRENGTH[card & 7] + NUM_RANKS
    return PLAIN_RANK_STRENGTH[card & 7]


@njit
def _ordered(legal: int, seat: int, n: int, win_seat: int, win_card: int, trump: int, prow: int, out, keys) -> int:
    """Write the ``legal`` cards into ``out``, the likeliest best first, and return how many.

    Alpha-beta's value does not depend on the order, only its speed: a lead tries its strongest
    cards first; a follow tries the cards that take the trick (the cheapest one first when the
    seat plays last), then, with the partner winning, the richest cards, else the poorest.
    ``keys`` is scratch space for the sort.
    """
    count = 0
    m = legal
    while m:
        low = m & -m
        m ^= low
        c = lowest_index(low)
        points = CARD_POINTS[prow, c]
        if n == 0:
            key = _order(c, trump) * 32 + points
        elif (c >> 3 == trump or c >> 3 == win_card >> 3) and _order(c, trump) > _order(win_card, trump):
            key = 4096 - _order(c, trump) if n == NUM_SEATS - 1 else 2048 + _order(c, trump)
        elif win_seat == (seat + 2) % NUM_SEATS:
            key = 1024 + points
        else:
            key = 512 - points * 16 - _order(c, trump)
        i = count  # insertion, highest key first
        while i > 0 and keys[i - 1] < key:
            keys[i], out[i] = keys[i - 1], out[i - 1]
            i -= 1
        keys[i], out[i] = key, c
        count += 1
    return count


@njit
def solve_row(s: np.ndarray, g: int, team: int, world, r, sw, cache, table, stamp: int) -> float:
    """Minimax value for ``team`` of game g's position (all hands known), as ``endgame.solve``.

    ``s[g]`` is not changed; ``world``, ``r`` and ``cache`` are ``leaf_value``'s; ``table`` is the
    transposition table and ``stamp`` the world's (module docstring).
    """
    trump = s[g, TRUMP]
    prow = trump if trump >= 0 else NUM_SUITS  # CARD_POINTS' Sun row
    hands = np.empty(NUM_SEATS, dtype=np.int64)
    for seat in range(NUM_SEATS):
        hands[seat] = s[g, HANDS + seat]
    f_seat = np.empty(_MAX_DEPTH, dtype=np.int64)
    f_n = np.empty(_MAX_DEPTH, dtype=np.int64)  # cards on the table before this frame's card
    f_led = np.empty(_MAX_DEPTH, dtype=np.int64)
    f_ws = np.empty(_MAX_DEPTH, dtype=np.int64)
    f_wc = np.empty(_MAX_DEPTH, dtype=np.int64)
    f_tp = np.empty(_MAX_DEPTH, dtype=np.int64)  # points on the table
    f_r0 = np.empty(_MAX_DEPTH, dtype=np.int64)
    f_t0 = np.empty(_MAX_DEPTH, dtype=np.int64)
    f_left = np.empty(_MAX_DEPTH, dtype=np.int64)  # tricks left, the current one included
    f_moves = np.empty(_MAX_DEPTH, dtype=np.int64)  # legal cards not yet tried
    f_order = np.empty(
        (_MAX_DEPTH, NUM_TRICKS), dtype=np.int64
    )  # in a large endgame: the legal cards, best guess first
    f_next = np.empty(_MAX_DEPTH, dtype=np.int64)  # the next of them to try; -1: the lowest card left next
    keys = np.empty(NUM_TRICKS, dtype=np.int64)
    f_hand = np.empty(_MAX_DEPTH, dtype=np.int64)  # the seat's hand before its card
    f_max = np.empty(_MAX_DEPTH, dtype=np.bool_)
    f_alpha = np.empty(_MAX_DEPTH, dtype=np.float64)
    f_beta = np.empty(_MAX_DEPTH, dtype=np.float64)
    f_best = np.empty(_MAX_DEPTH, dtype=np.float64)
    f_key = np.empty(_MAX_DEPTH, dtype=np.int64)  # a trick start's table key, else -1
    f_a0 = np.empty(_MAX_DEPTH, dtype=np.float64)  # the window the frame was searched with
    f_b0 = np.empty(_MAX_DEPTH, dtype=np.float64)

    size = s[g, TRICK_SIZE]
    tp = 0
    for i in range(size):
        tp += CARD_POINTS[prow, s[g, TRICK_CARDS + i]]
    led = s[g, TRICK_CARDS] >> 3 if size > 0 else -1
    d = 0
    seat = s[g, TO_ACT]
    f_seat[0], f_n[0], f_led[0] = seat, size, led
    f_ws[0], f_wc[0], f_tp[0] = (s[g, TRICK_WINNER], s[g, TRICK_WIN_CARD], tp) if size > 0 else (-1, -1, 0)
    f_r0[0], f_t0[0], f_left[0] = s[g, RAW], s[g, TRICKS_WON], NUM_TRICKS - s[g, TRICKS_PLAYED]
    f_alpha[0], f_beta[0] = -_INF, _INF
    f_key[0] = -1
    # the table and the ordering pay only in larger endgames: smaller ones are searched plainly
    tricks_from = TABLE_TRICKS if NUM_SEATS * f_left[0] - size > ORDER_CARDS else NUM_TRICKS + 1
    while True:
        # A new frame at depth d: its seat's legal cards (the frame's fields are set).
        seat = f_seat[d]
        f_hand[d] = hands[seat]
        legal = legal_cards(hands[seat], seat, f_led[d], f_ws[d], f_wc[d], trump)
        f_moves[d] = legal
        f_next[d] = -1  # the lowest card first
        if NUM_SEATS * f_left[d] - f_n[d] > ORDER_CARDS:
            _ordered(legal, seat, f_n[d], f_ws[d], f_wc[d], trump, prow, f_order[d], keys)
            f_next[d] = 0
        f_max[d] = seat % 2 == team
        f_best[d] = -_INF if f_max[d] else _INF
        pushed = False
        while not pushed:
            if f_moves[d] == 0 or f_alpha[d] >= f_beta[d]:  # the frame is done: fold its value up
                v = f_best[d]
                hands[f_seat[d]] = f_hand[d]
                if f_key[d] >= 0:
                    _store(table, f_key[d], stamp, v, f_a0[d], f_b0[d])
                if d == 0:
                    return v
                d -= 1
            else:
                if f_next[d] < 0:
                    low = f_moves[d] & -f_moves[d]
                    c = lowest_index(low)
                else:
                    c = f_order[d, f_next[d]]
                    f_next[d] += 1
                    low = 1 << c
                f_moves[d] ^= low
                seat = f_seat[d]
                hands[seat] = f_hand[d] ^ low
                n, led, ws, wc = f_n[d], f_led[d], f_ws[d], f_wc[d]
                if n == 0:
                    led, ws, wc = c >> 3, seat, c
                elif (c >> 3 == trump or c >> 3 == led) and _order(c, trump) > _order(wc, trump):
                    ws, wc = seat, c
                tp = f_tp[d] + CARD_POINTS[prow, c]
                if n < NUM_SEATS - 1:
                    e = d + 1
                    f_seat[e], f_n[e], f_led[e] = (seat + 1) % NUM_SEATS, n + 1, led
                    f_ws[e], f_wc[e], f_tp[e] = ws, wc, tp
                    f_r0[e], f_t0[e], f_left[e] = f_r0[d], f_t0[d], f_left[d]
                    f_alpha[e], f_beta[e] = f_alpha[d], f_beta[d]
                    f_key[e] = -1
                    d = e
                    pushed = True
                    continue
                left = f_left[d]  # R5.5: the trick is complete
                if left == 1:
                    tp += LAST_TRICK_BONUS  # R1.4
                r0, t0 = f_r0[d], f_t0[d]
                if ws % 2 == 0:
                    r0 += tp
                    t0 += 1
                if left > 1:  # a trick start: its table entry, else its frame
                    key, lower, upper = -1, -_UNBOUNDED, _UNBOUNDED
                    alpha, beta = f_alpha[d], f_beta[d]
                    if left > tricks_from:  # the new frame has TABLE_TRICKS tricks left or more
                        key = hands[0] | hands[1] | hands[2] | hands[3] | ws << 32 | r0 << 34 | t0 << 44
                        i = _slot(key, stamp)
                        if table[i, KEY] == key and table[i, STAMP] == stamp:
                            lower, upper = table[i, LOWER], table[i, UPPER]
                    if lower == upper or lower >= beta:
                        v = float(lower)
                    elif upper <= alpha:
                        v = float(upper)
                    else:
                        e = d + 1
                        f_seat[e], f_n[e], f_led[e] = ws, 0, -1
                        f_ws[e], f_wc[e], f_tp[e] = -1, -1, 0
                        f_r0[e], f_t0[e], f_left[e] = r0, t0, left - 1
                        f_alpha[e], f_beta[e] = max(alpha, float(lower)), min(beta, float(upper))
                        f_key[e], f_a0[e], f_b0[e] = key, f_alpha[e], f_beta[e]
                        d = e
                        pushed = True
                        continue
                else:
                    v = float(leaf_value(world, r, sw, team, r0, t0, cache))
            # Fold v into frame d.
            if f_max[d]:
                if v > f_best[d]:
                    f_best[d] = v
                    if v > f_alpha[d]:
                        f_alpha[d] = v
            elif v < f_best[d]:
                f_best[d] = v
                if v < f_beta[d]:
                    f_beta[d] = v
