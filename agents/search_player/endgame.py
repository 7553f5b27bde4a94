"""Exact perfect-information search of the last tricks of one world (issue 4).

``solve`` plays out every legal continuation of a position whose four hands are all known
(a sampled world) by alpha-beta minimax: the seats of ``team`` maximise, the others minimise,
and a finished hand is worth ``leaf(raw_team0, tricks_team0)``, a function the caller builds
from the world's contract, projects and baloot with the engine's own scoring (R6, R7).

The position is kept in a few integers instead of a ``HandState`` for speed: hands are 32-bit
masks (R1.2) and the rules of play (R5.1-R5.5) are the same mask arithmetic as
``HandState._legal_cards``; a test checks both against each other and against brute force.
"""

from __future__ import annotations

from collections.abc import Callable

from baloot_env.cards import (
    HIGHER_TRUMP,
    LAST_TRICK_BONUS,
    NUM_TRICKS,
    PLAIN_POINTS,
    PLAIN_STRENGTH,
    SUIT_MASKS,
    TRUMP_POINTS,
    TRUMP_STRENGTH,
)

INF = float("inf")


def tables(trump: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per card: points (R1.4) and a total trick order with trumps above plain cards (R1.3)."""
    pts = tuple(TRUMP_POINTS[c & 7] if c >> 3 == trump else PLAIN_POINTS[c & 7] for c in range(32))
    order = tuple(TRUMP_STRENGTH[c & 7] + 8 if c >> 3 == trump else PLAIN_STRENGTH[c & 7] for c in range(32))
    return pts, order


def legal_cards(hand: int, seat: int, led: int, win_seat: int, win_card: int, trump: int) -> int:
    """R5.1-R5.4 for a compact position: ``led`` is -1 before the lead.

    The best trump on the table is the winning card whenever a trump has been played (R5.5).
    """
    if led < 0:
        return hand  # R5.1
    follow = hand & SUIT_MASKS[led]
    if follow:
        if led == trump:  # R5.2: overtrump when able
            return (follow & HIGHER_TRUMP[win_card]) or follow
        return follow  # R5.2
    if trump < 0 or win_seat == (seat + 2) & 3:
        return hand  # R5.3; R5.4 partner winning
    trumps = hand & SUIT_MASKS[trump]
    if not trumps:
        return hand  # R5.4: no trump at all
    if win_card >> 3 == trump:
        return (trumps & HIGHER_TRUMP[win_card]) or trumps  # R5.4
    return trumps


def solve(
    hands: list[int],
    seat: int,
    trick: list[tuple[int, int]],
    trump: int,
    raw0: int,
    tricks0: int,
    tricks_done: int,
    team: int,
    leaf: Callable[[int, int], float],
    alpha: float = -INF,
    beta: float = INF,
) -> float:
    """Minimax value for ``team`` of the position, all hands known (perfect information).

    Args:
        hands: the four current holdings (masks); restored before returning.
        seat: the seat to act.
        trick: the current trick so far as (seat, card), in play order.
        trump: the trump suit, -1 in Sun.
        raw0, tricks0: team 0's card points and tricks so far (R1.4).
        tricks_done: completed tricks.
        team: the team whose value is maximised (the other minimises).
        leaf: value for ``team`` of a finished hand from (team 0 raw with the last-trick bonus,
            team 0 tricks).
        alpha, beta: the search window.
    """
    pts, order = tables(trump)
    led = win_seat = win_card = -1
    tpts = 0
    for i, (s, c) in enumerate(trick):
        tpts += pts[c]
        if i == 0:
            led, win_seat, win_card = c >> 3, s, c
        elif (c >> 3 == trump or c >> 3 == led) and order[c] > order[win_card]:
            win_seat, win_card = s, c

    def rec(seat, n, led, ws, wc, tp, r0, t0, left, alpha, beta):
        hand = hands[seat]
        m = legal_cards(hand, seat, led, ws, wc, trump)
        maximise = (seat & 1) == team
        best = -INF if maximise else INF
        while m:
            low = m & -m
            m ^= low
            c = low.bit_length() - 1
            hands[seat] = hand ^ low
            if n == 0:
                nled, nws, nwc = c >> 3, seat, c
            elif (c >> 3 == trump or c >> 3 == led) and order[c] > order[wc]:
                nled, nws, nwc = led, seat, c
            else:
                nled, nws, nwc = led, ws, wc
            ntp = tp + pts[c]
            if n == 3:  # R5.5: the trick is complete
                if left == 1:
                    ntp += LAST_TRICK_BONUS  # R1.4
                if nws & 1:
                    nr0, nt0 = r0, t0
                else:
                    nr0, nt0 = r0 + ntp, t0 + 1
                if left == 1:
                    v = leaf(nr0, nt0)
                else:
                    v = rec(nws, 0, -1, -1, -1, 0, nr0, nt0, left - 1, alpha, beta)
            else:
                v = rec((seat + 1) & 3, n + 1, nled, nws, nwc, ntp, r0, t0, left, alpha, beta)
            if maximise:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            elif v < best:
                best = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        hands[seat] = hand
        return best

    return rec(seat, len(trick), led, win_seat, win_card, tpts, raw0, tricks0, NUM_TRICKS - tricks_done, alpha, beta)
