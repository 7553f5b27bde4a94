"""What play makes public (R5.2, R5.4, R6.2, R6.5): knowledge every seat gains from a card.

When a seat does not follow suit it shows a void; in Hokum, a seat out of a plain suit that
neither trumps nor has its partner winning shows it has no trump; a seat that plays a trump
below the best one on the table where it had to overtrump shows it holds no higher trump. The
second of the trump K and Q played by the baloot's holder announces the baloot (R6.5), and a
seat's projects are public once it has played to the first trick (R6.2). The observation and
the search player read these facts; they are derived once, here, from the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baloot_env.cards import HIGHER_TRUMP, KING, QUEEN
from baloot_env.seats import partner_of

if TYPE_CHECKING:
    from baloot_env.hand import HandState

_BALOOT_PAIR = {KING: QUEEN, QUEEN: KING}


def observe_card(state: HandState, seat: int, card: int) -> None:
    """Record what ``seat`` playing ``card`` shows, before the trick's winner is updated.

    ``state.played_by`` already holds the card; ``trick_cards``, ``trick_winner`` and
    ``trick_best_trump`` are still those before it.
    """
    suit = card >> 3
    trump = state.trump
    if state.trick_cards:
        led = state.trick_cards[0] >> 3
        best_trump = state.trick_best_trump
        bit = 1 << card
        if suit != led:
            state.voids[seat] |= 1 << led  # R5.2: did not follow
            if trump >= 0 and led != trump and state.trick_winner != partner_of(seat):
                if suit != trump:
                    state.voids[seat] |= 1 << trump  # R5.4: had to trump
                elif best_trump >= 0 and not HIGHER_TRUMP[best_trump] & bit:
                    state.no_trumps[seat] |= HIGHER_TRUMP[best_trump]  # R5.4: could not overtrump
        elif suit == trump and not HIGHER_TRUMP[best_trump] & bit:
            state.no_trumps[seat] |= HIGHER_TRUMP[best_trump]  # R5.2: could not overtrump
    rank = card & 7
    if state.baloot_seat == seat and suit == trump and rank in _BALOOT_PAIR:
        if state.played_by[seat] >> (8 * trump + _BALOOT_PAIR[rank]) & 1:
            state.baloot_announced = True  # R6.5: public at the second of K and Q


def projects_public(state: HandState, seat: int) -> bool:
    """R6.2: a seat's projects are public once it has played to the first trick."""
    return bool(state.tricks) or seat in state.trick_seats
