"""One hand of Baloot as a state machine: bidding (R3), doubling (R4), the tricks (R5).

``HandState`` holds everything about one deal. ``legal_actions`` / ``legal_mask`` are the single
source of legality (R9) used by the environment's mask, the agents and the tests; ``apply``
refuses anything else with an ``IllegalActionError`` naming the seat, the action and what is
legal. The state knows nothing of RL.
"""

from __future__ import annotations

import operator

from baloot_env.actions import (
    GAHWA_ACTION,
    HOKUM_BASE,
    PASS,
    SUN_ACTION,
    action_name,
)
from baloot_env.cards import (
    HIGHER_TRUMP,
    KING,
    LAST_TRICK_BONUS,
    NUM_SEATS,
    NUM_TRICKS,
    PLAIN_POINTS,
    PLAIN_STRENGTH,
    QUEEN,
    SUIT_MASKS,
    TRUMP_POINTS,
    TRUMP_STRENGTH,
    cards_of,
    mask_of,
)
from baloot_env.deal import Deal
from baloot_env.errors import IllegalActionError
from baloot_env.projects import BALOOT_POINTS, Project, declare_projects, has_baloot, scoring_projects
from baloot_env.results import HandResult
from baloot_env.rules import RuleConfig
from baloot_env.scoring import HOKUM, SUN, score_hand

BIDDING, DOUBLING, PLAY, DONE = "bidding", "doubling", "play", "done"
PHASES = (BIDDING, DOUBLING, PLAY, DONE)
_CARD_BITS = tuple(1 << c for c in range(32))
_ALL_HOKUM_BITS = sum(1 << (HOKUM_BASE + s) for s in range(4))
# _POINTS[trump][card]: card points (R1.4) with that trump suit; index -1 is Sun (no trump).
_POINTS = tuple(
    tuple(TRUMP_POINTS[c & 7] if c >> 3 == t else PLAIN_POINTS[c & 7] for c in range(32)) for t in (0, 1, 2, 3, -1)
)


class HandState:
    """The full (perfect-information) state of one hand.

    Seats, cards and actions follow RULES.md: cards are ids (R1.2), hands are 32-bit masks,
    actions are R9 ids. Public knowledge that the observation and the search player need
    (voids shown, trumps a seat cannot hold, projects and baloot made public) is kept here as
    the cards are played, so that it is derived once, by the rules.
    """

    __slots__ = (
        "rules", "deal", "dealer", "match_score", "phase", "to_act", "hands", "bid_round",
        "bids", "hokum_bidder", "contract", "trump", "caller", "level", "doubling_calls",
        "last_raiser", "doubling_passes", "full_hands", "projects", "baloot_seat",
        "baloot_announced", "trick_seats", "trick_cards", "trick_winner", "trick_win_card",
        "trick_best_trump", "tricks", "tricks_won", "raw", "played_by", "voids",
        "no_trumps", "history", "result",
    )  # fmt: skip

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
        self.rules = rules or RuleConfig()
        self.deal = deal
        self.dealer = deal.dealer
        self.match_score = _match_score(match_score)
        self.phase = BIDDING
        self.to_act = (deal.dealer + 1) % NUM_SEATS  # R3.1
        self.hands = [mask_of(h) for h in deal.hands]
        self.bid_round = 1
        self.bids: list[tuple[int, int, int]] = []  # (round, seat, action)
        self.hokum_bidder = -1
        self.contract: str | None = None
        self.trump = -1
        self.caller = -1
        self.level = 1
        self.doubling_calls: list[tuple[int, int]] = []  # (seat, action)
        self.last_raiser = -1
        self.doubling_passes = 0
        self.full_hands = [0, 0, 0, 0]
        self.projects: list[list[Project]] = [[], [], [], []]
        self.baloot_seat = -1
        self.baloot_announced = False
        self.trick_seats: list[int] = []
        self.trick_cards: list[int] = []
        self.trick_winner = -1
        self.trick_win_card = -1
        self.trick_best_trump = -1
        self.tricks: list[tuple[int, tuple[int, ...], int]] = []  # (leader, cards, winner)
        self.tricks_won = [0, 0]
        self.raw = [0, 0]
        self.played_by = [0, 0, 0, 0]
        self.voids = [0, 0, 0, 0]  # suit bits a seat has shown it lacks (R5.2, R5.4)
        self.no_trumps = [0, 0, 0, 0]  # trumps a seat cannot hold (failed a duty, R5.2, R5.4)
        self.history: list[int] = []
        self.result: HandResult | None = None

    # ------------------------------------------------------------------ copying
    def clone(self) -> HandState:
        """A cheap independent copy (search players branch from it)."""
        new = HandState.__new__(HandState)
        for name in (
            "rules", "deal", "dealer", "match_score", "phase", "to_act", "bid_round",
            "hokum_bidder", "contract", "trump", "caller", "level", "last_raiser",
            "doubling_passes", "baloot_seat", "baloot_announced", "trick_winner",
            "trick_win_card", "trick_best_trump", "result", "projects",
        ):  # fmt: skip
            setattr(new, name, getattr(self, name))  # immutable or never mutated in place
        new.hands = self.hands[:]
        new.bids = self.bids[:]
        new.doubling_calls = self.doubling_calls[:]
        new.full_hands = self.full_hands[:]
        new.trick_seats = self.trick_seats[:]
        new.trick_cards = self.trick_cards[:]
        new.tricks = self.tricks[:]
        new.tricks_won = self.tricks_won[:]
        new.raw = self.raw[:]
        new.played_by = self.played_by[:]
        new.voids = self.voids[:]
        new.no_trumps = self.no_trumps[:]
        new.history = self.history[:]
        return new

    # ------------------------------------------------------------------ legality
    @property
    def done(self) -> bool:
        return self.phase == DONE

    def legal_mask(self) -> int:
        """Bit ``a`` set iff action ``a`` is legal now (R3, R4, R5, R9); 0 when done."""
        phase = self.phase
        if phase == PLAY:
            return self._legal_cards()
        if phase == BIDDING:
            bits = 1 << PASS | 1 << SUN_ACTION  # R3.1, R3.4: pass and sun always
            turned_suit = self.deal.turned >> 3
            if self.bid_round == 1:
                if self.hokum_bidder < 0:
                    bits |= 1 << (HOKUM_BASE + turned_suit)  # R3.1
            else:
                bits |= _ALL_HOKUM_BITS & ~(1 << (HOKUM_BASE + turned_suit))  # R3.4
            return bits
        if phase == DOUBLING:
            return 1 << PASS | 1 << (37 + self.level)  # R4.1: the next raise, none skipped
        return 0

    def legal_actions(self) -> list[int]:
        """Legal action ids, ascending (R9)."""
        return cards_of(self.legal_mask())

    def _legal_cards(self) -> int:
        """R5.1-R5.4 as mask arithmetic."""
        hand = self.hands[self.to_act]
        if not self.trick_cards:
            return hand  # R5.1: any lead
        led = self.trick_cards[0] >> 3
        trump = self.trump
        follow = hand & SUIT_MASKS[led]
        if follow:
            if led == trump:  # R5.2: overtrump when able, even when the partner is winning
                higher = follow & HIGHER_TRUMP[self.trick_best_trump]
                return higher or follow
            return follow  # R5.2
        if trump < 0:
            return hand  # R5.3
        if self.trick_winner == (self.to_act + 2) % NUM_SEATS:
            return hand  # R5.4: partner winning
        trumps = hand & SUIT_MASKS[trump]
        if not trumps:
            return hand  # R5.4: no trump at all
        if self.trick_best_trump >= 0:
            higher = trumps & HIGHER_TRUMP[self.trick_best_trump]
            return higher or trumps  # R5.4: higher trump when holding one, else any trump
        return trumps

    def is_legal(self, action: int) -> bool:
        if isinstance(action, bool) or not isinstance(action, int):  # as apply(): True is not action 1
            return False
        return 0 <= action < 42 and bool(self.legal_mask() >> action & 1)

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
                    action = operator.index(action)  # numpy integers, as policies return them
                except TypeError:
                    pass
            if isinstance(action, bool) or not isinstance(action, int):
                raise self._illegal(action, mask)
        if not 0 <= action < 42 or not mask >> action & 1:
            raise self._illegal(action, mask)
        return action

    def apply(self, action: int) -> None:
        """Apply the acting seat's action; raises IllegalActionError if the rules forbid it."""
        action = self.verify(action)
        self.history.append(action)
        phase = self.phase
        if phase == PLAY:
            self._play_card(action)
        elif phase == BIDDING:
            self._bid(action)
        else:
            self._double(action)

    def _illegal(self, action: object, mask: int) -> IllegalActionError:
        if self.phase == DONE:
            return IllegalActionError(f"action {action!r}: the hand is over, no seat may act")
        legal = [action_name(a) for a in range(42) if mask >> a & 1]
        what = action_name(action) if isinstance(action, int) and 0 <= action < 42 else repr(action)
        return IllegalActionError(
            f"seat {self.to_act} may not play {what} ({action!r}) in the {self.phase} phase; legal: {legal}"
        )

    def _bid(self, action: int) -> None:
        """R3: record one call and settle the contract when the calling is over."""
        seat = self.to_act
        self.bids.append((self.bid_round, seat, action))
        if action == SUN_ACTION:  # R3.2, R3.4
            self._settle(SUN, -1, seat)
            return
        if action != PASS:
            if self.bid_round == 2:  # R3.4: the first call settles at once
                self._settle(HOKUM, action - HOKUM_BASE, seat)
                return
            self.hokum_bidder = seat  # R3.3: round 1 runs on (a later seat may say sun)
        if seat == self.dealer:  # the round's last speaker
            if self.bid_round == 1:
                if self.hokum_bidder >= 0:  # R3.3
                    self._settle(HOKUM, self.deal.turned >> 3, self.hokum_bidder)
                    return
                self.bid_round = 2  # R3.4
            else:
                self._throw_in()  # R3.5
                return
        self.to_act = (seat + 1) % NUM_SEATS

    def _settle(self, contract: str, trump: int, caller: int) -> None:
        """The contract is settled: deal the stock (R2.3), declare projects (R6), then R4."""
        self.contract, self.trump, self.caller = contract, trump, caller
        stock = list(self.deal.stock)
        pos = 0
        for i in range(NUM_SEATS):  # R2.3: from the dealer's right, in play order
            seat = (self.dealer + 1 + i) % NUM_SEATS
            if seat == caller:
                take = [self.deal.turned] + stock[pos : pos + 2]
                pos += 2
            else:
                take = stock[pos : pos + 3]
                pos += 3
            self.hands[seat] |= mask_of(take)
        self.full_hands = self.hands[:]
        hokum = contract == HOKUM
        if self.rules.projects:  # R6.1, R6.5, R6.6
            self.projects = [declare_projects(h, hokum, self.rules.four_aces_hokum) for h in self.hands]
            if hokum:
                for seat in range(NUM_SEATS):
                    if has_baloot(self.hands[seat], trump):
                        self.baloot_seat = seat
        doubled = self.rules.doubling and (hokum or self.rules.sun_double)  # R4.3, V1, V3
        if doubled:
            self.phase = DOUBLING
            self.to_act = (caller + 1) % NUM_SEATS  # R4.2: the first defender after the caller
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = PLAY
        self.to_act = (self.dealer + 1) % NUM_SEATS  # R5.1

    def _double(self, action: int) -> None:
        """R4.2: the entitled team's two players speak in turn; a raise hands over the turn."""
        seat = self.to_act
        self.doubling_calls.append((seat, action))
        if action == PASS:
            self.doubling_passes += 1
            if self.doubling_passes == 2:
                self._start_play()
            else:
                self.to_act = (seat + 2) % NUM_SEATS  # the entitled team's other player
            return
        self.level += 1
        self.last_raiser = seat
        self.doubling_passes = 0
        if action == GAHWA_ACTION or self.contract == SUN:  # R4.2 gahwa closes; V1 one double
            self._start_play()
        else:
            self.to_act = (seat + 1) % NUM_SEATS  # the other team, first after the raiser

    def _throw_in(self) -> None:
        """R3.5: all passed twice; nobody scores."""
        self.phase = DONE
        self.to_act = -1
        self.result = HandResult.thrown_in(self.dealer)

    def _play_card(self, card: int) -> None:
        """R5: play one card, record what it shows, and close the trick after four."""
        seat = self.to_act
        bit = _CARD_BITS[card]
        self.hands[seat] ^= bit
        self.played_by[seat] |= bit
        suit = card >> 3
        trump = self.trump
        cards = self.trick_cards
        if not cards:
            self.trick_winner, self.trick_win_card = seat, card
            self.trick_best_trump = card if suit == trump else -1
        else:
            led = cards[0] >> 3
            best_trump = self.trick_best_trump
            if suit != led:
                self.voids[seat] |= 1 << led  # R5.2: did not follow
                if trump >= 0 and led != trump and self.trick_winner != (seat + 2) % NUM_SEATS:
                    if suit != trump:
                        self.voids[seat] |= 1 << trump  # R5.4: had to trump
                    elif best_trump >= 0 and not HIGHER_TRUMP[best_trump] & bit:
                        self.no_trumps[seat] |= HIGHER_TRUMP[best_trump]  # R5.4: could not overtrump
            elif suit == trump and not HIGHER_TRUMP[best_trump] & bit:
                self.no_trumps[seat] |= HIGHER_TRUMP[best_trump]  # R5.2: could not overtrump
            win = self.trick_win_card
            if suit == trump:
                if win >> 3 != trump or TRUMP_STRENGTH[card & 7] > TRUMP_STRENGTH[win & 7]:
                    self.trick_winner, self.trick_win_card = seat, card
                if best_trump < 0 or TRUMP_STRENGTH[card & 7] > TRUMP_STRENGTH[best_trump & 7]:
                    self.trick_best_trump = card
            elif suit == led and win >> 3 == led and PLAIN_STRENGTH[card & 7] > PLAIN_STRENGTH[win & 7]:
                self.trick_winner, self.trick_win_card = seat, card
        if self.baloot_seat == seat and suit == trump and card & 7 in (KING, QUEEN):
            other = 8 * trump + (KING if card & 7 == QUEEN else QUEEN)
            if self.played_by[seat] >> other & 1:
                self.baloot_announced = True  # R6.5: public at the second of K and Q
        cards.append(card)
        self.trick_seats.append(seat)
        if len(cards) < NUM_SEATS:
            self.to_act = (seat + 1) % NUM_SEATS
            return
        winner = self.trick_winner
        pts = _POINTS[trump]  # R1.4
        points = pts[cards[0]] + pts[cards[1]] + pts[cards[2]] + pts[cards[3]]
        self.tricks.append((self.trick_seats[0], tuple(cards), winner))
        if len(self.tricks) == NUM_TRICKS:
            points += LAST_TRICK_BONUS  # R1.4
        self.tricks_won[winner % 2] += 1
        self.raw[winner % 2] += points
        self.trick_cards = []
        self.trick_seats = []
        self.trick_winner = self.trick_win_card = self.trick_best_trump = -1
        if len(self.tricks) == NUM_TRICKS:
            self._finish()
        else:
            self.to_act = winner  # R5.1

    def _finish(self) -> None:
        """R7: score the played hand."""
        hokum = self.contract == HOKUM
        per_team = scoring_projects(self.projects, self.dealer, self.tricks_won, hokum)
        baloot = [0, 0]
        if self.baloot_seat >= 0:
            baloot[self.baloot_seat % 2] = BALOOT_POINTS
        hs = score_hand(
            self.contract, self.caller, self.level, self.raw, self.tricks_won, per_team, baloot,
            self.rules, self.match_score,
        )  # fmt: skip
        self.phase = DONE
        self.to_act = -1
        self.result = HandResult.played(self, per_team, baloot, hs)

    # ------------------------------------------------------------------ public views
    def projects_public(self, seat: int) -> bool:
        """R6.2: a seat's projects are public once it has played to the first trick."""
        return bool(self.tricks) or seat in self.trick_seats

    @property
    def trick_number(self) -> int:
        return len(self.tricks)

    # ------------------------------------------------------------------ saving
    def snapshot(self) -> dict:
        """Every field as plain JSON data; two states are equal iff their snapshots are."""
        return {
            "dealer": self.dealer,
            "phase": self.phase,
            "to_act": self.to_act,
            "hands": self.hands[:],
            "bid_round": self.bid_round,
            "bids": [list(b) for b in self.bids],
            "hokum_bidder": self.hokum_bidder,
            "contract": self.contract,
            "trump": self.trump,
            "caller": self.caller,
            "level": self.level,
            "doubling_calls": [list(c) for c in self.doubling_calls],
            "last_raiser": self.last_raiser,
            "doubling_passes": self.doubling_passes,
            "full_hands": self.full_hands[:],
            "projects": [[p.to_dict() for p in ps] for ps in self.projects],
            "baloot_seat": self.baloot_seat,
            "baloot_announced": self.baloot_announced,
            "trick_seats": self.trick_seats[:],
            "trick_cards": self.trick_cards[:],
            "trick_winner": self.trick_winner,
            "trick_win_card": self.trick_win_card,
            "trick_best_trump": self.trick_best_trump,
            "tricks": [[t[0], list(t[1]), t[2]] for t in self.tricks],
            "tricks_won": self.tricks_won[:],
            "raw": self.raw[:],
            "played_by": self.played_by[:],
            "voids": self.voids[:],
            "no_trumps": self.no_trumps[:],
            "history": self.history[:],
            "result": self.result.to_info() if self.result else None,
            "match_score": list(self.match_score),
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandState):
            return NotImplemented
        return self.rules == other.rules and self.deal == other.deal and self.snapshot() == other.snapshot()

    __hash__ = None  # mutable

    def to_json(self) -> dict:
        """Saved form: format version, rules, deal, match score, action history and a snapshot.

        Restoring replays the history (the rules are the only authority) and then checks the
        snapshot, so a corrupt or hand-edited file is refused instead of silently diverging.
        """
        return {
            "format": STATE_FORMAT,
            "rules": self.rules.to_dict(),
            "deal": self.deal.to_dict(),
            "match_score": list(self.match_score),
            "history": self.history[:],
            "snapshot": self.snapshot(),
        }

    @classmethod
    def from_json(cls, data: dict) -> HandState:
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
        from baloot_env.deal import parse_deal
        from baloot_env.errors import BalootError, StateError
        from baloot_env.rules import match_score_problem

        if not isinstance(data, dict):
            raise StateError(
                f"a saved hand state must be a dict with the fields {list(SAVED_FIELDS)}, got {type(data).__name__}"
            )
        fmt = data.get("format")
        if not (isinstance(fmt, str) and fmt == STATE_FORMAT):
            raise StateError(f"saved hand state field 'format' must be {STATE_FORMAT!r}, got {fmt!r}")
        missing = [k for k in SAVED_FIELDS if k not in data]
        if missing:
            raise StateError(f"saved hand state is missing the fields {missing}")
        unknown = sorted((k for k in data if k not in SAVED_FIELDS), key=repr)
        if unknown:
            raise StateError(f"saved hand state has unknown fields {unknown}; known: {list(SAVED_FIELDS)}")

        def bad(field: str, what: object) -> StateError:
            return StateError(f"saved hand state field {field!r}: {what}")

        try:
            rules = RuleConfig.from_dict(data["rules"])
        except (TypeError, ValueError) as e:
            raise bad("rules", e) from None
        try:
            deal = parse_deal(data["deal"])
        except (TypeError, ValueError) as e:
            raise bad("deal", e) from None
        score = data["match_score"]
        if not (isinstance(score, list) and len(score) == 2 and all(type(x) is int for x in score)):
            raise bad("match_score", f"must be a list of two ints [team 0, team 1], got {score!r}")
        problem = match_score_problem((score[0], score[1]), rules)
        if problem:
            raise bad("match_score", problem)
        history = data["history"]
        if not (isinstance(history, list) and all(type(a) is int for a in history)):
            raise bad("history", f"must be a list of action ids (ints, R9), got {history!r:.80}")
        try:
            state = cls.replay(deal, history, rules, (score[0], score[1]))
        except BalootError as e:
            raise bad("history", f"does not replay: {e}") from None
        saved = data["snapshot"]
        if not isinstance(saved, dict):
            raise bad("snapshot", f"must be a dict, got {type(saved).__name__}")
        want = state.snapshot()
        diff = sorted(
            (k for k in want.keys() | saved.keys() if not (k in want and k in saved and _same(want[k], saved[k]))),
            key=repr,
        )
        if diff:
            raise bad("snapshot", f"disagrees with the replay of the history in {diff}")
        return state

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


def _match_score(score: object) -> tuple[int, int]:
    """``score`` as two non-negative ints (numpy ints welcome; bools, floats and strings not)."""
    from baloot_env.errors import BalootError

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


def _same(a: object, b: object) -> bool:
    """Equal as JSON data, types included: ``1 == 1.0 == True`` in Python, not here."""
    if type(a) is not type(b) and not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


# 2: the snapshot holds the match score and is required (1 had neither); 1 is refused by name.
STATE_FORMAT = "baloot-hand-2"
SAVED_FIELDS = ("format", "rules", "deal", "match_score", "history", "snapshot")
