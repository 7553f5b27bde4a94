"""The tricks (R5): which cards may be played, who wins a trick, and the end of the hand.

``legal_cards`` is the one statement of R5.1-R5.4, shared by the engine (``legal_play``) and the
search player's exact endgame solver (``agents.search_player.endgame``). A trick's winner is
kept as the cards fall (R5.5); the eighth trick scores the hand (R7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baloot_env.cards import (
    CARD_POINTS,
    HIGHER_TRUMP,
    LAST_TRICK_BONUS,
    NO_CARD,
    NUM_TRICKS,
    PLAIN_STRENGTH,
    SUIT_MASKS,
    TRUMP_STRENGTH,
)
from baloot_env.inference import observe_card
from baloot_env.phases import DONE, PLAY
from baloot_env.projects import BALOOT_POINTS, scoring_projects
from baloot_env.results import HandResult
from baloot_env.scoring import HOKUM, score_hand
from baloot_env.seats import NO_SEAT, NUM_SEATS, next_seat, partner_of, team_of

if TYPE_CHECKING:
    from baloot_env.hand import HandState

NO_LEAD = -1  # ``led`` before the trick's first card


def legal_cards(hand: int, seat: int, led: int, win_seat: int, win_card: int, trump: int) -> int:
    """R5.1-R5.4: the cards of ``hand`` (a mask) that ``seat`` may play.

    Args:
        hand: the seat's cards (R1.2 bit mask).
        seat: the seat to play.
        led: the suit led in the current trick, ``NO_LEAD`` before the lead.
        win_seat, win_card: the seat and card winning the trick so far (ignored before the lead).
            A trump on the table always wins the trick (R5.5), so when one has been played the
            winning card is the best trump.
        trump: the trump suit, ``NO_TRUMP`` in Sun.
    """
    if led < 0:
        return hand  # R5.1: any lead
    follow = hand & SUIT_MASKS[led]
    if follow:
        if led == trump:  # R5.2: overtrump when able, even when the partner is winning
            return (follow & HIGHER_TRUMP[win_card]) or follow
        return follow  # R5.2
    if trump < 0:
        return hand  # R5.3
    if win_seat == partner_of(seat):
        return hand  # R5.4: partner winning
    trumps = hand & SUIT_MASKS[trump]
    if not trumps:
        return hand  # R5.4: no trump at all
    if win_card >> 3 == trump:
        return (trumps & HIGHER_TRUMP[win_card]) or trumps  # R5.4: higher trump when holding one, else any
    return trumps


def legal_play(state: HandState) -> int:
    """The legal cards of the seat to act (R5.1-R5.4), as a mask of action ids."""
    seat = state.to_act
    cards = state.trick_cards
    led = cards[0] >> 3 if cards else NO_LEAD
    return legal_cards(state.hands[seat], seat, led, state.trick_winner, state.trick_win_card, state.trump)


def start_play(state: HandState) -> None:
    """R5.1: the dealer's right leads the first trick."""
    state.phase = PLAY
    state.to_act = next_seat(state.dealer)


def play_card(state: HandState, card: int) -> None:
    """R5: play one card, record what it shows, and close the trick after four."""
    seat = state.to_act
    bit = 1 << card
    state.hands[seat] ^= bit
    state.played_by[seat] |= bit
    observe_card(state, seat, card)
    suit = card >> 3
    trump = state.trump
    cards = state.trick_cards
    if not cards:
        state.trick_winner, state.trick_win_card = seat, card
        state.trick_best_trump = card if suit == trump else NO_CARD
    else:
        led = cards[0] >> 3
        win = state.trick_win_card
        if suit == trump:  # R5.5: the highest trump wins
            if win >> 3 != trump or TRUMP_STRENGTH[card & 7] > TRUMP_STRENGTH[win & 7]:
                state.trick_winner, state.trick_win_card = seat, card
            best = state.trick_best_trump
            if best < 0 or TRUMP_STRENGTH[card & 7] > TRUMP_STRENGTH[best & 7]:
                state.trick_best_trump = card
        elif suit == led and win >> 3 == led and PLAIN_STRENGTH[card & 7] > PLAIN_STRENGTH[win & 7]:
            state.trick_winner, state.trick_win_card = seat, card  # R5.5: else the highest of the led suit
    cards.append(card)
    state.trick_seats.append(seat)
    if len(cards) < NUM_SEATS:
        state.to_act = next_seat(seat)
    else:
        close_trick(state)


def close_trick(state: HandState) -> None:
    """R5.5, R1.4: the winner takes the trick and its points and leads the next."""
    cards = state.trick_cards
    winner = state.trick_winner
    pts = CARD_POINTS[state.trump]  # R1.4
    points = pts[cards[0]] + pts[cards[1]] + pts[cards[2]] + pts[cards[3]]
    state.tricks.append((state.trick_seats[0], tuple(cards), winner))
    last = len(state.tricks) == NUM_TRICKS
    if last:
        points += LAST_TRICK_BONUS  # R1.4
    team = team_of(winner)
    state.tricks_won[team] += 1
    state.raw[team] += points
    state.trick_cards = []
    state.trick_seats = []
    state.trick_winner = NO_SEAT
    state.trick_win_card = state.trick_best_trump = NO_CARD
    if last:
        finish(state)
    else:
        state.to_act = winner  # R5.1


def finish(state: HandState) -> None:
    """R7: score the played hand."""
    hokum = state.contract == HOKUM
    per_team = scoring_projects(state.projects, state.dealer, state.tricks_won, hokum)
    baloot = [0, 0]
    if state.baloot_seat >= 0:
        baloot[team_of(state.baloot_seat)] = BALOOT_POINTS
    if state.contract is None:
        raise RuntimeError("a played hand without a contract: the play phase starts only after R3 settles one")
    hs = score_hand(
        state.contract,
        state.caller,
        state.level,
        state.raw,
        state.tricks_won,
        per_team,
        baloot,
        state.rules,
        state.match_score,
    )
    state.phase = DONE
    state.to_act = NO_SEAT
    state.result = HandResult.played(state, per_team, baloot, hs)
