"""The batched core (``baloot_env.batch``) equals the engine, step by step.

The engine is the oracle: ``run_differential`` plays the core and ``HandState``/``MatchState``
side by side on the same deals with the same random legal actions, and asserts at every
decision the seat to act, its mask and its observation (bit for bit, ``encode``), every third
step or so the other seats' observations, and at every hand's and match's end the R11.4 / R11.5
results, the match's books, the dealer rotation (R2.1) and the rewards (``rewards.hand_rewards``).
Each ``RuleConfig`` switch is flipped from its default, in hand and match episodes; a few random
combinations and a hypothesis test draw more. The full run (100,000+ hands) is
``benchmarks/batch_exactness.py``.

The kernels compile on first use and are cached on disk: the first run of this file pays the
compilation (about a minute on one core), later runs load it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baloot_env.actions import NUM_ACTIONS, PASS
from baloot_env.batch import BatchGame, seed_streams
from baloot_env.batch import core as batch_core
from baloot_env.batch.differential import run_differential
from baloot_env.batch.projects import declare_projects as batch_declare
from baloot_env.batch.scoring import score_hands
from baloot_env.batch.tables import KINDS
from baloot_env.batch.variants import REWARDS, SINGLE_SWITCHES, variant_id, variants
from baloot_env.cards import NUM_CARDS
from baloot_env.deal import random_deal
from baloot_env.errors import IllegalActionError
from baloot_env.projects import PROJECT_VALUES, declare_projects
from baloot_env.rules import FOUR_ACES_HOKUM, HANDS_CHOICES, TIE_RULES, RuleConfig
from baloot_env.scoring import HOKUM, SUN, score_hand

VARIANTS = variants(seed=16, combos=4)


def test_every_switch_is_flipped_alone():
    """A new RuleConfig field without a differential case fails here."""
    flipped = {k for r in SINGLE_SWITCHES for k, v in r.to_dict().items() if v != getattr(RuleConfig(), k)}
    assert flipped == {f.name for f in dataclasses.fields(RuleConfig)}
    assert set(HANDS_CHOICES) <= {r.hands for r in SINGLE_SWITCHES if r.match == "hands"}


@pytest.mark.parametrize("i,rules", list(enumerate(VARIANTS)), ids=[variant_id(r) for r in VARIANTS])
def test_hand_episodes_equal_the_engine(i, rules):
    """Hand episodes (R11.1): masks, observations (all seats), results and rewards at every step."""
    stats = run_differential(
        rules,
        "hand",
        num_games=16,
        hands=500,
        seed=1000 + i,
        auto_reset=i % 2 == 0,  # off: the done phase is compared too
        queued_deals=2 if i % 3 == 0 else 0,
        reward=REWARDS[i % len(REWARDS)],
    )
    assert stats.hands >= 500 and stats.decisions > 16 * 500
    assert stats.thrown_in > 0 and stats.hands - stats.thrown_in > 100


@pytest.mark.parametrize("i,rules", list(enumerate(VARIANTS)), ids=[variant_id(r) for r in VARIANTS])
def test_matches_equal_the_engine(i, rules):
    """Match episodes (R8): as above, plus the match's books, its end and the dealer rotation."""
    stats = run_differential(
        rules,
        "match",
        num_games=16,
        hands=600,
        seed=2000 + i,
        auto_reset=i % 2 == 1,
        queued_deals=3 if i % 3 == 1 else 0,
        reward=REWARDS[(i + 1) % len(REWARDS)],
        dealers="rotate" if i % 4 == 1 else "given",
    )
    assert stats.matches >= 12, stats


def test_cap_ends_a_match_of_thrown_in_deals():
    """R8.4: 99 deals all thrown in (R3.5) end the match as a 0-0 draw, in both sides."""
    stats = run_differential(RuleConfig(), "match", num_games=2, hands=2 * 99, seed=7, pass_biases=(1.0,))
    assert stats.thrown_in == stats.hands == 2 * 99
    assert stats.reasons == {"cap": 2}


def test_coverage_of_the_differential_sample():
    """The sample reaches what it must compare: throw-ins, doubling, gahwa, kaboot, every match end."""
    total = None
    for i, rules in enumerate((RuleConfig(), RuleConfig(match="hands", hands=5), RuleConfig(sun_double=True))):
        stats = run_differential(rules, "match", num_games=16, hands=500, seed=3000 + i)
        if total is None:
            total = stats
        else:
            total.add(stats)
    assert total.thrown_in > 0 and total.doubled > 0 and total.gahwas > 0 and total.kaboots > 0
    assert {"target", "hands", "gahwa"} <= set(total.reasons)


rules_strategy = st.builds(
    RuleConfig,
    sun_double=st.booleans(),
    projects=st.booleans(),
    doubling=st.booleans(),
    match=st.sampled_from(("target", "hands")),
    hands=st.sampled_from(HANDS_CHOICES),
    tie_rule=st.sampled_from(TIE_RULES),
    win_above=st.booleans(),
    four_aces_hokum=st.sampled_from(FOUR_ACES_HOKUM),
    baloot_kept=st.booleans(),
    deal_rotation=st.sampled_from(("left", "right")),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    rules=rules_strategy,
    episode=st.sampled_from(("hand", "match")),
    auto_reset=st.booleans(),
    queued=st.integers(0, 2),
    reward=st.sampled_from(REWARDS),
    dealers=st.sampled_from(("given", "rotate")),
)
def test_hypothesis_random_games_equal_the_engine(seed, rules, episode, auto_reset, queued, reward, dealers):
    run_differential(
        rules,
        episode,
        num_games=4,
        hands=24,
        seed=seed,
        auto_reset=auto_reset,
        queued_deals=queued,
        reward=reward,
        dealers=dealers,
        other_seats_every=2,
    )


def _hands_with_fours(rng: np.random.Generator, count: int) -> list[int]:
    """8-card hands holding one or two four-of-a-kinds (R6.1), the rest random."""
    out = []
    for i in range(count):
        ranks = rng.choice(8, size=1 + i % 2, replace=False)
        cards = {8 * s + int(r) for r in ranks for s in range(4)}
        while len(cards) < 8:
            cards.add(int(rng.integers(NUM_CARDS)))
        out.append(sum(1 << c for c in cards))
    return out


def test_declared_projects_equal_the_engine():
    """R6.1 decomposition, V7 included: the kinds in the engine's order and their cards."""
    rng = np.random.default_rng(61)
    hands = [sum(1 << int(c) for c in rng.permutation(NUM_CARDS)[:8]) for _ in range(3000)]
    hands += _hands_with_fours(rng, 2000)
    # Runs with fours across them (a four-of-a-kind may claim a run's card).
    hands += [0xFF, 0x7F | 1 << 15 | 1 << 23 | 1 << 31, 0xF8 | 1 << 11 | 1 << 19 | 1 << 27]
    seen = set()
    for hand in hands:
        for hokum in (True, False):
            for aces in FOUR_ACES_HOKUM:
                want = declare_projects(hand, hokum, aces)
                kind0, kind1, cards, _key = batch_declare(hand, hokum, aces == "hundred")
                got = [KINDS[k] for k in (kind0, kind1) if k >= 0]
                assert got == [p.kind for p in want], (hex(hand), hokum, aces)
                assert cards == sum(1 << c for p in want for c in p.cards), (hex(hand), hokum, aces)
                seen.update(p.kind for p in want)
    assert seen == set(KINDS)


@settings(max_examples=300, deadline=None)
@given(
    contract=st.sampled_from((HOKUM, SUN)),
    caller=st.integers(0, 3),
    level=st.integers(1, 5),
    raw_share=st.floats(0, 1),
    tricks0=st.integers(0, 8),
    projects=st.lists(st.lists(st.sampled_from((0, 1, 2, 3)), max_size=4), min_size=2, max_size=2),
    baloot=st.sampled_from(((0, 0), (2, 0), (0, 2))),
    last_digit=st.booleans(),
    baloot_kept=st.booleans(),
    match_score=st.tuples(st.integers(0, 200), st.integers(0, 200)),
)
def test_score_hand_equals_the_engine(
    contract, caller, level, raw_share, tricks0, projects, baloot, last_digit, baloot_kept, match_score
):
    """R7 on arbitrary score-keeper inputs, ties and every level included."""
    total = 162 if contract == HOKUM else 130
    raw0 = round(raw_share * total)
    col = 0 if contract == HOKUM else 1
    values = [[PROJECT_VALUES[KINDS[k]][col] for k in team] for team in projects]
    rules = RuleConfig(tie_rule="last_digit" if last_digit else "rounding", baloot_kept=baloot_kept)
    want = score_hand(
        contract, caller, level, (raw0, total - raw0), (tricks0, 8 - tricks0), values, baloot, rules, match_score
    )
    row = [0 if contract == HOKUM else 1, caller, level, raw0, total - raw0, tricks0, 8 - tricks0]
    row += [sum(values[0]), sum(values[1]), *baloot, last_digit, baloot_kept, *match_score]
    out = np.zeros((1, 6), dtype=np.int64)
    score_hands(np.array([row], dtype=np.int64), out)
    gahwa = -1 if want.gahwa_winner is None else want.gahwa_winner
    assert out[0].tolist() == [*want.score, int(want.callers_won), want.winner, int(want.kaboot), gahwa]


def test_deals_from_seeds():
    """The core's own deals: valid (R2.4), fixed by (seed, game) alone, uniform enough."""
    a = BatchGame(4, seed=5)
    b = BatchGame(8, seed=5)
    c = BatchGame(8, seed=6)
    assert [a.deal(g) for g in range(4)] == [b.deal(g) for g in range(4)]
    assert a.deal(0) != c.deal(0)
    big = BatchGame(4096, seed=1)
    cards = big.state.field("deal")
    assert (np.sort(cards, axis=1) == np.arange(NUM_CARDS)).all()
    # Each card lands in each of the 32 places about 128 times; each seat deals about 1024 times.
    counts = np.zeros((NUM_CARDS, NUM_CARDS), dtype=np.int64)
    np.add.at(counts, (cards, np.broadcast_to(np.arange(NUM_CARDS), cards.shape)), 1)
    assert counts.min() > 60 and counts.max() < 210
    dealers = np.bincount(big.state.field("dealer"), minlength=4)
    assert dealers.min() > 850


def test_queued_deals_are_played_first_then_the_stream():
    """R11.2: given deals in order (each with its dealer), then random ones."""
    rng = np.random.default_rng(3)
    queue = [[random_deal(rng) for _ in range(2)] for _ in range(3)]
    game = BatchGame(3, episode="hand", seed=9, deals=queue)
    assert [game.deal(g) for g in range(3)] == [q[0] for q in queue]
    passes = np.full(3, PASS)
    for _ in range(8):  # every seat passes twice: the deals are thrown in (R3.5)
        game.step(passes)
    assert [game.deal(g) for g in range(3)] == [q[1] for q in queue]
    for _ in range(8):
        game.step(passes)
    assert all(game.deal(g) not in queue[g] for g in range(3))


def test_illegal_action_is_refused_and_changes_nothing():
    game = BatchGame(3, seed=2)
    before = game.state.games.copy(), game.results.table.copy()
    actions = np.full(3, PASS)
    actions[1] = 0  # a card during the calling
    with pytest.raises(IllegalActionError, match=r"game 1: seat \d may not play 7S \(0\) in the bidding phase"):
        game.step(actions)
    assert np.array_equal(game.state.games, before[0]) and np.array_equal(game.results.table, before[1])
    with pytest.raises(IllegalActionError, match="game 2"):
        game.step(np.array([PASS, PASS, NUM_ACTIONS]))


def test_random_steps_play_as_step_with_uniform_actions():
    """The in-kernel random player is ``step`` fed by ``sample_uniform`` from the same streams."""
    for episode in ("hand", "match"):
        a = BatchGame(64, episode=episode, seed=4)
        b = BatchGame(64, episode=episode, seed=4)
        rng_a, rng_b = seed_streams(11, 64), seed_streams(11, 64)
        decisions, hands = a.random_steps(300, rng_a)
        actions = np.zeros(64, dtype=np.int64)
        for _ in range(300):
            batch_core.sample_uniform(b.legal_masks(), rng_b, actions)
            b.step(actions)
        assert decisions == 64 * 300 and hands > 64 * 300 // 40
        assert np.array_equal(a.state.games, b.state.games) and np.array_equal(rng_a, rng_b)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="num_games"):
        BatchGame(0)
    with pytest.raises(ValueError, match="episode"):
        BatchGame(2, episode="tournament")
    with pytest.raises(ValueError, match="one list of deals per game"):
        BatchGame(2, deals=[[]])
    with pytest.raises(ValueError, match="shape"):
        BatchGame(2).step(np.zeros(3, dtype=np.int64))
