"""Observations written in place: ``baloot_env.observation.encode``'s layout (OBS_VERSION), batched.

Every offset below is read from ``observation.PIECES`` through ``piece_slice`` at import, and
the sizes the kernel relies on are checked against the pieces, so the two encoders cannot drift
apart silently; ``tests/baloot_env/test_batch_core.py`` compares them bit for bit.
"""

from __future__ import annotations

import numpy as np

from baloot_env.actions import HOKUM_BASE, PASS, SUN_ACTION
from baloot_env.batch.bits import lowest_index
from baloot_env.batch.jit import njit
from baloot_env.batch.state import (
    BALOOT_ANNOUNCED,
    BALOOT_SEAT,
    BID_ROUND,
    BIDS,
    CALLER,
    CONTRACT,
    DEAL,
    DEAL_TURNED,
    DEALER,
    DEALS_PLAYED,
    DOUBLING_CALLS,
    EPISODE_HANDS,
    HANDS,
    HANDS_SCORED,
    LAST_RAISER,
    LEVEL,
    MATCH_SCORE,
    NO_TRUMPS,
    PHASE,
    PLAYED_BY,
    PROJECT_CARDS,
    PROJECT_KINDS,
    RAW,
    SW_EPISODE,
    SW_HANDS,
    TRICK_CARDS,
    TRICK_LEADER,
    TRICK_SIZE,
    TRICK_WINNER,
    TRICKS_PLAYED,
    TRICKS_WON,
    TRUMP,
    VOIDS,
)
from baloot_env.cards import HOKUM_RAW_TOTAL, NUM_SEATS, NUM_SUITS, NUM_TRICKS
from baloot_env.observation import OBS_SIZE, OBS_VERSION, PIECES, piece_slice
from baloot_env.rules import HANDS_CHOICES, MAX_DEALS, TARGET_SCORE

RELATIVE = ("me", "next", "partner", "previous")  # the observation's seat order from the observer
_SIZES = {p.name: p.size for p in PIECES}


def _start(name: str, size: int) -> int:
    if _SIZES[name] != size:
        raise RuntimeError(f"observation piece {name!r} has size {_SIZES[name]}, the batched encoder writes {size}")
    return piece_slice(name).start


_CALLS_PER_SEAT = 6  # pass, hokum S H D C, sun
_DOUBLING_PER_SEAT = 5  # passed, double, three, four, gahwa
O_HAND = _start("hand", 32)
O_TURNED = _start("turned_card", 32)
O_PLAYED = tuple(_start(f"played_{r}", 32) for r in RELATIVE)
O_TRICK = tuple(_start(f"trick_card_{j}", 32) for j in (1, 2, 3))
O_NO_TRUMPS = tuple(_start(f"no_trumps_{r}", 32) for r in RELATIVE)
O_PROJECT_CARDS = tuple(_start(f"project_cards_{r}", 32) for r in RELATIVE)
O_PHASE = _start("phase", 4)
O_DEALER = _start("dealer", NUM_SEATS)
O_ROUND = _start("bid_round", 2)
O_BIDS = (_start("bids_round_1", NUM_SEATS * _CALLS_PER_SEAT), _start("bids_round_2", NUM_SEATS * _CALLS_PER_SEAT))
O_DOUBLING = _start("doubling_calls", NUM_SEATS * _DOUBLING_PER_SEAT)
O_CONTRACT = _start("contract", 2)
O_TRUMP = _start("trump", NUM_SUITS)
O_CALLER = _start("caller", NUM_SEATS)
O_LEVEL = _start("level", 5)
O_RAISER = _start("last_raiser", NUM_SEATS)
O_LEADER = _start("trick_leader", NUM_SEATS)
O_WINNING = _start("trick_winning", NUM_SEATS)
O_VOIDS = _start("voids", NUM_SEATS * NUM_SUITS)
O_KINDS = _start("project_kinds", NUM_SEATS * 4)
O_BALOOT = _start("baloot", NUM_SEATS)
O_MODE = _start("match_mode", 3)
O_TRICKS = _start("tricks_won", 2)
O_RAW = _start("raw_points", 2)
O_TRICK_NUMBER = _start("trick_number", 1)
O_SCORE = _start("match_score", 2)
O_DEALS = _start("deals_played", 1)
O_HANDS_LEFT = _start("hands_left", 1)
MAX_HANDS = max(HANDS_CHOICES)
__all__ = ["OBS_SIZE", "OBS_VERSION", "encode_row"]


@njit
def _write_cards(row: np.ndarray, offset: int, mask: int) -> None:
    m = mask
    while m:
        low = m & -m
        row[offset + lowest_index(low)] = 1.0
        m ^= low


@njit
def _call_index(action: int) -> int:
    """A call's place in its seat's one-hot: pass, hokum S H D C, sun."""
    if action == PASS:
        return 0
    if action == SUN_ACTION:
        return _CALLS_PER_SEAT - 1
    return 1 + action - HOKUM_BASE


@njit
def encode_row(s: np.ndarray, sw: np.ndarray, g: int, seat: int, row: np.ndarray) -> None:
    """Write the observation of ``seat`` in game g into ``row`` (float32[OBS_SIZE]), as ``encode``."""
    row[:] = 0.0
    size = s[g, TRICK_SIZE]
    leader = s[g, TRICK_LEADER]
    started = s[g, TRICKS_PLAYED] > 0
    _write_cards(row, O_HAND, s[g, HANDS + seat])
    row[O_TURNED + s[g, DEAL + DEAL_TURNED]] = 1.0
    for i in range(NUM_SEATS):
        other = (seat + i) & 3
        _write_cards(row, O_PLAYED[i], s[g, PLAYED_BY + other])
        _write_cards(row, O_NO_TRUMPS[i], s[g, NO_TRUMPS + other])
        in_trick = size > 0 and ((other - leader) & 3) < size
        if i == 0 or started or in_trick:  # R6.2: public from the holder's first card
            _write_cards(row, O_PROJECT_CARDS[i], s[g, PROJECT_CARDS + other])
            for j in range(2):
                k = s[g, PROJECT_KINDS + 2 * other + j]
                if k >= 0:
                    row[O_KINDS + 4 * i + k] += 0.5
        voids = s[g, VOIDS + other]
        for suit in range(NUM_SUITS):
            if voids >> suit & 1:
                row[O_VOIDS + NUM_SUITS * i + suit] = 1.0
        for rnd in range(2):
            a = s[g, BIDS + NUM_SEATS * rnd + other]
            if a >= 0:
                row[O_BIDS[rnd] + _CALLS_PER_SEAT * i + _call_index(a)] = 1.0
        calls = s[g, DOUBLING_CALLS + other]
        for b in range(_DOUBLING_PER_SEAT):
            if calls >> b & 1:
                row[O_DOUBLING + _DOUBLING_PER_SEAT * i + b] = 1.0
    for j in range(size):
        row[O_TRICK[j] + s[g, TRICK_CARDS + j]] = 1.0
    row[O_PHASE + s[g, PHASE]] = 1.0
    row[O_DEALER + ((s[g, DEALER] - seat) & 3)] = 1.0
    row[O_ROUND + s[g, BID_ROUND] - 1] = 1.0
    if s[g, CONTRACT] >= 0:
        row[O_CONTRACT + s[g, CONTRACT]] = 1.0
        row[O_CALLER + ((s[g, CALLER] - seat) & 3)] = 1.0
        if s[g, TRUMP] >= 0:
            row[O_TRUMP + s[g, TRUMP]] = 1.0
        row[O_LEVEL + s[g, LEVEL] - 1] = 1.0
        if s[g, LAST_RAISER] >= 0:
            row[O_RAISER + ((s[g, LAST_RAISER] - seat) & 3)] = 1.0
    if size > 0:
        row[O_LEADER + ((leader - seat) & 3)] = 1.0
        row[O_WINNING + ((s[g, TRICK_WINNER] - seat) & 3)] = 1.0
    if s[g, BALOOT_ANNOUNCED]:
        row[O_BALOOT + ((s[g, BALOOT_SEAT] - seat) & 3)] = 1.0
    episode = sw[SW_EPISODE]
    row[O_MODE + episode] = 1.0
    my = seat & 1
    their = 1 - my
    # The scalar tail, as encode computes it: in float64, then rounded to float32 on the store.
    row[O_TRICKS] = s[g, TRICKS_WON + my] / float(NUM_TRICKS)
    row[O_TRICKS + 1] = s[g, TRICKS_WON + their] / float(NUM_TRICKS)
    row[O_RAW] = s[g, RAW + my] / float(HOKUM_RAW_TOTAL)
    row[O_RAW + 1] = s[g, RAW + their] / float(HOKUM_RAW_TOTAL)
    row[O_TRICK_NUMBER] = s[g, TRICKS_PLAYED] / float(NUM_TRICKS)
    row[O_SCORE] = min(s[g, MATCH_SCORE + my] / TARGET_SCORE, 1.0)
    row[O_SCORE + 1] = min(s[g, MATCH_SCORE + their] / TARGET_SCORE, 1.0)
    row[O_DEALS] = min(s[g, DEALS_PLAYED] / MAX_DEALS, 1.0)
    if episode == EPISODE_HANDS:
        row[O_HANDS_LEFT] = max(sw[SW_HANDS] - s[g, HANDS_SCORED], 0) / float(MAX_HANDS)
