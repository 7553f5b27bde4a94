"""Exact perfect-information search of the last tricks of one world.

``solve`` plays out every legal continuation of a position whose four hands are all known
(a sampled world) by alpha-beta minimax: the seats of ``team`` maximise, the others minimise,
and a finished hand is worth ``leaf(raw_team0, tricks_team0)``, a function the caller builds
from the world's contract, projects and baloot with the engine's own scoring (R6, R7).

The position is kept in a few integers instead of a ``HandState`` for speed: hands are 32-bit
masks (R1.2) and the rules of play (R5.1-R5.4) are the engine's own ``baloot_env.play.legal_cards``,
the one statement of them; a test checks the solver against brute force.
"""

from __future__ import annotations

from collections.abc import Callable

from baloot_env.cards import (
    CARD_POINTS,
    LAST_TRICK_BONUS,
    NO_CARD,
    NUM_CARDS,
    NUM_RANKS,
    NUM_TRICKS,
    PLAIN_STRENGTH,
    TRUMP_STRENGTH,
)
from baloot_env.play import NO_LEAD, legal_cards  # noqa: F401 (legal_cards: re-exported, the engine's own)
from baloot_env.seats import NO_SEAT, NUM_SEATS, next_seat, team_of

INF = float("inf")


def tables(trump: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per card: points (R1.4) and a total trick order with trumps above plain cards (R1.3)."""
    order = tuple(
        TRUMP_STRENGTH[c & 7] + NUM_RANKS if c >> 3 == trump else PLAIN_STRENGTH[c & 7] for c in range(NUM_CARDS)
    )
    return CARD_POINTS[trump], order


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
        trump: the trump suit, ``NO_TRUMP`` in Sun.
        raw0, tricks0: team 0's card points and tricks so far (R1.4).
        tricks_done: completed tricks.
        team: the team whose value is maximised (the other minimises).
        leaf: value for ``team`` of a finished hand from (team 0 raw with the last-trick bonus,
            team 0 tricks).
        alpha, beta: the search window.
    """
    pts, order = tables(trump)
    led, win_seat, win_card = NO_LEAD, NO_SEAT, NO_CARD
    tpts = 0
    for i, (s, c) in enumerate(trick):
        tpts += pts[c]
        if i == 0:
            led, win_seat, win_card = c >> 3, s, c
        elif (c >> 3 == trump or c >> 3 == led) and order[c] > order[win_card]:
            win_seat, win_card = s, c

    last_card = NUM_SEATS - 1  # the trick's fourth card

    def rec(
        seat: int, n: int, led: int, ws: int, wc: int, tp: int, r0: int, t0: int, left: int, alpha: float, beta: float
    ) -> float:
        hand = hands[seat]
        m = legal_cards(hand, seat, led, ws, wc, trump)
        maximise = team_of(seat) == team
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
            if n == last_card:  # R5.5: the trick is complete
                if left == 1:
                    ntp += LAST_TRICK_BONUS  # R1.4
                if team_of(nws):  # team 1 took it
                    nr0, nt0 = r0, t0
                else:
                    nr0, nt0 = r0 + ntp, t0 + 1
                if left == 1:
                    v = leaf(nr0, nt0)
                else:
                    v = rec(nws, 0, NO_LEAD, NO_SEAT, NO_CARD, 0, nr0, nt0, left - 1, alpha, beta)
            else:
                v = rec(next_seat(seat), n + 1, nled, nws, nwc, ntp, r0, t0, left, alpha, beta)
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
