"""One hand of Baloot as a state machine: bidding (R3), doubling (R4), the tricks (R5).

``HandState`` holds everything about one deal and sends each action to the module of the
current phase: ``bidding`` (R3, and the deal of the stock and the projects once the contract
is settled), ``doubling`` (R4), ``play`` (R5, R7); ``inference`` records what the cards show
and ``hand_io`` is the saved form. ``legal_actions`` / ``legal_mask`` are the single source of
legality (R9) used by the environment's mask, the agents and the tests; ``apply`` refuses
anything else with an ``IllegalActionError`` naming the seat, the action and what is legal.
The state knows nothing of RL.

The fields are declared once, as the class's annotations (``STATE_FIELDS``): copying
(``clone``), equality, the snapshot and the saved form are all derived from that one list.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from baloot_env import hand_io
from baloot_env.actions import NUM_ACTIONS, action_name
from baloot_env.bidding import FIRST_ROUND, apply_bid, legal_bids
from baloot_env.cards import NO_CARD, NO_TRUMP, cards_of, mask_of
from baloot_env.deal import Deal
from baloot_env.doubling import apply_doubling, legal_doubling
from baloot_env.errors import BalootError, IllegalActionError, shown
from baloot_env.inference import projects_public
from baloot_env.phases import BIDDING, DONE, DOUBLING, PHASES, PLAY
from baloot_env.play import NO_LEAD, legal_cards, play_card
from baloot_env.projects import Project
from baloot_env.results import HandResult
from baloot_env.rules import RuleConfig
from baloot_env.seats import NO_SEAT, NUM_SEATS, next_seat

__all__ = ["BIDDING", "DONE", "DOUBLING", "PHASES", "PLAY", "SAVED_FIELDS", "STATE_FIELDS", "STATE_FORMAT", "HandState"]

STATE_FORMAT = hand_io.STATE_FORMAT
SAVED_FIELDS = hand_io.SAVED_FIELDS


@dataclass(slots=True, init=False, eq=False, repr=False)
class HandState:
    """The full (perfect-information) state of one hand.

    Seats, cards and actions follow RULES.md: cards are ids (R1.2), hands are 32-bit masks,
    actions are R9 ids. Public knowledge that the observation and the search player need
    (voids shown, trumps a seat cannot hold, projects and baloot made public) is kept here as
    the cards are played, so that it is derived once, by the rules.

    The annotations below are the one list of fields. A ``list`` field is changed in place and
    copied by ``clone``; every other field is immutable or replaced whole, and shared.
    """

    rules: RuleConfig
    deal: Deal
    dealer: int
    phase: str
    to_act: int  # NO_SEAT when the hand is over
    hands: list[int]  # per seat, the cards held now (mask)
    bid_round: int  # R3.1, R3.4
    bids: list[tuple[int, int, int]]  # (round, seat, action)
    hokum_bidder: int  # R3.3: the round-1 hokum bidder, NO_SEAT if none
    contract: str | None  # "hokum", "sun", None before the contract
    trump: int  # NO_TRUMP in Sun and before the contract
    caller: int
    level: int  # R4.1: 1 plain ... 5 gahwa
    doubling_calls: list[tuple[int, int]]  # (seat, action)
    last_raiser: int
    doubling_passes: int
    full_hands: list[int]  # per seat, the 8 cards after the deal (R2.3)
    projects: list[list[Project]]  # per seat, its declared projects (R6.1); replaced, never changed in place
    baloot_seat: int
    baloot_announced: bool
    trick_seats: list[int]
    trick_cards: list[int]
    trick_winner: int
    trick_win_card: int
    trick_best_trump: int
    tricks: list[tuple[int, tuple[int, ...], int]]  # (leader, cards, winner)
    tricks_won: list[int]
    raw: list[int]
    played_by: list[int]
    voids: list[int]  # suit bits a seat has shown it lacks (R5.2, R5.4)
    no_trumps: list[int]  # trumps a seat cannot hold (failed a duty, R5.2, R5.4)
    history: list[int]
    result: HandResult | None
    match_score: tuple[int, int]

    def __init__(self, deal: Deal, rules: RuleConfig | None = None, match_score: tuple[int, int] = (0, 0)):
        """Start the hand of ``deal`` (a validated Deal, R2.4) at its first bid (R3.1).

        Raises:
            TypeError: ``deal`` is not a ``Deal`` (a dict goes through ``parse_deal`` first),
                ``rules`` not a ``RuleConfig``, or ``match_score`` not two ints.
            BalootError: a negative match score.
        """
        if not isinstance(deal, Deal):
            raise TypeError(
                f"deal must be a Deal, got {type(deal).__name__}; build one from an R2.4 dict with "
                "baloot_env.parse_deal (it says what is wrong with a malformed one)"
            )
        if rules is not None and not isinstance(rules, RuleConfig):
            raise TypeError(f"rules must be a RuleConfig or None, got {type(rules).__name__}")
        score = _match_score(match_score)
        self.rules = rules or RuleConfig()
        self.deal = deal
        self.dealer = deal.dealer
        self.phase = BIDDING
        self.to_act = next_seat(deal.dealer)  # R3.1
        self.hands = [mask_of(h) for h in deal.hands]
        self.bid_round = FIRST_ROUND
        self.bids = []
        self.hokum_bidder = NO_SEAT
        self.contract = None
        self.trump = NO_TRUMP
        self.caller = NO_SEAT
        self.level = 1
        self.doubling_calls = []
        self.last_raiser = NO_SEAT
        self.doubling_passes = 0
        self.full_hands = [0] * NUM_SEATS
        self.projects = [[] for _ in range(NUM_SEATS)]
        self.baloot_seat = NO_SEAT
        self.baloot_announced = False
        self.trick_seats = []
        self.trick_cards = []
        self.trick_winner = NO_SEAT
        self.trick_win_card = NO_CARD
        self.trick_best_trump = NO_CARD
        self.tricks = []
        self.tricks_won = [0, 0]
        self.raw = [0, 0]
        self.played_by = [0] * NUM_SEATS
        self.voids = [0] * NUM_SEATS
        self.no_trumps = [0] * NUM_SEATS
        self.history = []
        self.result = None
        self.match_score = score

    @classmethod
    def from_fields(cls, values: Mapping[str, Any]) -> HandState:
        """A state with every field given (the search player's sampled worlds).

        Raises:
            TypeError: a field of ``STATE_FIELDS`` is missing or an unknown one is given.
        """
        missing = [f for f in STATE_FIELDS if f not in values]
        unknown = sorted(set(values) - set(STATE_FIELDS))
        if missing or unknown:
            raise TypeError(f"HandState.from_fields: missing fields {missing}, unknown fields {unknown}")
        new = cls.__new__(cls)
        for name in STATE_FIELDS:
            setattr(new, name, values[name])
        return new

    # ------------------------------------------------------------------ copying
    def clone(self) -> HandState:
        """A cheap independent copy (search players branch from it)."""
        new = HandState.__new__(HandState)
        for name in _SHARED_FIELDS:
            setattr(new, name, getattr(self, name))
        for name in _LIST_FIELDS:
            setattr(new, name, getattr(self, name)[:])
        return new

    # ------------------------------------------------------------------ legality
    @property
    def done(self) -> bool:
        return self.phase == DONE

    def legal_mask(self) -> int:
        """Bit ``a`` set iff action ``a`` is legal now (R3, R4, R5, R9); 0 when done."""
        phase = self.phase
        if phase == PLAY:  # legal_play(self), inlined: this runs at every decision
            seat = self.to_act
            cards = self.trick_cards
            led = cards[0] >> 3 if cards else NO_LEAD
            return legal_cards(self.hands[seat], seat, led, self.trick_winner, self.trick_win_card, self.trump)
        if phase == BIDDING:
            return legal_bids(self)
        if phase == DOUBLING:
            return legal_doubling(self)
        return 0

    def legal_actions(self) -> list[int]:
        """Legal action ids, ascending (R9)."""
        return cards_of(self.legal_mask())

    def is_legal(self, action: object) -> bool:
        if isinstance(action, bool) or not isinstance(action, int):  # as apply(): True is not action 1
            return False
        return 0 <= action < NUM_ACTIONS and bool(self.legal_mask() >> action & 1)

    # ------------------------------------------------------------------ applying
    def verify(self, action: object) -> int:
        """The action as a plain int if the acting seat may take it now; else IllegalActionError.

        Changes nothing, so a caller (the environment) can check an action before it touches any
        of its own state. Numpy integers are accepted; bools, floats and anything else are not.
        """
        mask = self.legal_mask()
        if type(action) is not int:  # the common case (a plain int) skips these checks
            if type(action).__name__ != "bool_" and not isinstance(action, bool):
                try:
                    action = operator.index(action)  # type: ignore[arg-type]  # numpy integers, as policies return them
                except TypeError:
                    pass
            if isinstance(action, bool) or not isinstance(action, int):
                raise self._illegal(action, mask)
        if not 0 <= action < NUM_ACTIONS or not mask >> action & 1:
            raise self._illegal(action, mask)
        return action

    def apply(self, action: object) -> None:
        """Apply the acting seat's action; raises IllegalActionError if the rules forbid it."""
        action = self.verify(action)
        self.history.append(action)
        phase = self.phase
        if phase == PLAY:
            play_card(self, action)
        elif phase == BIDDING:
            apply_bid(self, action)
        else:
            apply_doubling(self, action)

    def _illegal(self, action: object, mask: int) -> IllegalActionError:
        if self.phase == DONE:
            return IllegalActionError(f"action {shown(action)}: the hand is over, no seat may act")
        legal = [action_name(a) for a in cards_of(mask)]
        what = action_name(action) if isinstance(action, int) and 0 <= action < NUM_ACTIONS else shown(action)
        return IllegalActionError(
            f"seat {self.to_act} may not play {what} ({shown(action)}) in the {self.phase} phase; legal: {legal}"
        )

    # ------------------------------------------------------------------ public views
    def projects_public(self, seat: int) -> bool:
        """R6.2: a seat's projects are public once it has played to the first trick."""
        return projects_public(self, seat)

    @property
    def trick_number(self) -> int:
        return len(self.tricks)

    # ------------------------------------------------------------------ saving
    def snapshot(self) -> dict[str, Any]:
        """Every field as plain JSON data; two states are equal iff their snapshots are
        (and their rules and deals, saved beside the snapshot)."""
        return hand_io.snapshot(self, _SNAPSHOT_FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandState):
            return NotImplemented
        return self.rules == other.rules and self.deal == other.deal and self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def to_json(self) -> dict[str, Any]:
        """Saved form: format version, rules, deal, match score, action history and a snapshot.

        Restoring replays the history (the rules are the only authority) and then checks the
        snapshot, so a corrupt or hand-edited file is refused instead of silently diverging.
        """
        return hand_io.to_json(self)

    @classmethod
    def from_json(cls, data: object) -> HandState:
        """Restore a state saved by ``to_json``.

        Every field is checked before use and the history is replayed by the rules; the saved
        snapshot must then equal the replay's, value and JSON type (1, 1.0 and true differ), and
        the match score must be one a match can have before a hand (R8,
        ``rules.match_score_problem``). Since the snapshot holds the match score, an edit of it
        in one place is caught as well.

        Raises:
            StateError: anything malformed, missing, unknown or inconsistent; the message names
                the field. Never another exception type.
        """
        return hand_io.from_json(cls, data)

    @classmethod
    def replay(
        cls, deal: Deal, history: list[int], rules: RuleConfig | None = None, match_score: tuple[int, int] = (0, 0)
    ) -> HandState:
        """Rebuild a state by replaying ``history`` on ``deal``; illegal steps raise.

        Raises:
            TypeError: as ``HandState()``, or ``history`` is not a list or tuple of actions.
            IllegalActionError: a step of the history is not legal where it comes.
        """
        if not isinstance(history, (list, tuple)):
            raise TypeError(f"history must be a list of action ids (R9), got {type(history).__name__}")
        state = cls(deal, rules, match_score)
        for a in history:
            state.apply(a)
        return state


# The one field list, read off the class, and what is derived from it.
STATE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(HandState))
_LIST_FIELDS = tuple(f.name for f in fields(HandState) if str(f.type).startswith("list["))
_SHARED_FIELDS = tuple(name for name in STATE_FIELDS if name not in _LIST_FIELDS)
_SNAPSHOT_FIELDS = tuple(name for name in STATE_FIELDS if name not in hand_io.OUTSIDE_SNAPSHOT)


def _match_score(score: object) -> tuple[int, int]:
    """``score`` as two non-negative ints (numpy ints welcome; bools, floats and strings not)."""
    pair = None
    if isinstance(score, (list, tuple)) and len(score) == 2:
        if not any(isinstance(x, bool) or type(x).__name__ == "bool_" for x in score):
            try:
                pair = (operator.index(score[0]), operator.index(score[1]))
            except TypeError:
                pass
    if pair is None:
        raise TypeError(f"match_score must be two ints (team 0, team 1), got {score!r}")
    if min(pair) < 0:
        raise BalootError(f"match_score is never negative (R8), got {list(pair)}")
    return pair
