"""What a seat may know (``PlayerView``): the information set that every agent acts on.

A ``PlayerView`` holds exactly what the seat may know under the rules: its own cards, the
turned card (R2.2), every call (R3, R4), every card played (R5), what the play has shown (voids
and missing trumps, R5.2, R5.4), projects once public (R6.2), the baloot once announced (R6.5),
the rule variants of the table (public, V1-V9) and the match around the hand (mode, score,
deals played, hands left, R8). The cards of the other seats and the stock are never copied into
it, and it keeps no handle to the full state: its observation vector is computed from its own
fields (``baloot_env.observation.encode_view``), equal bit for bit to the environment's
``encode(state, seat, context)`` (tests/baloot_env/test_barrier.py).

Legality comes from one place, ``HandState.legal_mask()`` (R9); the view copies that mask.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from baloot_env.actions import NUM_ACTIONS
from baloot_env.cards import NUM_SEATS, cards_of
from baloot_env.match import MatchContext
from baloot_env.rules import RuleConfig
from baloot_env.seats import partner_of, team_of

if TYPE_CHECKING:
    import numpy as np

    from baloot_env.driver import Table
    from baloot_env.hand import HandState
    from baloot_env.projects import Project


@dataclass(frozen=True, slots=True, eq=False)
class PlayerView:
    """What seat ``seat`` may know at its turn (or at any moment, for observers).

    Cards are ids and sets of cards are 32-bit masks (R1.2); actions are R9 ids; trump is -1
    in Sun or before the contract; caller is -1 before the contract. A view is a snapshot: it
    stays the view of the moment it was built.

    Attributes:
        seat: the seat this view belongs to.
        phase: "bidding", "doubling", "play" or "done".
        to_act: the seat whose turn it is (-1 when the hand is over).
        dealer: the dealer (R2.1).
        hand: the seat's current cards (mask).
        full_hand: the seat's 8 cards after the deal (R2.3); 0 before the contract.
        legal_mask: bit ``a`` set iff action ``a`` is legal for this seat now (0 if not its turn).
        turned: the turned card (R2.2).
        bid_round: 1 or 2 (R3.1, R3.4).
        bids: (round, seat, action) of every call so far.
        doubling_calls: (seat, action) of every doubling call so far (R4).
        contract: "hokum", "sun" or None.
        trump, caller, level: the contract's trump suit, caller and level (R4.1).
        last_raiser: the seat that raised last (R7.1), -1 if none.
        trick_seats, trick_cards: the trick so far, in play order.
        trick_winner: the seat winning the trick so far (-1 before its first card).
        tricks: completed tricks as (leader, cards, winner).
        played_by: per seat, the cards it has played (mask).
        voids: per seat, suit bits it has shown it lacks (R5.2, R5.4).
        no_trumps: per seat, trumps it cannot hold (R5.2, R5.4).
        projects: per seat, its declared projects when public (R6.2) or the seat's own.
        baloot_seat: the seat holding the baloot when announced (R6.5) or when it is this seat.
        baloot_announced: the baloot has been announced (R6.5: both K and Q of trump played).
        tricks_won, raw: per team.
        rules: the table's rule variants (public, V1-V9).
        match_mode: "hand" (a single-hand episode), "target" (R8.1) or "hands" (R8.2).
        match_score: the match score, teams 0 and 1 (before this hand while it runs, R8).
        deals_played: deals finished in this match (R8.4).
        hands_left: in hands mode, scored hands still to play (R8.2); 0 otherwise.
    """

    seat: int
    phase: str
    to_act: int
    dealer: int
    hand: int
    full_hand: int
    legal_mask: int
    turned: int
    bid_round: int
    bids: tuple[tuple[int, int, int], ...]
    doubling_calls: tuple[tuple[int, int], ...]
    contract: str | None
    trump: int
    caller: int
    level: int
    last_raiser: int
    trick_seats: tuple[int, ...]
    trick_cards: tuple[int, ...]
    trick_winner: int
    tricks: tuple[tuple[int, tuple[int, ...], int], ...]
    played_by: tuple[int, ...]
    voids: tuple[int, ...]
    no_trumps: tuple[int, ...]
    projects: tuple[tuple[Project, ...], ...]
    baloot_seat: int
    baloot_announced: bool
    tricks_won: tuple[int, int]
    raw: tuple[int, int]
    rules: RuleConfig
    match_mode: str
    match_score: tuple[int, int]
    deals_played: int
    hands_left: int
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)  # the observation, once computed

    @classmethod
    def from_state(cls, state: HandState, seat: int, match: MatchContext | None = None) -> PlayerView:
        """Copy what ``seat`` may know out of a live ``HandState``.

        Args:
            state: the hand.
            seat: the seat whose knowledge to copy (0-3).
            match: the match around the hand (``Table.context``, ``baloot_env.match.match_context``);
                None: the hand is played on its own, at the match score it was dealt with.
        """
        if not 0 <= seat < NUM_SEATS:
            raise ValueError(f"seat must be 0-3, got {seat!r}")
        if match is None:
            match = MatchContext(score=state.match_score)
        projects = tuple(
            tuple(state.projects[s]) if s == seat or state.projects_public(s) else () for s in range(NUM_SEATS)
        )  # R6.2
        bs = state.baloot_seat
        baloot_seat = bs if bs >= 0 and (state.baloot_announced or bs == seat) else -1  # R6.5
        return cls(
            seat=seat,
            phase=state.phase,
            to_act=state.to_act,
            dealer=state.dealer,
            hand=state.hands[seat],
            full_hand=state.full_hands[seat],
            legal_mask=state.legal_mask() if state.to_act == seat else 0,
            turned=state.deal.turned,
            bid_round=state.bid_round,
            bids=tuple(state.bids),
            doubling_calls=tuple(state.doubling_calls),
            contract=state.contract,
            trump=state.trump,
            caller=state.caller,
            level=state.level,
            last_raiser=state.last_raiser,
            trick_seats=tuple(state.trick_seats),
            trick_cards=tuple(state.trick_cards),
            trick_winner=state.trick_winner,
            tricks=tuple(state.tricks),
            played_by=tuple(state.played_by),
            voids=tuple(state.voids),
            no_trumps=tuple(state.no_trumps),
            projects=projects,
            baloot_seat=baloot_seat,
            baloot_announced=state.baloot_announced,
            tricks_won=(state.tricks_won[0], state.tricks_won[1]),
            raw=(state.raw[0], state.raw[1]),
            rules=state.rules,
            match_mode=match.mode,
            match_score=(match.score[0], match.score[1]),
            deals_played=match.deals_played,
            hands_left=match.hands_left,
        )

    @classmethod
    def from_table(cls, table: Table, seat: int) -> PlayerView:
        """The view of ``seat`` at a game driver's table (its hand and match context).

        Raises:
            ValueError: no hand is in play at the table (before ``reset``, after the episode).
        """
        if table.hand is None:
            raise ValueError("the table has no hand in play: reset it first")
        return cls.from_state(table.hand, seat, table.context)

    # ------------------------------------------------------------------ as data
    def to_struct(self) -> dict[str, Any]:
        """This view as JSON-ready data by names, for agents that read text (``view_struct``)."""
        # view_struct imports this module: imported when used
        from baloot_env.view_struct import to_struct

        return to_struct(self)

    @classmethod
    def from_struct(cls, data: dict[str, Any]) -> PlayerView:
        """The view ``to_struct`` wrote (``view_struct.from_struct``)."""
        # view_struct imports this module: imported when used
        from baloot_env.view_struct import from_struct

        return from_struct(data)

    # ------------------------------------------------------------------ derived
    @property
    def legal_actions(self) -> list[int]:
        """Legal action ids, ascending (R9)."""
        return cards_of(self.legal_mask)

    @property
    def hand_cards(self) -> list[int]:
        """The seat's current cards, ascending ids."""
        return cards_of(self.hand)

    @property
    def team(self) -> int:
        """The seat's team (R1.1)."""
        return team_of(self.seat)

    @property
    def partner(self) -> int:
        return partner_of(self.seat)

    @property
    def context(self) -> MatchContext:
        """The match around the hand (R8), as the observation encodes it."""
        return MatchContext(self.match_mode, self.match_score, self.deals_played, self.hands_left)

    def public_fields(self) -> dict[str, Any]:
        """Every public attribute as a dict (tests compare views with it)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__ if not name.startswith("_")}

    def action_mask(self) -> np.ndarray:
        """The int8 mask of length 42 (R9, R11.3), from the same legal mask."""
        # the engine itself needs only the standard library
        import numpy as np

        bits = np.unpackbits(np.frombuffer(self.legal_mask.to_bytes(6, "little"), dtype=np.uint8), bitorder="little")
        return bits[:NUM_ACTIONS].view(np.int8)

    def observation(self) -> Any:
        """The observation vector of this seat (``baloot_env.observation``, float32[OBS_SIZE]),
        computed from the view's own fields and cached; the environment gives the same vector
        for the same situation (``encode(state, seat, context)``)."""
        obs = self._cache.get("obs")
        if obs is None:
            from baloot_env.observation import encode_view  # numpy: imported only when used

            obs = self._cache["obs"] = encode_view(self)
        return obs
