"""Card play of the ``heuristic`` agent (R5): follow the duties with intent.

The player counts cards: ``unseen`` is every card neither played nor in its own hand, and each
other seat's ``possible`` cards are the unseen ones minus the suits it has shown it lacks and
the trumps it has shown it cannot hold (R5.2, R5.4). From that it knows which of its cards are
*masters* (no unseen card of the suit beats them, R1.3) and whether a card still to come could
take the trick. Its habits, in order:

- lead: draw trumps with the master trump when its team called (or holds several), cash sure
  winners (masters that no opponent is likely to trump), otherwise lead low from a suit where
  it does not bare a ten;
- partner winning for sure: give points (a ten rather than a master ace), never trump over the
  partner when not forced (R5.4 lets it discard);
- opponent winning: take the trick with the cheapest card that nobody after it can beat (the
  richest one when it plays last), else play low;
- play low: the cheapest card, keeping trumps and masters, which also plays for the last trick
  (R1.4) by saving the long trumps for the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from baloot_env.cards import (
    ACE,
    ALL_CARDS_MASK,
    HIGHER_PLAIN,
    HIGHER_TRUMP,
    NUM_RANKS,
    PLAIN_POINTS,
    PLAIN_STRENGTH,
    SUIT_MASKS,
    SUITS_CARDS,
    TEN,
    TRUMP_STRENGTH,
    cards_of,
)
from baloot_env.cards import card_points as points
from baloot_env.seats import NUM_SEATS, next_seat, partner_of, team_of


class PlayView(Protocol):
    """What the card play reads of a seat's view: a ``PlayerView``, or a search's world seen from
    the seat to act (``search_player.player``'s playouts)."""

    @property
    def seat(self) -> int: ...
    @property
    def hand(self) -> int: ...
    @property
    def legal_mask(self) -> int: ...
    @property
    def trump(self) -> int: ...
    @property
    def caller(self) -> int: ...
    @property
    def trick_seats(self) -> Sequence[int]: ...
    @property
    def trick_cards(self) -> Sequence[int]: ...
    @property
    def trick_winner(self) -> int: ...
    @property
    def played_by(self) -> Sequence[int]: ...
    @property
    def voids(self) -> Sequence[int]: ...
    @property
    def no_trumps(self) -> Sequence[int]: ...


VOID_MASK = SUITS_CARDS  # VOID_MASK[v]: the cards of every suit whose bit is set in the void bits ``v``
RICH_TRICK = 10  # card points on the table worth fighting for when no partner plays after (R1.4)


def order(card: int, trump: int) -> int:
    """A total order for choosing cards: plain strength 0-7, trumps 8-15 (R1.3)."""
    return TRUMP_STRENGTH[card & 7] + NUM_RANKS if card >> 3 == trump else PLAIN_STRENGTH[card & 7]


def higher(card: int, trump: int) -> int:
    """Cards of the same suit that beat ``card`` (R1.3)."""
    return HIGHER_TRUMP[card] if card >> 3 == trump else HIGHER_PLAIN[card]


def beats(card: int, best: int, trump: int) -> bool:
    """Whether ``card`` takes a trick whose best card so far is ``best`` (R5.5)."""
    if card >> 3 == best >> 3:
        return bool(higher(best, trump) >> card & 1)
    return card >> 3 == trump


class Table:
    """What the seat can infer about the cards (built once per decision)."""

    __slots__ = ("seat", "trump", "hand", "unseen", "possible", "voids")

    def __init__(self, view: PlayView) -> None:
        self.seat = view.seat
        self.trump = view.trump
        self.hand = view.hand
        played = 0
        for m in view.played_by:
            played |= m
        self.unseen = ~(played | view.hand) & ALL_CARDS_MASK
        self.voids = view.voids
        self.possible = [
            0 if r == view.seat else self.unseen & ~VOID_MASK[view.voids[r]] & ~view.no_trumps[r]
            for r in range(NUM_SEATS)
        ]

    def is_master(self, card: int) -> bool:
        """No unseen card of its suit beats it (R1.3)."""
        return not self.unseen & higher(card, self.trump)

    def likely_void(self, seat: int, suit: int) -> bool:
        """Known void, or at most one card of the suit left that it could hold."""
        return bool(self.voids[seat] >> suit & 1) or (self.possible[seat] & SUIT_MASKS[suit]).bit_count() <= 1

    def can_beat(self, seat: int, card: int, led: int) -> bool:
        """Whether ``seat``, still to play, might take a trick that ``card`` is winning."""
        trump = self.trump
        poss = self.possible[seat]
        if card >> 3 == trump:
            if not poss & HIGHER_TRUMP[card]:
                return False
            return led == trump or self.likely_void(seat, led)
        if poss & HIGHER_PLAIN[card]:
            return True
        return trump >= 0 and bool(poss & SUIT_MASKS[trump]) and self.likely_void(seat, led)

    def ruff_risk(self, suit: int) -> bool:
        """Whether an opponent might trump a lead of ``suit`` (R5.4)."""
        if self.trump < 0 or suit == self.trump:
            return False
        tm = SUIT_MASKS[self.trump]
        for r in (next_seat(self.seat), next_seat(self.seat, -1)):  # the two opponents
            if self.possible[r] & tm and self.likely_void(r, suit):
                return True
        return False


def choose_card(view: PlayView) -> int:
    """The heuristic's card for ``view`` (play phase, R5)."""
    legal = view.legal_mask & ALL_CARDS_MASK
    if legal & (legal - 1) == 0:
        return int(legal.bit_length() - 1)
    t = Table(view)
    if not view.trick_cards:
        return _lead(view, t, cards_of(legal))
    return _follow(view, t, cards_of(legal))


def _lead(view: PlayView, t: Table, legal: list[int]) -> int:
    trump, hand, seat = t.trump, t.hand, t.seat
    if trump >= 0:
        tm = SUIT_MASKS[trump]
        mine = hand & tm
        opp_trumps = (t.possible[next_seat(seat)] | t.possible[next_seat(seat, -1)]) & tm
        if mine and opp_trumps:
            my_trumps = cards_of(mine)
            top = max(my_trumps, key=lambda c: TRUMP_STRENGTH[c & 7])
            ours = team_of(view.caller) == team_of(seat)
            if t.is_master(top) and (ours or len(my_trumps) >= 3):
                return top  # draw trumps with the master
            if ours and seat == view.caller and len(my_trumps) >= 4:
                return min(my_trumps, key=lambda c: TRUMP_STRENGTH[c & 7])
    # Cash sure winners: masters nobody is likely to trump.
    best, best_pts = -1, -1
    for c in legal:
        if c >> 3 == trump or not t.is_master(c) or t.ruff_risk(c >> 3):
            continue
        p = PLAIN_POINTS[c & 7]
        if p > best_pts:
            best, best_pts = c, p
    if best >= 0:
        return best
    plain = [c for c in legal if c >> 3 != trump]
    if not plain:
        top = max(legal, key=lambda c: TRUMP_STRENGTH[c & 7])
        return top if t.is_master(top) else min(legal, key=lambda c: TRUMP_STRENGTH[c & 7])
    # Lead low from the suit that costs least: not from a bare ten, not into a ruff.
    best_cost, choice = 1e9, plain[0]
    for suit in {c >> 3 for c in plain}:
        cards = [c for c in plain if c >> 3 == suit]
        low = min(cards, key=lambda c: (PLAIN_POINTS[c & 7], PLAIN_STRENGTH[c & 7]))
        cost: float = PLAIN_POINTS[low & 7]
        ace = 8 * suit + ACE
        if hand >> (8 * suit + TEN) & 1 and t.unseen >> ace & 1:
            cost += 6  # leading the suit exposes our ten to their ace
        if t.ruff_risk(suit):
            cost += 3
        if trump >= 0:
            cost += 0.2 * len(cards)  # short suits first: a void lets us trump later
        else:
            cost -= 0.2 * len(cards)  # in Sun, long suits set up winners
        if cost < best_cost:
            best_cost, choice = cost, low
    return choice


def _follow(view: PlayView, t: Table, legal: list[int]) -> int:
    trump, seat = t.trump, t.seat
    cards = view.trick_cards
    led = cards[0] >> 3
    win_card = cards[view.trick_seats.index(view.trick_winner)]
    after = [next_seat(seat, k) for k in range(1, NUM_SEATS - len(cards))]
    opp_after = [r for r in after if team_of(r) != team_of(seat)]
    if view.trick_winner == partner_of(seat):
        if not any(t.can_beat(r, win_card, led) for r in opp_after):
            return _smear(t, legal)
        return _low(t, legal)
    winners = [c for c in legal if beats(c, win_card, trump)]
    if winners:
        safe = [c for c in winners if not any(t.can_beat(r, c, led) for r in opp_after)]
        if safe:
            plain = [c for c in safe if c >> 3 != trump]
            if plain:
                if opp_after:
                    return min(plain, key=lambda c: PLAIN_STRENGTH[c & 7])
                return max(plain, key=lambda c: (PLAIN_POINTS[c & 7], -PLAIN_STRENGTH[c & 7]))
            return min(safe, key=lambda c: TRUMP_STRENGTH[c & 7])
        trick_pts = sum(points(c, trump) for c in cards)
        if trick_pts >= RICH_TRICK and partner_of(seat) not in after:
            # Nobody of ours comes after: fight for a rich trick with the best we have.
            return max(winners, key=lambda c: order(c, trump))
    return _low(t, legal)


def _smear(t: Table, legal: list[int]) -> int:
    """Partner takes the trick: give it points, keep trumps and masters."""
    trump = t.trump
    plain = [c for c in legal if c >> 3 != trump]
    if not plain:
        return min(legal, key=lambda c: TRUMP_STRENGTH[c & 7])
    return max(plain, key=lambda c: (PLAIN_POINTS[c & 7] - (6 if t.is_master(c) else 0), -PLAIN_STRENGTH[c & 7]))


def _low(t: Table, legal: list[int]) -> int:
    """The cheapest card: no trump, no master, fewest points, weakest."""
    trump = t.trump
    return min(
        legal,
        key=lambda c: (c >> 3 == trump, points(c, trump) + (6 if t.is_master(c) else 0), order(c, trump)),
    )
