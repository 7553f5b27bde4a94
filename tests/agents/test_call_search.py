"""Searched calls: ``search`` with ``calls="searched"``.

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
from agents.search_player.player import SearchAgent, SearchConfig
from baloot_env import BIDDING, DONE, PLAY, HandState, random_deal
from baloot_env.cards import ALL_CARDS_MASK, NUM_SEATS, cards_of
from baloot_env.deal import Deal
from baloot_env.errors import ConfigError
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
            n = call_sums(
                template,
                d[None],
                observed,
                legal,
                sw,
                calls._PAY,
                calls._BARS,
                team_of(view.seat),
                view.seat,
                False,
                1,
                sums,
            )
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
            n = call_sums(
                template,
                d[None],
                observed,
                legal,
                calls._switches(view.rules),
                calls._PAY,
                calls._BARS,
                team_of(view.seat),
                view.seat,
                True,
                1,
                sums,
            )
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


def test_call_worlds_sets_the_deals_of_a_searched_call_and_leaves_the_cards_theirs():
    views = _bidding_views(9, 5, RuleConfig())
    for i, view in enumerate(views):
        own = SearchAgent(i, SearchConfig(worlds=8, call_worlds=40, calls="searched"))
        own.act(view)
        assert own.last_stats["worlds"] == 40
        same = SearchAgent(i, SearchConfig(worlds=40, calls="searched"))  # 0: the card worlds' count
        same.act(view)
        assert same.last_stats == own.last_stats  # the same deals, drawn from the same seed
    for bad in (-1, 1.5, True):
        with pytest.raises(ConfigError, match="call_worlds"):
            SearchConfig(call_worlds=bad)


def test_call_params_are_checked():
    with pytest.raises(ConfigError, match="calls"):
        SearchConfig(calls="network")
    with pytest.raises(ConfigError, match="condition"):
        SearchConfig.from_dict({"condition": 1})


# ---------------------------------------------------------------------- card play worlds given the calls
def _play_views(seed: int, count: int) -> list[tuple[PlayerView, HandState]]:
    """Play-phase decisions of heuristic hands, with the true state they came from."""
    rng = random.Random(seed)
    h = HeuristicAgent(0)
    out: list[tuple[PlayerView, HandState]] = []
    while len(out) < count:
        state = HandState(random_deal(rng))
        while state.phase != DONE:
            view = PlayerView.from_state(state, state.to_act)
            if state.phase == PLAY and len(cards_of(view.legal_mask)) > 1 and rng.random() < 0.2:
                out.append((view, state.clone()))
            state.apply(h.act(view))
    return out[:count]


def _seat_agrees(view: PlayerView, seat: int, first: tuple[int, ...]) -> bool:
    """Whether the Python heuristic holding ``first`` makes all of ``seat``'s calls in ``view``."""
    rest = [c for c in range(32) if c not in first and c != view.turned]
    hands = [tuple(rest[5 * i : 5 * i + 5]) for i in range(3)]
    hands.insert(seat, tuple(first))
    state = HandState(Deal(view.dealer, tuple(hands), view.turned, tuple(rest[15:])), view.rules)
    h = HeuristicAgent(0)
    for _, s, a in view.bids:
        if s == seat and h.act(PlayerView.from_state(state, s)) != a:
            return False
        if state.phase != BIDDING:
            break
        state.apply(a)
    return True


def test_call_filter_keeps_a_world_with_the_chance_of_the_calls():
    """The filter's acceptance rate for a world equals the exact chance that random first fives
    give the heuristic's calls: the product over the other seats of the share of their 5-card
    subsets (of 8; of 7 for the caller, the turned card aside, R2.3) that make their calls."""
    import itertools

    checked = 0
    for view, state in _play_views(21, 12):
        hands = [state.hands[s] for s in range(NUM_SEATS)]
        exact = 1.0
        for seat in range(NUM_SEATS):
            if seat == view.seat:
                continue
            full = hands[seat] | view.played_by[seat]
            if seat == view.caller:
                full &= ~(1 << view.turned)
            subsets = list(itertools.combinations(cards_of(full), 5))
            exact *= sum(_seat_agrees(view, seat, sub) for sub in subsets) / len(subsets)
        f = calls.CallFilter(view, random.Random(checked))
        n = 3000
        rate = f.agree(np.array([hands] * n, dtype=np.int64)).mean()
        assert abs(rate - exact) < 4 * (exact * (1 - exact) / n) ** 0.5 + 1e-9, (rate, exact)
        assert exact > 0  # the true hands were dealt a first five that made the calls
        checked += 1
    assert checked == 12


def test_conditioned_worlds_keep_the_agreeing_draws_and_at_least_the_least():
    from baloot_env.worlds import WorldSampler

    view, state = _play_views(4, 1)[0]
    sampler = WorldSampler(view)
    f = calls.CallFilter(view, random.Random(0))
    rng = random.Random(1)
    worlds = calls.conditioned_worlds(lambda: sampler.sample(rng), 64, f, 4)
    assert f.drawn == 64 and 4 <= f.kept < 64 and len(worlds) == f.kept
    for w in worlds:  # every world is one the sampler could draw: the seat's own hand, no card twice
        assert w[view.seat] == view.hand
        assert sum(int(x).bit_count() for x in w) == sum(int(h).bit_count() for h in state.hands)
    # When too few agree, the rest up to ``least`` are worlds that do not.
    g = calls.CallFilter(view, random.Random(0))
    rng = random.Random(2)
    some = calls.conditioned_worlds(lambda: sampler.sample(rng), 64, g, 64)
    assert len(some) == 64 and g.kept < 64


def test_condition_needs_the_core_backend():
    with pytest.raises(ConfigError, match="condition"):
        SearchConfig(condition_play=True, backend="python")


# ---------------------------------------------------------------------- searched doubling (R4)
def _doubling_views(seed: int, count: int) -> list[tuple[PlayerView, HandState]]:
    from baloot_env.hand import DOUBLING

    rng = random.Random(seed)
    h = HeuristicAgent(0)
    out: list[tuple[PlayerView, HandState]] = []
    while len(out) < count:
        state = HandState(random_deal(rng))
        while state.phase not in (PLAY, DONE):
            view = PlayerView.from_state(state, state.to_act)
            if state.phase == DOUBLING:
                out.append((view, state.clone()))
            state.apply(h.act(view))
    return out[:count]


def test_deals_from_worlds_rebuild_the_world_when_the_calls_are_replayed():
    gen = np.random.default_rng(0)
    for view, state in _doubling_views(8, 10):
        world = np.array([[state.hands[s] for s in range(NUM_SEATS)]] * 5, dtype=np.int64)
        for row in calls.deals_from_worlds(world, view, gen):
            hands = tuple(tuple(int(c) for c in row[FIRST * s : FIRST * s + FIRST]) for s in range(NUM_SEATS))
            replay = HandState(Deal(view.dealer, hands, int(row[20]), tuple(int(c) for c in row[21:])), view.rules)
            for _, _, a in view.bids:
                replay.apply(a)
            for _, a in view.doubling_calls:
                replay.apply(a)
            assert replay.hands == state.hands and replay.phase == state.phase and replay.to_act == state.to_act


def test_searched_doubling_values_equal_the_engines_playouts():
    gen = np.random.default_rng(1)
    checked = 0
    for view, state in _doubling_views(3, 6):
        legal = np.array(cards_of(view.legal_mask), dtype=np.int64)
        world = np.array([[state.hands[s] for s in range(NUM_SEATS)]], dtype=np.int64)
        row = calls.deals_from_worlds(world, view, gen)[0]
        observed = np.array([(s, a) for _, s, a in view.bids] + list(view.doubling_calls), dtype=np.int64).reshape(
            -1, 2
        )
        sums = np.zeros(len(legal))
        n = call_sums(
            calls._start_row(view, row),
            row[None],
            observed,
            legal,
            calls._switches(view.rules),
            calls._PAY,
            calls._BARS,
            team_of(view.seat),
            view.seat,
            False,
            1,
            sums,
        )
        assert n == 1
        for i, a in enumerate(legal):
            after = state.clone()
            after.apply(int(a))
            h = HeuristicAgent(0)
            while after.phase != DONE:
                after.apply(h.act(PlayerView.from_state(after, after.to_act)))
            team = team_of(view.seat)
            assert sums[i] == after.result.score[team] - after.result.score[other_team(team)]
            checked += 1
    assert checked >= 12


def test_the_agent_searches_its_doubling_calls():
    cfg = SearchConfig(worlds=32, calls="searched")
    for i, (view, _) in enumerate(_doubling_views(5, 8)):
        agent = SearchAgent(i, cfg)
        call = agent.act(view)
        values = agent.last_stats["call_values"]
        assert set(values) == set(cards_of(view.legal_mask))
        assert values[call] == max(values.values())
