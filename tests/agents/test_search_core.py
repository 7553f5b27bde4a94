"""The search player on the batched core: ``backend="core"`` equals ``"python"``.

Layer by layer: the engine's ``HandState`` as a core row (``baloot_env.batch.convert``) equals
the core's own row column for column on the same deals and actions, and its observations and
masks equal the engine's for every seat; a sampled world's row built in the kernel equals
``build_world`` converted; the endgame kernel equals ``endgame.solve`` (and its leaf the
engine's scoring); and the whole decision, with the same seed (so the same worlds), gives the
same value for every card to the bit and the same card, over 300+ decisions in every rule
variant, with and without the exact endgame.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents import HeuristicAgent, PlayerView
from agents.search_player import batch_endgame, batch_search
from agents.search_player.endgame import solve
from agents.search_player.player import SearchAgent, SearchConfig, build_world, leaf_function, world_row
from baloot_env import play
from baloot_env.actions import PASS
from baloot_env.batch import BatchGame
from baloot_env.batch import core as batch_core
from baloot_env.batch.convert import state_row
from baloot_env.batch.state import (
    DEAL,
    DEAL_TURNED,
    DEALS_PLAYED,
    DOUBLING_PASSES,
    EPISODE_OVER,
    HANDS_SCORED,
    HOKUM_BIDDER,
    MATCH_SCORE,
    NUM_FIELDS,
    NUM_RESULTS,
    QUEUE_LEN,
    QUEUE_POS,
    rule_switches,
)
from baloot_env.cards import NUM_CARDS, NUM_SEATS, cards_of
from baloot_env.errors import ConfigError
from baloot_env.hand import BIDDING, DONE, PLAY, HandState
from baloot_env.match import MatchState, match_context
from baloot_env.observation import OBS_SIZE, action_mask, encode
from baloot_env.rules import RuleConfig
from baloot_env.worlds import WorldSampler

VARIANTS = (
    (RuleConfig(), "hand"),
    (RuleConfig(), "match"),
    (RuleConfig(projects=False, sun_double=True), "hand"),
    (RuleConfig(four_aces_hokum="hundred", baloot_kept=True), "match"),
    (RuleConfig(tie_rule="last_digit", win_above=True, match="hands", hands=5), "match"),
    (RuleConfig(doubling=False, deal_rotation="right"), "hand"),
)
# Columns a converted engine state does not carry: the core's deal queue and episode flag.
_NOT_CONVERTED = {QUEUE_LEN, QUEUE_POS, EPISODE_OVER}
# After the hand: the core has closed the match's books, the engine's hand keeps its start score.
_BOOKS = {MATCH_SCORE, MATCH_SCORE + 1, DEALS_PLAYED, HANDS_SCORED}


def _side_by_side(rules: RuleConfig, episode: str, games: int, steps: int, seed: int):
    """Yield (core, g, engine hand, match) at every step of ``games`` games played on both sides
    with the same random legal actions (bidding passes half the time: thrown-in deals too)."""
    rng = np.random.default_rng(seed)
    core = BatchGame(games, rules, episode, seed=seed, auto_reset=False)
    matches = [MatchState(rules) if episode == "match" else None for _ in range(games)]

    def start(g: int) -> HandState:
        return matches[g].start_hand(core.deal(g)) if matches[g] is not None else HandState(core.deal(g), rules)

    hands = [start(g) for g in range(games)]
    actions = np.zeros(games, dtype=np.int64)
    for _ in range(steps):
        for g in range(games):
            yield core, g, hands[g], matches[g]
            legal = hands[g].legal_actions()
            if hands[g].phase == BIDDING and rng.random() < 0.5:
                actions[g] = PASS
            else:
                actions[g] = legal[rng.integers(len(legal))]
        core.step(actions)
        for g in range(games):
            hands[g].apply(int(actions[g]))
        done = [g for g in range(games) if hands[g].done]
        for g in done:
            yield core, g, hands[g], matches[g]
        if done:
            core.advance_finished()
        for g in done:
            if matches[g] is not None:
                matches[g].end_hand()
                if matches[g].result is not None:
                    matches[g] = MatchState(rules)
            hands[g] = start(g)


@pytest.mark.parametrize(("rules", "episode"), VARIANTS)
def test_converted_state_is_the_cores_row_and_observes_like_the_engine(rules, episode):
    """``state_row``: every column equal to the core's own row (same deal, same actions), in
    every phase (R3-R7), and the core's observation and mask of the converted row equal the
    engine's ``encode`` and ``action_mask`` for all four seats (R11.3)."""
    sw = rule_switches(rules, episode)
    obs = np.zeros((1, OBS_SIZE), dtype=np.float32)
    masks = np.zeros((1, 42), dtype=np.int8)
    compared = set()
    for core, g, hand, match in _side_by_side(rules, episode, games=8, steps=160, seed=7):
        row = state_row(hand, match)
        want = core.state.games[g]
        skip = _NOT_CONVERTED | (_BOOKS if hand.done else set())
        bad = [i for i in range(NUM_FIELDS) if i not in skip and row[i] != want[i]]
        assert not bad, f"{hand.phase}: columns {bad}: converted {row[bad]}, core {want[bad]}"
        compared.add(hand.phase)
        if hand.done:
            continue
        for seat in range(NUM_SEATS):
            batch_core.observe(row[None, :], sw, np.array([seat], dtype=np.int8), obs, masks)
            assert np.array_equal(obs[0], encode(hand, seat, match_context(match)))
            assert np.array_equal(masks[0], action_mask(hand, seat))
    assert compared == {BIDDING, "doubling", PLAY, DONE} or not rules.doubling


def _positions(rules: RuleConfig, episode: str, seed: int, count: int, min_legal: int = 1):
    """Play-phase (state, view) pairs from games of the heuristic with random moves mixed in."""
    rng = random.Random(seed)
    heuristic = HeuristicAgent(0)
    out = []
    g = np.random.default_rng(seed)
    core = BatchGame(1, rules, episode, seed=seed, auto_reset=False)  # only its deals are used
    while len(out) < count:
        match = MatchState(rules) if episode == "match" else None
        if match is not None:  # a match score late in the match: gahwa and the target matter (R8.3)
            match.score = [int(x) for x in g.integers(0, 160, size=2)]
        hand = match.start_hand(core.deal(0)) if match else HandState(core.deal(0), rules)
        while not hand.done:
            view = PlayerView.from_state(hand, hand.to_act, match_context(match))
            if hand.phase == PLAY and view.legal_mask.bit_count() >= min_legal and rng.random() < 0.4:
                out.append((hand.clone(), view))
            action = rng.choice(hand.legal_actions()) if rng.random() < 0.3 else heuristic.act(view)
            hand.apply(action)
        core.reset(int(g.integers(1 << 30)))
    return out[:count]


def test_world_rows_are_build_world_converted():
    """The kernel's world row (holdings, projects and baloot recomputed, R6.1, R6.5) equals
    ``build_world`` through ``state_row``; the world of the true hands is the true state's row
    but for what the seat cannot know (the deal's hidden cards, R2.2) or the search does not
    keep (the round-1 hokum caller, the doubling passes, the match books)."""
    checked = 0
    for rules, episode in VARIANTS:
        sw = rule_switches(rules, "hand")
        for state, view in _positions(rules, episode, seed=3, count=12):
            sampler = WorldSampler(view)
            worlds = [sampler.sample(random.Random(checked)) for _ in range(3)] + [list(state.hands)]
            template = world_row(view, worlds[0])
            out = np.zeros((len(worlds), NUM_FIELDS), dtype=np.int64)
            batch_search.world_rows(template, np.array(worlds, dtype=np.int64), sw, out)
            for w, hands in enumerate(worlds):
                assert np.array_equal(out[w], state_row(build_world(view, hands), turned=view.turned))
            true_row = state_row(state)
            skip = {DEAL + i for i in range(NUM_CARDS) if i != DEAL_TURNED}
            skip |= {HOKUM_BIDDER, DOUBLING_PASSES, DEALS_PLAYED, HANDS_SCORED}
            bad = [i for i in range(NUM_FIELDS) if i not in skip and out[-1, i] != true_row[i]]
            assert not bad, f"columns {bad}: world {out[-1, bad]}, true {true_row[bad]}"
            checked += 1
    assert checked == 12 * len(VARIANTS)


def test_compact_legality_kernel_is_the_engines():
    """R5.1-R5.4: the endgame kernel's ``legal_cards`` equals ``baloot_env.play.legal_cards``."""
    for rules, episode in VARIANTS[:3]:
        for state, _ in _positions(rules, episode, seed=4, count=60):
            seat = state.to_act
            led = state.trick_cards[0] >> 3 if state.trick_cards else -1
            args = (state.hands[seat], seat, led, state.trick_winner, state.trick_win_card, state.trump)
            assert batch_endgame.legal_cards(*args) == play.legal_cards(*args) == state.legal_mask()


def _solve_kernel(state: HandState, team: int, sw: np.ndarray) -> float:
    row = state_row(state)[None, :]
    cache = np.full(batch_endgame.LEAF_CACHE_SIZE, batch_endgame.NO_VALUE, dtype=np.int64)
    r = np.zeros((1, NUM_RESULTS), dtype=np.int64)
    return batch_endgame.solve_row(row, 0, team, row.copy(), r, sw, cache, batch_endgame.new_table(), 1)


def test_endgame_kernel_equals_the_python_solver():
    """The last 1-4 tricks, at trick starts and mid-trick, for both teams, every variant: the
    kernel's minimax value (leaves scored by the core's ``finish_played``) equals ``solve``'s
    (leaves scored by the engine's ``score_hand``), R5-R7."""
    compared = 0
    for rules, episode in VARIANTS:
        sw = rule_switches(rules, "hand")
        for state, _ in _positions(rules, episode, seed=5, count=60):
            if sum(h.bit_count() for h in state.hands) > 16:
                continue
            for team in (0, 1):
                trick = list(zip(state.trick_seats, state.trick_cards, strict=True))
                want = solve(
                    state.hands[:],
                    state.to_act,
                    trick,
                    state.trump,
                    state.raw[0],
                    state.tricks_won[0],
                    len(state.tricks),
                    team,
                    leaf_function(state, team),
                )
                assert _solve_kernel(state, team, sw) == want
                compared += 1
    assert compared >= 150


def _sampled_worlds(rules: RuleConfig, episode: str, seed: int, lo: int, hi: int):
    """Worlds (as ``HandState``, with the turned card) of positions with ``lo`` to ``hi`` cards
    left: two sampled worlds of each position, each followed by itself with the lowest hidden
    cards of two other seats swapped. All hold the same unplayed cards, held differently, and
    the swapped pair share most of their positions' table keys."""
    for i, (state, view) in enumerate(_positions(rules, episode, seed=seed, count=120, min_legal=2)):
        if lo <= sum(h.bit_count() for h in state.hands) <= hi:
            sampler = WorldSampler(view)
            for w in range(2):
                hands = sampler.sample(random.Random(100 * i + w))
                yield build_world(view, hands, rules), view.turned
                others = [s for s in range(NUM_SEATS) if s != view.seat]
                a, b = next(
                    (x, y) for x in others for y in others if x < y and hands[x].bit_count() == hands[y].bit_count()
                )
                low_a, low_b = hands[a] & -hands[a], hands[b] & -hands[b]
                swapped = list(hands)
                swapped[a], swapped[b] = hands[a] ^ low_a | low_b, hands[b] ^ low_b | low_a
                yield build_world(view, swapped, rules), view.turned


def test_endgame_table_changes_no_value():
    """The transposition table's invariant: every root card of a 5-6 trick endgame, in three
    sampled worlds of each position, solved one after another on one shared table (one stamp
    per world, as the search does) has the value it has when solved on its own fresh table, and
    the position's own value is the best of them for the side to play (R5-R7). A pruning, bound
    or stamp bug (the worlds of a position share every key but the stamp) shows as a difference."""
    table = batch_endgame.new_table()
    stamp = 0
    compared = 0
    for rules, episode in VARIANTS[:3]:
        sw = rule_switches(rules, "hand")
        for state, turned in _sampled_worlds(rules, episode, 21, 17, 24):
            stamp += 1
            team = state.to_act % 2
            shared = []
            for card in cards_of(state.legal_mask()):
                child = state.clone()
                child.apply(card)
                row = state_row(child, turned=turned)[None, :]
                r = np.zeros((1, NUM_RESULTS), dtype=np.int64)
                cache = np.full(batch_endgame.LEAF_CACHE_SIZE, batch_endgame.NO_VALUE, dtype=np.int64)
                args = (row, 0, team, row.copy(), r, sw, cache)
                shared.append(batch_endgame.solve_row(*args, table, stamp))
                assert shared[-1] == batch_endgame.solve_row(*args, batch_endgame.new_table(), 1)
                compared += 1
            root = state_row(state, turned=turned)[None, :]
            cache = np.full(batch_endgame.LEAF_CACHE_SIZE, batch_endgame.NO_VALUE, dtype=np.int64)
            r = np.zeros((1, NUM_RESULTS), dtype=np.int64)
            assert batch_endgame.solve_row(root, 0, team, root.copy(), r, sw, cache, table, stamp) == max(shared)
    assert compared >= 60


# ---------------------------------------------------------------------- the whole decision
DIFF_CONFIGS = (
    {"worlds": 6},
    {"worlds": 6, "endgame_tricks": 0},
    {"worlds": 4, "endgame_tricks": 1},
    {"worlds": 3, "endgame_tricks": 4},
    {"worlds": 5, "playouts": 2},
)


def test_core_backend_chooses_like_the_python_backend():
    """300+ card decisions (two legal cards or more) in every variant and configuration, with
    the same seed: every card's mean value equal to the bit, and the same card."""
    decisions = 0
    for i, (rules, episode) in enumerate(VARIANTS):
        for j, params in enumerate(DIFF_CONFIGS):
            for k, (_, view) in enumerate(_positions(rules, episode, seed=100 * i + j, count=10, min_legal=2)):
                seed = 1000 * i + 10 * j + k
                agents = [SearchAgent(seed, SearchConfig(backend=b, **params)) for b in ("python", "core")]
                (card_p, values_p), (card_c, values_c) = ((j.action, j.values) for j in (a.judge(view) for a in agents))
                assert values_c == values_p, (params, rules, view.to_act)
                assert card_c == card_p
                assert agents[0].last_stats == agents[1].last_stats
                decisions += 1
    assert decisions >= 300


def test_core_backend_noise_and_time_budget():
    """``epsilon`` (the kernel's own random stream) and ``time_budget`` (worlds added in chunks)
    still give a value for every legal card and a legal card; the same seed repeats."""
    _, view = _positions(RuleConfig(), "hand", seed=9, count=1, min_legal=2)[0]
    for params in ({"epsilon": 0.3, "playouts": 2, "worlds": 4}, {"epsilon": 1.0}, {"time_budget": 0.002}):
        agent = SearchAgent(0, SearchConfig(**params))
        values = agent.evaluate(view)
        assert set(values) == set(view.legal_actions)
        assert view.legal_mask >> agent.act(view) & 1
        if "time_budget" not in params:
            agent.reset(5)
            first = agent.evaluate(view)
            agent.reset(5)
            assert agent.evaluate(view) == first
    assert agent.last_stats["worlds"] >= agent.config.min_worlds


def test_backend_config():
    assert SearchConfig().backend == "core"
    assert SearchConfig.from_dict({"backend": "python"}).backend == "python"
    assert SearchAgent(0, SearchConfig(backend="python")).describe()["params"]["backend"] == "python"
    with pytest.raises(ConfigError, match="backend"):
        SearchConfig(backend="gpu")
    with pytest.raises(ConfigError, match="backend"):
        SearchConfig.from_dict({"backend": 1})


def test_search_kernels_read_no_hidden_card():
    """The core backend reads the view only: ``world_row`` builds the template from the view and
    a world, and a template from another world gives the same values (every hidden column is
    overwritten by ``set_world``)."""
    for state, view in _positions(RuleConfig(), "hand", seed=11, count=20, min_legal=2):
        sampler = WorldSampler(view)
        worlds = np.array([sampler.sample(random.Random(1)) for _ in range(4)], dtype=np.int64)
        legal = np.array(cards_of(view.legal_mask), dtype=np.int64)
        sw = rule_switches(view.rules, "hand")
        sums = []
        for template_world in (worlds[0], worlds[-1], np.array(state.hands)):
            table = batch_endgame.new_table()
            template = world_row(view, [int(h) for h in template_world])
            out = np.zeros((len(worlds), len(legal)))
            batch_search.search_values(
                template, worlds, legal, sw, view.seat % 2, 12, 0.0, 1, np.zeros(1, np.uint64), out, table, 1
            )
            sums.append(out.sum(axis=0))
        assert np.array_equal(sums[0], sums[1]) and np.array_equal(sums[0], sums[2])
