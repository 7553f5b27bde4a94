"""One game of the batched core read back in the driver's forms: ``CoreTable``.

``baloot_env.lockstep_core`` plays N games on the compiled core (``baloot_env.batch``), one row
of its state matrix per game. Everything outside the kernels speaks the engine's language
(``HandState``, ``MatchState``, ``MatchContext``, the agents' ``PlayerView``), so each game has a
``CoreTable``: the same face as ``baloot_env.driver.Table`` (``hand``, ``match``, ``context``,
``to_act``, ``deals``, ``reset``, ``to_data`` / ``load_data``) over its row.

``hand_from_row`` rebuilds the engine's ``HandState`` of a row field by field (``HandState.
from_fields``): the row holds every field but the order of the calls and cards, which the
lockstep keeps beside it as the hand's history of (seat, action). ``tests/baloot_env/test_lockstep_core.py``
holds the result equal to the engine's own state (``HandState.__eq__``: every field) at every
step of random games, and ``load_data`` checks it again on every restore.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from baloot_env.actions import PASS
from baloot_env.batch.state import (
    BALOOT_ANNOUNCED,
    BALOOT_SEAT,
    BID_ROUND,
    BIDS,
    CALLER,
    CONTRACT,
    DEALER,
    DEALS_PLAYED,
    DONE,
    DOUBLING_PASSES,
    HANDS,
    HANDS_SCORED,
    HOKUM,
    HOKUM_BIDDER,
    LAST_RAISER,
    LEVEL,
    MATCH_SCORE,
    NO_TRUMPS,
    PHASE,
    PLAYED_BY,
    RAW,
    TO_ACT,
    TRICK_BEST_TRUMP,
    TRICK_WIN_CARD,
    TRICK_WINNER,
    TRICKS_WON,
    TRUMP,
    VOIDS,
)
from baloot_env.cards import NUM_SEATS
from baloot_env.deal import Deal
from baloot_env.driver import DealSource
from baloot_env.errors import BalootError
from baloot_env.hand import PHASES, HandState
from baloot_env.match import SINGLE_HAND, MatchContext, MatchState
from baloot_env.projects import Project, declare_projects
from baloot_env.results import HandResult
from baloot_env.rules import RuleConfig
from baloot_env.scoring import HOKUM as HOKUM_NAME
from baloot_env.scoring import SUN as SUN_NAME

if TYPE_CHECKING:
    from baloot_env.lockstep_core import CoreLockstep

__all__ = ["CoreTable", "hand_from_row", "hand_result"]


def hand_from_row(
    row: list[int],
    history: list[tuple[int, int]],
    deal: Deal,
    rules: RuleConfig,
    projects: list[list[Project]] | None = None,
) -> HandState:
    """The engine's ``HandState`` of a hand in progress in the core.

    Args:
        row: the game's row of the core's state matrix, as Python ints.
        history: the hand's (seat, action) pairs in the order they were played.
        deal: the hand's deal (with its dealer, R2.4).
        rules: the table's variants.
        projects: the declared projects (R6.1) when already computed for this hand.
    """
    dealer = row[DEALER]
    bids: list[tuple[int, int, int]] = []
    n_bids = sum(1 for a in row[BIDS : BIDS + 2 * NUM_SEATS] if a >= 0)
    bid_round = 1
    for seat, action in history[:n_bids]:  # R3.1, R3.4: round 2 follows the dealer's round-1 call
        bids.append((bid_round, seat, action))
        if seat == dealer:
            bid_round = 2
    doubling = [(s, a) for s, a in history[n_bids:] if a >= PASS]
    cards = [(s, a) for s, a in history[n_bids:] if a < PASS]
    complete = len(cards) - len(cards) % NUM_SEATS
    tricks = []
    for t in range(0, complete, NUM_SEATS):
        trick = cards[t : t + NUM_SEATS]
        winner = cards[t + NUM_SEATS][0] if t + NUM_SEATS < len(cards) else row[TO_ACT]  # the winner leads (R5.1)
        tricks.append((trick[0][0], tuple(c for _, c in trick), winner))
    contract_id = row[CONTRACT]
    contract = None if contract_id < 0 else (HOKUM_NAME if contract_id == HOKUM else SUN_NAME)
    hands = row[HANDS : HANDS + NUM_SEATS]
    played_by = row[PLAYED_BY : PLAYED_BY + NUM_SEATS]
    full_hands = [h | p for h, p in zip(hands, played_by, strict=True)] if contract else [0] * NUM_SEATS
    if projects is None:
        projects = project_lists(full_hands, contract, rules)
    return HandState.from_fields(
        {
            "rules": rules,
            "deal": deal,
            "dealer": dealer,
            "phase": PHASES[row[PHASE]],
            "to_act": row[TO_ACT],
            "hands": hands,
            "bid_round": row[BID_ROUND],
            "bids": bids,
            "hokum_bidder": row[HOKUM_BIDDER],
            "contract": contract,
            "trump": row[TRUMP],
            "caller": row[CALLER],
            "level": row[LEVEL],
            "doubling_calls": doubling,
            "last_raiser": row[LAST_RAISER],
            "doubling_passes": row[DOUBLING_PASSES],
            "full_hands": full_hands,
            "projects": projects,
            "baloot_seat": row[BALOOT_SEAT],
            "baloot_announced": bool(row[BALOOT_ANNOUNCED]),
            "trick_seats": [s for s, _ in cards[complete:]],
            "trick_cards": [c for _, c in cards[complete:]],
            "trick_winner": row[TRICK_WINNER],
            "trick_win_card": row[TRICK_WIN_CARD],
            "trick_best_trump": row[TRICK_BEST_TRUMP],
            "tricks": tricks,
            "tricks_won": row[TRICKS_WON : TRICKS_WON + 2],
            "raw": row[RAW : RAW + 2],
            "played_by": played_by,
            "voids": row[VOIDS : VOIDS + NUM_SEATS],
            "no_trumps": row[NO_TRUMPS : NO_TRUMPS + NUM_SEATS],
            "history": [a for _, a in history],
            "result": None,
            "match_score": (row[MATCH_SCORE], row[MATCH_SCORE + 1]),
        }
    )


def project_lists(full_hands: list[int], contract: str | None, rules: RuleConfig) -> list[list[Project]]:
    """Every seat's declared projects once the contract is settled (R6.1, V2), as ``bidding.settle``."""
    if contract is None or not rules.projects:
        return [[] for _ in range(NUM_SEATS)]
    hokum = contract == HOKUM_NAME
    return [declare_projects(h, hokum, rules.four_aces_hokum) for h in full_hands]


def hand_result(info: dict[str, Any]) -> HandResult:
    """A ``HandResult`` from its R11.4 info (``HandResult.to_info()``), lists back to tuples."""
    return HandResult(
        contract=info["contract"],
        trump=info["trump"],
        caller=info["caller"],
        level=info["level"],
        raw=tuple(info["raw"]),
        tricks=tuple(info["tricks"]),
        projects=(tuple(info["projects"][0]), tuple(info["projects"][1])),
        baloot=tuple(info["baloot"]),
        kaboot=info["kaboot"],
        callers_won=info["callers_won"],
        score=tuple(info["score"]),
        gahwa_winner=info["gahwa_winner"],
        dealer=info["dealer"],
    )


class CoreTable:
    """Game ``index`` of a ``CoreLockstep``, with the face of the driver's ``Table``.

    Deals come from ``deals`` (a ``driver.DealSource``, as a ``Table``'s): the lockstep queues
    each one in the core just before the core deals it, so a core game plays exactly the deals a
    ``Table`` with the same source plays (R2.1 rotation included). ``results`` holds the hand
    results of the match in progress (match episodes), as ``MatchState.results``.
    """

    def __init__(self, lockstep: CoreLockstep, index: int, rules: RuleConfig, episode: str):
        self.rules = rules
        self.episode = episode
        self.deals = DealSource()
        self.deal: Deal | None = None  # the current hand's deal; None before the first
        self.results: list[HandResult] = []
        self._lockstep = lockstep
        self.index = index
        self._projects: list[list[Project]] | None = None  # the current hand's, once settled

    def _row(self) -> list[int]:
        row: list[int] = self._lockstep.core.state.games[self.index].tolist()
        return row

    @property
    def to_act(self) -> int:
        """The seat to act; -1 when the hand is over or none has started."""
        return int(self._lockstep.core.state.games[self.index, TO_ACT])

    @property
    def over(self) -> bool:
        return self.to_act < 0

    @property
    def hand(self) -> HandState | None:
        """The hand in progress in the engine's form (None before the first deal)."""
        if self.deal is None:
            return None
        row = self._row()
        if row[PHASE] == DONE:
            raise BalootError("a core game's finished hand is not kept in the engine's form")
        contract = row[CONTRACT] >= 0
        if self._projects is None and contract:
            full = [row[HANDS + s] | row[PLAYED_BY + s] for s in range(NUM_SEATS)]
            self._projects = project_lists(full, HOKUM_NAME if row[CONTRACT] == HOKUM else SUN_NAME, self.rules)
        projects = self._projects if contract else None
        return hand_from_row(row, self._lockstep.history(self.index), self.deal, self.rules, projects)

    @property
    def match(self) -> MatchState | None:
        """The match in progress in the engine's form (match episodes), its current hand included."""
        if self.episode == "hand" or self.deal is None:
            return None
        row = self._row()
        m = MatchState(self.rules)
        m.score = [row[MATCH_SCORE], row[MATCH_SCORE + 1]]
        m.deals_played, m.hands_scored = row[DEALS_PLAYED], row[HANDS_SCORED]
        m.results = self.results[:]
        m.hand = self.hand
        return m

    @property
    def context(self) -> MatchContext:
        """The match around the current hand, as every seat knows it (``match.match_context``)."""
        if self.episode == "hand":
            return SINGLE_HAND
        row = self._row()
        rules = self.rules
        left = max(rules.hands - row[HANDS_SCORED], 0) if rules.match == "hands" else 0
        return MatchContext(rules.match, (row[MATCH_SCORE], row[MATCH_SCORE + 1]), row[DEALS_PLAYED], left)

    def reset(self, deals: DealSource | None = None) -> None:
        """Start a new episode with the next deal of ``deals`` (as ``Table.reset``); the core deals
        it at the lockstep's next flush.

        Raises:
            BalootError: the deal source has no deal to give.
        """
        if deals is not None:
            self.deals = deals
        deal = self.deals.next_deal(None)
        if deal is None:
            raise BalootError("the table's deal source has no deal to start an episode with")
        self.results = []
        self._lockstep.queue_deal(self.index, deal, new_episode=True)

    def dealt(self, deal: Deal | None) -> None:
        """The core has dealt ``deal`` (None: the game is not started)."""
        self.deal = deal
        self._projects = None

    # ------------------------------------------------------------------ saving
    def to_data(self) -> dict[str, Any]:
        """The hand and the match as plain data, exactly as ``Table.to_data`` (the two backends'
        checkpoints are one format)."""
        match = self.match
        hand = self.hand
        return {
            "hand": hand.to_json() if hand is not None else None,
            "match": match.to_data() if match is not None else None,
        }

    def load_data(self, data: dict[str, Any]) -> None:
        """Restore ``to_data()`` (of either backend): the saved hand is replayed in the core.

        Raises:
            StateError: a malformed hand; ValueError: a hand under other rules, a malformed
                match, or a hand the core does not replay to the same state.
        """
        hand = HandState.from_json(data["hand"]) if data["hand"] is not None else None
        if hand is not None and hand.rules != self.rules:
            raise ValueError("a saved game was played under other rules than this table's")
        match = MatchState.from_data(data["match"], self.rules, hand) if data["match"] is not None else None
        if hand is not None and (match is None) != (self.episode == "hand"):
            raise ValueError(f"a saved game does not fit a {self.episode} episode")
        if hand is not None and hand.done:
            raise ValueError("a saved game's hand is over: the core backend keeps games in progress only")
        self._lockstep.load_game(self.index, hand, match)
        self.results = list(match.results) if match is not None else []
        if hand is not None and self.hand != hand:
            raise ValueError("a saved hand does not replay to the same state in the batched core")


def history_pairs(actions: np.ndarray, seats: np.ndarray, length: int) -> list[tuple[int, int]]:
    """(seat, action) pairs of a hand's history arrays."""
    return list(zip(seats[:length].tolist(), actions[:length].tolist(), strict=True))
