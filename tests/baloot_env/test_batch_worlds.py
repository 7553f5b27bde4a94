"""The world sampler's compiled draws (``baloot_env.batch.worlds.sample_worlds``) against the
engine's (``WorldSampler.sample``): from the same ``random.Random`` the same worlds, the
generator left in the same state and the same rejection counts, on the views of many hands of
the default rules and the variants that change what a view hides (projects off, four aces an
ordinary hundred in Hokum), many of them with public projects to reject against (R6.1, R6.2)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents import HeuristicAgent, PlayerView
from baloot_env import DONE, PLAY, HandState, random_deal
from baloot_env.batch.worlds import sample_worlds
from baloot_env.rules import RuleConfig
from baloot_env.worlds import WorldSampler


def _views(rules: RuleConfig, hands: int, seed: int):
    """A view of a random seat at random card decisions of hands played half at random (random
    calls give every contract), the heuristic the other half."""
    rng = random.Random(seed)
    heuristic = HeuristicAgent(0)
    for _ in range(hands):
        state = HandState(random_deal(rng), rules)
        while state.phase != DONE:
            if state.phase == PLAY and rng.random() < 0.4:
                yield PlayerView.from_state(state, rng.randrange(4))
            view = PlayerView.from_state(state, state.to_act)
            state.apply(rng.choice(state.legal_actions()) if rng.random() < 0.5 else heuristic.act(view))


@pytest.mark.parametrize(
    "rules",
    [RuleConfig(), RuleConfig(projects=False), RuleConfig(four_aces_hokum="hundred")],
    ids=["rules", "no-projects", "aces-hundred"],
)
def test_the_compiled_draws_are_the_samplers_to_the_bit(rules):
    checked = with_projects = rejected = 0
    for i, view in enumerate(_views(rules, 120, seed=5)):
        one, other = WorldSampler(view, max_tries=3 + i % 5), WorldSampler(view, max_tries=3 + i % 5)
        rng_a, rng_b = random.Random(i), random.Random(i)
        count = 1 + i % 40
        want = np.array([one.sample(rng_a) for _ in range(count)], dtype=np.int64)
        got = sample_worlds(other, rng_b, count)
        assert got.tolist() == want.tolist(), i
        assert rng_b.getstate() == rng_a.getstate()
        assert (other.tries, other.fallbacks) == (one.tries, one.fallbacks)
        assert rng_b.random() == rng_a.random()  # and the generator goes on alike
        checked += 1
        with_projects += bool(one.project_seats)
        rejected += one.tries > count
    assert checked > 300
    if rules.projects:
        assert with_projects > 50 and rejected > 10  # the rejection path is exercised
    else:
        assert with_projects == 0


def test_the_compiled_draws_go_on_across_calls_and_past_a_twist_of_the_generator():
    """Several calls in a row on one sampler and one generator, over more than 624 words."""
    view = next(v for v in _views(RuleConfig(), 40, seed=2) if len(v.tricks) == 0)
    one, other = WorldSampler(view), WorldSampler(view)
    rng_a, rng_b = random.Random(7), random.Random(7)
    for count in (1, 50, 200, 3):
        want = [one.sample(rng_a) for _ in range(count)]
        assert sample_worlds(other, rng_b, count).tolist() == want
    assert rng_a.getstate() == rng_b.getstate()
