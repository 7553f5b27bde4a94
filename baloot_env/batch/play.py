"""Playing the tricks (R5): the legal cards, one card played, what it shows, the trick's end."""

from __future__ import annotations

import numpy as np

from baloot_env.batch.jit import njit
from baloot_env.batch.state import (
    BALOOT_ANNOUNCED,
    BALOOT_SEAT,
    HANDS,
    NO_TRUMPS,
    PLAYED_BY,
    RAW,
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
from baloot_env.batch.tables import CARD_POINTS, HIGHER_TRUMP, PLAIN_RANK_STRENGTH, SUIT_MASK, TRUMP_RANK_STRENGTH
from baloot_env.cards import KING, LAST_TRICK_BONUS, NUM_SEATS, NUM_SUITS, NUM_TRICKS, QUEEN


@njit
def legal_cards(s: np.ndarray, g: int) -> int:
    """R5.1-R5.4 as mask arithmetic, as ``HandState._legal_cards``."""
    seat = s[g, TO_ACT]
    hand = s[g, HANDS + seat]
    if s[g, TRICK_SIZE] == 0:
        return hand  # R5.1: any lead
    led = s[g, TRICK_CARDS] >> 3
    trump = s[g, TRUMP]
    best_trump = s[g, TRICK_BEST_TRUMP]
    follow = hand & SUIT_MASK[led]
    if follow:
        if led == trump:  # R5.2: overtrump when able, even when the partner is winning
            higher = follow & HIGHER_TRUMP[best_trump]
            return higher if higher else follow
        return follow  # R5.2
    if trump < 0:
        return hand  # R5.3
    if s[g, TRICK_WINNER] == (seat + 2) % NUM_SEATS:
        return hand  # R5.4: partner winning
    trumps = hand & SUIT_MASK[trump]
    if not trumps:
        return hand  # R5.4: no trump at all
    if best_trump >= 0:
        higher = trumps & HIGHER_TRUMP[best_trump]
        return higher if higher else trumps  # R5.4: a higher trump when holding one, else any trump
    return trumps


@njit
def play_card(s: np.ndarray, g: int, card: int) -> bool:
    """R5: play one card, record what it shows, close the trick after four.

    Returns True when the eighth trick has closed (the hand is over; R7 follows).
    """
    seat = s[g, TO_ACT]
    bit = 1 << card
    s[g, HANDS + seat] ^= bit
    s[g, PLAYED_BY + seat] |= bit
    suit = card >> 3
    trump = s[g, TRUMP]
    size = s[g, TRICK_SIZE]
    if size == 0:
        s[g, TRICK_LEADER] = seat
        s[g, TRICK_WINNER] = seat
        s[g, TRICK_WIN_CARD] = card
        s[g, TRICK_BEST_TRUMP] = card if suit == trump else -1
    else:
        led = s[g, TRICK_CARDS] >> 3
        best_trump = s[g, TRICK_BEST_TRUMP]
        if suit != led:
            s[g, VOIDS + seat] |= 1 << led  # R5.2: did not follow
            if trump >= 0 and led != trump and s[g, TRICK_WINNER] != (seat + 2) % NUM_SEATS:
                if suit != trump:
                    s[g, VOIDS + seat] |= 1 << trump  # R5.4: had to trump
                elif best_trump >= 0 and not HIGHER_TRUMP[best_trump] & bit:
                    s[g, NO_TRUMPS + seat] |= HIGHER_TRUMP[best_trump]  # R5.4: could not overtrump
        elif suit == trump and not HIGHER_TRUMP[best_trump] & bit:
            s[g, NO_TRUMPS + seat] |= HIGHER_TRUMP[best_trump]  # R5.2: could not overtrump
        win = s[g, TRICK_WIN_CARD]
        if suit == trump:
            if win >> 3 != trump or TRUMP_RANK_STRENGTH[card & 7] > TRUMP_RANK_STRENGTH[win & 7]:
                s[g, TRICK_WINNER] = seat
                s[g, TRICK_WIN_CARD] = card
            if best_trump < 0 or TRUMP_RANK_STRENGTH[card & 7] > TRUMP_RANK_STRENGTH[best_trump & 7]:
                s[g, TRICK_BEST_TRUMP] = card
        elif suit == led and win >> 3 == led and PLAIN_RANK_STRENGTH[card & 7] > PLAIN_RANK_STRENGTH[win & 7]:
            s[g, TRICK_WINNER] = seat
            s[g, TRICK_WIN_CARD] = card
    if s[g, BALOOT_SEAT] == seat and suit == trump and (card & 7 == KING or card & 7 == QUEEN):
        other = 8 * trump + (KING if card & 7 == QUEEN else QUEEN)
        if (s[g, PLAYED_BY + seat] >> other) & 1:
            s[g, BALOOT_ANNOUNCED] = 1  # R6.5: public at the second of K and Q
    s[g, TRICK_CARDS + size] = card
    size += 1
    if size < NUM_SEATS:
        s[g, TRICK_SIZE] = size
        s[g, TO_ACT] = (seat + 1) % NUM_SEATS
        return False
    winner = s[g, TRICK_WINNER]
    row = trump if trump >= 0 else NUM_SUITS  # R1.4: Sun's row has no trump
    points = 0
    for i in range(NUM_SEATS):
        points += CARD_POINTS[row, s[g, TRICK_CARDS + i]]
        s[g, TRICK_CARDS + i] = -1
    played = s[g, TRICKS_PLAYED] + 1
    s[g, TRICKS_PLAYED] = played
    if played == NUM_TRICKS:
        points += LAST_TRICK_BONUS  # R1.4
    s[g, TRICKS_WON + winner % 2] += 1
    s[g, RAW + winner % 2] += points
    s[g, TRICK_SIZE] = 0
    s[g, TRICK_LEADER] = -1
    s[g, TRICK_WINNER] = -1
    s[g, TRICK_WIN_CARD] = -1
    s[g, TRICK_BEST_TRUMP] = -1
    if played == NUM_TRICKS:
        return True
    s[g, TO_ACT] = winner  # R5.1
    return False
