"""The engine's ``HandState`` as one row of the batched core (``state``'s columns).

``state_row(state, match)`` writes every column the rules read from the engine's fields, so a
game can be handed from the readable engine to the kernels mid-hand: an evaluation position, or a
search player's sampled world (whose ``deal`` is not known: its ``DEAL`` columns are then -1 but
for the turned card). ``tests/agents/test_search_core.py`` proves it column for column against the
core's own rows on the same deals and actions, and the observations and masks of converted
states against the engine's ``encode`` and ``action_mask`` for every seat.

Plain Python (no kernel): it runs once per position.
"""

from __future__ import annotations

import numpy as np

from baloot_env.actions import DOUBLE, PASS
from baloot_env.batch.projects import project_key
from baloot_env.batch.state import (
    BALOOT_ANNOUNCED,
    BALOOT_SEAT,
    BID_ROUND,
    BIDS,
    CALLER,
    CONTRACT,
    DEAL,
    DEAL_TURNED,
    DEALER,
    DEALS_PLAYED,
    DOUBLING_CALLS,
    DOUBLING_PASSES,
    EPISODE_OVER,
    HANDS,
    HANDS_SCORED,
    HOKUM,
    HOKUM_BIDDER,
    LAST_RAISER,
    LEVEL,
    MATCH_SCORE,
    NO_TRUMPS,
    NUM_FIELDS,
    PHASE,
    PLAYED_BY,
    PROJECT_CARDS,
    PROJECT_KEY,
    PROJECT_KINDS,
    QUEUE_LEN,
    QUEUE_POS,
    RAW,
    SUN,
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
from baloot_env.batch.tables import KINDS
from baloot_env.cards import NUM_CARDS
from baloot_env.hand import PHASES, HandState
from baloot_env.match import MatchState
from baloot_env.scoring import HOKUM as _HOKUM_NAME
from baloot_env.scoring import SUN as _SUN_NAME
from baloot_env.seats import NUM_SEATS

_CONTRACTS = {None: -1, _HOKUM_NAME: HOKUM, _SUN_NAME: SUN}
_MAX_PROJECTS = 2  # per seat: eight cards hold at most two projects (R6.1)


def state_row(
    state: HandState, match: MatchState | None = None, turned: int | None = None, out: np.ndarray | None = None
) -> np.ndarray:
    """``state`` as an int64[NUM_FIELDS] row of the core (columns of ``batch.state``).

    Args:
        state: the hand, in any phase.
        match: the match it belongs to (its books: ``DEALS_PLAYED``, ``HANDS_SCORED``); None for
            a hand episode. The match score is the state's own ``match_score``.
        turned: the turned card when ``state.deal`` is None (a sampled world, R2.2); with a deal
            it is read from the deal and must agree.
        out: a row to fill instead of a new one.

    Raises:
        ValueError: no deal and no turned card, a turned card that is not the deal's, or a
            field the core cannot hold (a seat with more than two projects).
    """
    row = np.zeros(NUM_FIELDS, dtype=np.int64) if out is None else out
    row[:] = 0
    deal = state.deal
    if deal is not None:
        cards = [c for h in deal.hands for c in h] + [deal.turned, *deal.stock]
        row[DEAL : DEAL + NUM_CARDS] = cards  # as ``game.deal_row``: hands, turned card, stock
        if turned is not None and turned != deal.turned:
            raise ValueError(f"turned card {turned} is not the deal's ({deal.turned})")
    else:
        if turned is None:
            raise ValueError("a state without a deal needs its turned card (R2.2)")
        row[DEAL : DEAL + NUM_CARDS] = -1  # not known: the first cards and the stock order
        row[DEAL + DEAL_TURNED] = turned
    row[DEALER] = state.dealer
    row[PHASE] = PHASES.index(state.phase)
    row[TO_ACT] = state.to_act
    row[BID_ROUND] = state.bid_round
    row[BIDS : BIDS + 2 * NUM_SEATS] = -1
    for rnd, seat, action in state.bids:
        row[BIDS + NUM_SEATS * (rnd - 1) + seat] = action
    row[HOKUM_BIDDER] = state.hokum_bidder
    row[CONTRACT] = _CONTRACTS[state.contract]
    row[TRUMP] = state.trump
    row[CALLER] = state.caller
    row[LEVEL] = state.level
    for seat, action in state.doubling_calls:  # bits: 0 passed, 1-4 double, three, four, gahwa
        row[DOUBLING_CALLS + seat] |= 1 if action == PASS else 1 << (action - DOUBLE + 1)
    row[LAST_RAISER] = state.last_raiser
    row[DOUBLING_PASSES] = state.doubling_passes
    for seat in range(NUM_SEATS):
        row[HANDS + seat] = state.hands[seat]
        row[PLAYED_BY + seat] = state.played_by[seat]
        row[VOIDS + seat] = state.voids[seat]
        row[NO_TRUMPS + seat] = state.no_trumps[seat]
        projects = state.projects[seat]
        if len(projects) > _MAX_PROJECTS:
            raise ValueError(f"seat {seat} has {len(projects)} projects; eight cards hold at most two (R6.1)")
        cards = key = 0
        row[PROJECT_KINDS + 2 * seat : PROJECT_KINDS + 2 * seat + 2] = -1
        for i, p in enumerate(projects):
            kind = KINDS.index(p.kind)
            row[PROJECT_KINDS + 2 * seat + i] = kind
            for c in p.cards:
                cards |= 1 << c
            key = max(key, project_key(kind, int(p.is_run), p.top))  # R6.3
        row[PROJECT_CARDS + seat] = cards
        row[PROJECT_KEY + seat] = key
    row[BALOOT_SEAT] = state.baloot_seat
    row[BALOOT_ANNOUNCED] = state.baloot_announced
    row[TRICK_CARDS : TRICK_CARDS + NUM_SEATS] = -1
    for i, c in enumerate(state.trick_cards):
        row[TRICK_CARDS + i] = c
    row[TRICK_SIZE] = len(state.trick_cards)
    row[TRICK_LEADER] = state.trick_seats[0] if state.trick_seats else -1
    row[TRICK_WINNER] = state.trick_winner
    row[TRICK_WIN_CARD] = state.trick_win_card
    row[TRICK_BEST_TRUMP] = state.trick_best_trump
    row[TRICKS_PLAYED] = len(state.tricks)
    for t in range(2):
        row[TRICKS_WON + t] = state.tricks_won[t]
        row[RAW + t] = state.raw[t]
        row[MATCH_SCORE + t] = state.match_score[t]
    if match is not None:
        row[DEALS_PLAYED] = match.deals_played
        row[HANDS_SCORED] = match.hands_scored
    row[EPISODE_OVER] = 0
    row[QUEUE_LEN] = 0
    row[QUEUE_POS] = 0
    return row


__all__ = ["state_row"]
