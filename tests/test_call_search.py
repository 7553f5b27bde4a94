"""Searched calls (issue 12): ``search`` with ``calls="searched"``.

The kernel's value of a call in one deal equals the engine's own playout of that deal
(``HandState`` with the Python ``heuristic`` for every seat, scored by R7); conditioning keeps a
deal exactly when the Python heuristic makes the other seats' observed calls; the sampled deals
hold the seat's own cards and the turned card and are otherwise a shuffle of the unseen cards;
the agent's call is one of the best-valued calls; and the seed fixes every choice.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents import HeuristicAgent, PlayerView
from agents.search_player import calls
from agents.search_player.batch_calls import FIRST, call_sums
from agents.search_player.player import SearchAgent, SearchConfig, SearchConfigError
from baloot_env import BIDDING, DONE, HandState, random_deal
from baloot_env.cards import ALL_CARDS_MASK, NUM_SEATS, cards_of
from baloot_env.deal import Deal
from baloot_env.rules import RuleConfig
from baloot_env.seats import other_team, team_of

RULES = (RuleConfig(), RuleConfig(projects=False, sun_double=True), RuleConfig(doubling=False))


def _bidding_views(seed: int, count: int, rules: RuleConfig) -> list[PlayerView]:
    """Bidding decisions with more than one legal call, from hands the heuristic bids."""
    rng = random.Random(seed)
    h = HeuristicAgent(0)
    out: list[PlayerView] = []
    while len(out) < count:
        state = HandState(random_deal(rng), rules, (rng.randrange(0, 140), rng.randrange(0, 140)))
        while state.phase == BIDDING:
            view = PlayerView.from_state(state, state.to_act)
            if len(cards_of(view.legal_mask)) > 1 and rng.random() < 0.5:
                out.append(view)
            # Calls are sometimes random so that some views hold calls the heuristic would not make.
            state.apply(rng.choice(state.legal_actions()) if rng.random() < 0.2 else h.act(view))
    return out[:count]


def _engine_value(view: PlayerView, deal_row: np.ndarray, action: int) -> float:
    """The deal played in the engine: the calls so far, ``action``, then the heuristic to the end."""
    hands = tuple(tuple(int(c) for c in deal_row[FIRST * s : FIRST * s + FIRST]) for s in range(NUM_SEATS))
    deal = Deal(view.dealer, hands, int(deal_row[20]), tuple(int(c) for c in deal_row[21:]))
    state = HandState(deal, view.rules, tuple(view.match_score))
    for _, _, a in view.bids:
        state.apply(a)
    state.apply(action)
    h = HeuristicAgent(0)
    while state.phase != DONE:
        state.apply(h.act(PlayerView.from_state(state, state.to_act)))
    team = team_of(view.seat)
    return float(state.result.score[team] - state.result.score[other_team(team)])


def _heuristic_makes_the_calls(view: PlayerView, deal_row: np.ndarray) -> bool:
    hands = tuple(tuple(int(c) for c in deal_row[FIRST * s : FIRST * s + FIRST]) for s in range(NUM_SEATS))
    deal = Deal(view.dealer, hands, int(deal_row[20]), tuple(int(c) for c in deal_row[21:]))
    state = HandState(deal, view.rules, tuple(view.match_score))
    h = HeuristicAgent(0)
    for _, seat, a in view.bids:
        if seat != view.seat and h.act(PlayerView.from_state(state, seat)) != a:
            return False
        state.apply(a)
    return True


@pytest.mark.parametrize("rules", RULES, ids=["default", "no-projects-sun-double", "no-doubling"])
def test_kernel_values_equal_the_engines_playouts(rules):
    gen = np.random.default_rng(7)
    checked = 0
    for view in _bidding_views(11, 12, rules):
        legal = np.array(cards_of(view.legal_mask), dtype=np.int64)
        unseen = np.array(cards_of(ALL_CARDS_MASK & ~view.hand & ~(1 << view.turned)), dtype=np.int64)
        own = np.array(cards_of(view.hand), dtype=np.int64)
        deals = calls._deals(gen, 3, view.seat, own, unseen, view.turned)
        template = calls._start_row(view, deals[0])
        observed = np.array([(s, a) for _, s, a in view.bids], dtype=np.int64).reshape(-1, 2)
        for d in deals:
            sums = np.zeros(len(legal))
            sw = calls._switches(rules)
            n = call_sums(template, d[None], observed, legal, sw, calls._PAY, calls._BARS,
                          team_of(view.seat), view.seat, False, 1, sums)  # fmt: skip
            assert n == 1
            for i, a in enumerate(legal):
                assert sums[i] == _engine_value(view, d, int(a))
                checked += 1
    assert checked > 50


def test_conditioning_keeps_exactly_the_deals_where_the_heuristic_makes_the_calls():
    gen = np.random.default_rng(3)
    kept = rejected = 0
    for view in _bidding_views(5, 20, RuleConfig()):
        if not any(seat != view.seat for _, seat, _ in view.bids):
            continue
        legal = np.array(cards_of(view.legal_mask), dtype=np.int64)
        unseen = np.array(cards_of(ALL_CARDS_MASK & ~view.hand & ~(1 << view.turned)), dtype=np.int64)
        own = np.array(cards_of(view.hand), dtype=np.int64)
        template = None
        observed = np.array([(s, a) for _, s, a in view.bids], dtype=np.int64).reshape(-1, 2)
        for d in calls._deals(gen, 10, view.seat, own, unseen, view.turned):
            template = template if template is not None else calls._start_row(view, d)
            sums = np.zeros(len(legal))
            n = call_sums(template, d[None], observed, legal, calls._switches(view.rules), calls._PAY,
                          calls._BARS, team_of(view.seat), view.seat, True, 1, sums)  # fmt: skip
            expected = _heuristic_makes_the_calls(view, d)
            assert n == int(expected)
            kept += expected
            rejected += not expected
    assert kept > 0 and rejected > 0


def test_sampled_deals_keep_what_the_seat_knows_and_shuffle_the_rest():
    view = _bidding_views(2, 1, RuleConfig())[0]
    unseen = np.array(cards_of(ALL_CARDS_MASK & ~view.hand & ~(1 << view.turned)), dtype=np.int64)
    own = np.array(cards_of(view.hand), dtype=np.int64)
    deals = calls._deals(np.random.default_rng(0), 4000, view.seat, own, unseen, view.turned)
    me = slice(FIRST * view.seat, FIRST * view.seat + FIRST)
    assert (deals[:, me] == own).all() and (deals[:, 20] == view.turned).all()
    assert all(sorted(row) == list(range(32)) for row in deals[:50])  # a deal of the 32 cards
    # Each unseen card lands in the first other seat's hand with chance 5/26 (uniform shuffle).
    other = (view.seat + 1) % NUM_SEATS
    block = deals[:, FIRST * other : FIRST * other + FIRST]
    share = np.mean([(block == c).any(axis=1).mean() for c in unseen])
    assert abs(share - 5 / 26) < 0.01


def test_the_agent_makes_a_best_valued_call_and_the_seed_fixes_it():
    cfg = SearchConfig(worlds=48, calls="searched")
    differs = 0
    for i, view in enumerate(_bidding_views(9, 25, RuleConfig())):
        agent = SearchAgent(i, cfg)
        call = agent.act(view)
        values = agent.last_stats["call_values"]
        assert values[call] == max(values.values())
        assert SearchAgent(i, cfg).act(view) == call
        differs += call != HeuristicAgent(0).act(view)
    assert differs > 0  # the searched calls are not the heuristic's bars under another name


def test_call_params_are_checked():
    with pytest.raises(SearchConfigError, match="calls"):
        SearchConfig(calls="network")
    with pytest.raises(SearchConfigError, match="condition"):
        SearchConfig.from_dict({"condition": 1})
