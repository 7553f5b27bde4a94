"""Deals (R2): each game's random stream, queued deals, the start of a hand and R2.3.

Each game owns a splitmix64 stream (one uint64 of state), seeded from ``(seed, game)`` alone, so
a game's deals depend neither on the batch size nor on how its hands are played. A deal is a
uniform permutation of the 32 cards (Fisher-Yates) laid out as ``random_deal`` lays out its
permutation: 5 cards a seat, the turned card, the 11-card stock (R2.2).
"""

from __future__ import annotations

import numpy as np

from baloot_env.batch.jit import njit
from baloot_env.batch.state import (
    BALOOT_ANNOUNCED,
    BALOOT_SEAT,
    BID_ROUND,
    BIDDING,
    BIDS,
    CALLER,
    CONTRACT,
    DEAL,
    DEAL_DEALER,
    DEAL_HANDS,
    DEAL_STOCK,
    DEAL_TURNED,
    DEALER,
    DOUBLING_CALLS,
    DOUBLING_PASSES,
    FIRST_HAND_SIZE,
    HANDS,
    HOKUM_BIDDER,
    LAST_RAISER,
    LEVEL,
    NO_TRUMPS,
    PHASE,
    PLAYED_BY,
    PROJECT_CARDS,
    PROJECT_KEY,
    PROJECT_KINDS,
    QUEUE_LEN,
    QUEUE_POS,
    RAW,
    SW_ROTATE_QUEUED,
    TO_ACT,
    TRICK_BEST_TRUMP,
    TRICK_CARDS,
    TRICK_LEADER,
    TRICK_SIZE,
    TRICK_WIN_CARD,
    TRICK_WINNER,
    TRICKS_PLAYED,
    TRICKS_WON,
    TRUMP,
    VOIDS,
)
from baloot_env.cards import NUM_CARDS, NUM_SEATS

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)


@njit
def _mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit
def seed_stream(seed: int, game: int) -> np.uint64:
    """The initial stream state of ``game`` under ``seed`` (ints >= 0)."""
    return _mix(_mix(np.uint64(seed) * _GOLDEN + np.uint64(game)) + _GOLDEN)


@njit
def next_u64(rng: np.ndarray, g: int) -> np.uint64:
    """The next 64 random bits of stream ``rng[g]`` (splitmix64)."""
    x = rng[g] + _GOLDEN
    rng[g] = x
    return _mix(x)


@njit
def below(rng: np.ndarray, g: int, n: int) -> int:
    """A random int in [0, n) from stream ``rng[g]`` (32 random bits scaled: bias under n / 2**32)."""
    return np.int64(((next_u64(rng, g) >> _S32) * np.uint64(n)) >> _S32)


@njit
def shuffle_deal(s: np.ndarray, rng: np.ndarray, g: int) -> None:
    """Deal game g a uniformly shuffled pack from its stream (R2.2)."""
    for c in range(NUM_CARDS):
        s[g, DEAL + c] = c
    for i in range(NUM_CARDS - 1, 0, -1):
        j = below(rng, g, i + 1)
        t = s[g, DEAL + i]
        s[g, DEAL + i] = s[g, DEAL + j]
        s[g, DEAL + j] = t


@njit
def next_deal(s: np.ndarray, rng: np.ndarray, queue: np.ndarray, sw: np.ndarray, g: int, dealer: int) -> None:
    """Put game g's next deal in its ``DEAL`` and ``DEALER`` columns: the queue first, then the stream.

    ``dealer`` is the rotation's (R2.1, V9), or -1 at a match's first deal and in a hand episode.
    A queued deal keeps its own dealer (R11.2), unless the switch ``SW_ROTATE_QUEUED`` gives it
    the rotation's, as ``driver.DealSource(dealers="rotate")``. A random deal takes ``dealer``,
    or when that is -1 one drawn from the stream after the cards, as ``random_deal`` draws it.
    """
    pos = s[g, QUEUE_POS]
    if pos < s[g, QUEUE_LEN]:
        for c in range(NUM_CARDS):
            s[g, DEAL + c] = queue[g, pos, c]
        s[g, DEALER] = dealer if dealer >= 0 and sw[SW_ROTATE_QUEUED] else queue[g, pos, DEAL_DEALER]
        s[g, QUEUE_POS] = pos + 1
        return
    shuffle_deal(s, rng, g)
    if dealer < 0:
        dealer = below(rng, g, NUM_SEATS)
    s[g, DEALER] = dealer


@njit
def start_hand(s: np.ndarray, g: int) -> None:
    """Game g at the first call of the deal in its ``DEAL`` columns (R2.2, R3.1), as ``HandState()``."""
    for seat in range(NUM_SEATS):
        m = 0
        for i in range(FIRST_HAND_SIZE):
            m |= 1 << s[g, DEAL + DEAL_HANDS + FIRST_HAND_SIZE * seat + i]
        s[g, HANDS + seat] = m
        s[g, PLAYED_BY + seat] = 0
        s[g, VOIDS + seat] = 0
        s[g, NO_TRUMPS + seat] = 0
        s[g, PROJECT_CARDS + seat] = 0
        s[g, PROJECT_KINDS + 2 * seat] = -1
        s[g, PROJECT_KINDS + 2 * seat + 1] = -1
        s[g, PROJECT_KEY + seat] = 0
        s[g, DOUBLING_CALLS + seat] = 0
        s[g, BIDS + seat] = -1
        s[g, BIDS + NUM_SEATS + seat] = -1
        s[g, TRICK_CARDS + seat] = -1
    s[g, PHASE] = BIDDING
    s[g, TO_ACT] = (s[g, DEALER] + 1) % NUM_SEATS  # R3.1
    s[g, BID_ROUND] = 1
    s[g, HOKUM_BIDDER] = -1
    s[g, CONTRACT] = -1
    s[g, TRUMP] = -1
    s[g, CALLER] = -1
    s[g, LEVEL] = 1
    s[g, LAST_RAISER] = -1
    s[g, DOUBLING_PASSES] = 0
    s[g, BALOOT_SEAT] = -1
    s[g, BALOOT_ANNOUNCED] = 0
    s[g, TRICK_SIZE] = 0
    s[g, TRICK_LEADER] = -1
    s[g, TRICK_WINNER] = -1
    s[g, TRICK_WIN_CARD] = -1
    s[g, TRICK_BEST_TRUMP] = -1
    s[g, TRICKS_PLAYED] = 0
    for t in range(2):
        s[g, TRICKS_WON + t] = 0
        s[g, RAW + t] = 0


@njit
def complete_deal(s: np.ndarray, g: int) -> None:
    """R2.3: hand out the stock from the dealer's right; the caller takes the turned card and 2."""
    dealer = s[g, DEALER]
    caller = s[g, CALLER]
    pos = DEAL + DEAL_STOCK
    for i in range(NUM_SEATS):
        seat = (dealer + 1 + i) % NUM_SEATS
        m = s[g, HANDS + seat]
        if seat == caller:
            m |= 1 << s[g, DEAL + DEAL_TURNED]
            take = 2
        else:
            take = 3
        for _ in range(take):
            m |= 1 << s[g, pos]
            pos += 1
        s[g, HANDS + seat] = m
