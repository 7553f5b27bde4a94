"""Belief-weighted worlds (``agents.search_player.beliefs``) against the engine: for decisions of
real hands, with the true holdings as the world, the replayed rows must be the observations the
engine's own ``PlayerView`` gave each other seat when it chose its card, and a world's
log-likelihood the sum of the network's log-probabilities of those cards on those views."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import torch

from agents import HeuristicAgent, PlayerView
from agents.neural.network import BalootNet, NetSpec
from agents.registry import make_agent
from agents.search_player.beliefs import history_rows, log_likelihoods, played_cards, start_view, weights
from agents.search_player.card_values import CardValues
from agents.search_player.player import world_row
from baloot_env.batch.state import rule_switches
from baloot_env.batch.worlds import sample_worlds
from baloot_env.cards import cards_of
from baloot_env.deal import random_deal
from baloot_env.errors import ConfigError
from baloot_env.hand import PLAY, HandState
from baloot_env.observation import OBS_SIZE
from baloot_env.rules import RuleConfig
from baloot_env.worlds import WorldSampler


def _hands_with_history(rules: RuleConfig, hands: int, seed: int):
    """(view, seen) at every card decision with a choice in seeded ``heuristic`` hands: ``seen``
    lists (seat, observation, legal mask, card) of every card chosen among two or more before it."""
    rng = random.Random(seed)
    agents = [HeuristicAgent(s) for s in range(4)]
    for _ in range(hands):
        state = HandState(random_deal(rng), rules)
        seen: list[tuple[int, np.ndarray, int, int]] = []
        while state.result is None:
            seat = state.to_act
            view = PlayerView.from_state(state, seat)
            card = agents[seat].act(view)
            if state.phase == PLAY and len(cards_of(view.legal_mask)) > 1:
                yield view, [x for x in seen if x[0] != seat], state
                seen.append((seat, view.observation(), view.legal_mask, card))
            state.apply(card)


def _replayed(view: PlayerView, state: HandState, rules: RuleConfig, copies: int = 1):
    """``history_rows`` for the true holdings as the world (``copies`` times over): the rows, and
    for each pair its world and row."""
    sw = rule_switches(rules, "hand")
    worlds = np.array([state.hands] * copies, dtype=np.int64)
    start = world_row(start_view(view), [h | p for h, p in zip(state.hands, view.played_by, strict=True)], rules)
    seats, cards = played_cards(view)
    n = len(seats) * copies
    obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
    legal, chosen, pair_world, pair_row = (np.empty(n, dtype=np.int64) for _ in range(4))
    played_by = np.array(view.played_by, dtype=np.int64)
    m, k = history_rows(start, worlds, played_by, seats, cards, view.seat, sw, obs, legal, chosen, pair_world, pair_row)
    return sw, start, worlds, obs[:m], legal[:m], chosen[:m], pair_world[:k], pair_row[:k]


@pytest.mark.parametrize("rules", [RuleConfig(), RuleConfig(projects=False, sun_double=True)], ids=["rules", "variant"])
def test_replayed_rows_are_the_engines_views_of_the_other_seats(rules):
    checked = 0
    for view, seen, state in _hands_with_history(rules, 6, seed=11):
        _, _, _, obs, legal, chosen, pair_world, pair_row = _replayed(view, state, rules)
        assert len(obs) == len(seen)
        for j, (_seat, o, mask, card) in enumerate(seen):
            np.testing.assert_array_equal(obs[j], o)
            assert legal[j] == mask and chosen[j] == card
        np.testing.assert_array_equal(pair_world, np.zeros(len(seen)))
        np.testing.assert_array_equal(pair_row, np.arange(len(seen)))
        # three copies of the world: the same rows once, each met by the three worlds
        _, _, _, obs3, _, _, pair_world, pair_row = _replayed(view, state, rules, copies=3)
        np.testing.assert_array_equal(obs3, obs)
        np.testing.assert_array_equal(pair_world, np.tile(np.arange(3), len(seen)))
        np.testing.assert_array_equal(pair_row, np.repeat(np.arange(len(seen)), 3))
        checked += len(seen)
    assert checked > 100


def test_a_worlds_log_likelihood_is_the_networks_on_the_engines_views():
    """fp32 network; ``mix`` blends in the uniform choice among the legal cards."""
    rules = RuleConfig()
    torch.manual_seed(3)
    net = BalootNet(NetSpec(trunk=(48,), head_hidden=16, value_hidden=(8,))).eval()
    mix = 0.2
    cases = 0
    for view, seen, state in _hands_with_history(rules, 3, seed=5):
        sw, start, world, *_ = _replayed(view, state, rules)
        want = 0.0
        for _seat, o, mask, card in seen:
            with torch.inference_mode():
                logits = net.card_logits(torch.from_numpy(o[None]))[0].double()
            legal = torch.tensor([(mask >> c) & 1 for c in range(32)], dtype=torch.bool)
            p = torch.softmax(torch.where(legal, logits, torch.tensor(-torch.inf, dtype=torch.float64)), 0)[card]
            want += float(np.log((1 - mix) * float(p) + mix / int(legal.sum())))
        got = log_likelihoods(net, view, start, world, sw, mix)
        assert got.shape == (1,)
        assert got[0] == pytest.approx(want, rel=1e-5, abs=1e-9)
        # among other worlds (rows shared where a seat's hand is the same), each as on its own
        sampler = WorldSampler(view, rules.projects, rules.four_aces_hokum, 64)
        worlds = np.vstack([sample_worlds(sampler, random.Random(cases), 5), world, world])
        together = log_likelihoods(net, view, start, worlds, sw, mix)
        alone = [log_likelihoods(net, view, start, worlds[i : i + 1], sw, mix)[0] for i in range(7)]
        np.testing.assert_allclose(together, alone, rtol=1e-5, atol=1e-9)
        assert together[-1] == together[-2] == pytest.approx(want, rel=1e-5, abs=1e-9)
        cases += bool(seen)
    assert cases > 20


def test_the_true_world_is_likelier_than_sampled_ones():
    """Under the champion, the hidden hands the ``heuristic`` players really held make their cards
    likelier than most worlds the sampler draws from the same view: over 150 decisions from the
    third trick on, the true world's log-likelihood beats 64% of 31 sampled worlds' on average
    (a weighting blind to the cards, or reading the wrong seat, would sit at 50%, about 0.024
    apart per standard error). ``weights`` put the likeliest world at 1 and, at power 0, every
    world at 1."""
    rules = RuleConfig()
    sw = rule_switches(rules, "hand")
    torch.set_num_threads(1)
    net = make_agent("policies/champion", 0).net
    rng = random.Random(0)
    beaten = []
    for view, _seen, state in _hands_with_history(rules, 40, seed=2):
        if len(view.tricks) < 2:
            continue
        sampler = WorldSampler(view, rules.projects, rules.four_aces_hokum, 64)
        worlds = np.vstack([np.array([state.hands], dtype=np.int64), sample_worlds(sampler, rng, 31)])
        start = world_row(start_view(view), [h | p for h, p in zip(state.hands, view.played_by, strict=True)])
        ll = log_likelihoods(net, view, start, worlds, sw, 0.1)
        beaten.append(float(np.mean(ll[1:] < ll[0])))
        w = weights(ll, 1.0)
        assert w.max() == 1.0 and np.all(w > 0)
        np.testing.assert_array_equal(weights(ll, 0.0), np.ones(len(ll)))
        if len(beaten) == 150:
            break
    assert len(beaten) == 150
    assert np.mean(beaten) > 0.57, np.mean(beaten)


def test_netsearch_refuses_beliefs_it_cannot_weigh():
    from agents.search_player.netsearch import NetSearchConfig

    with pytest.raises(ConfigError, match="belief"):
        NetSearchConfig.from_dict({"belief": -1})
    with pytest.raises(ConfigError, match="belief_mix"):
        NetSearchConfig.from_dict({"belief": 1, "belief_mix": 1.5})


def test_weighted_card_values_are_the_weighted_means_and_errors():
    """Hand-worked: worlds weighing 1, 1 and 2 are the plain search over the worlds with the third
    counted twice, in the means; worlds weighing alike are the unweighted search in means and
    errors; a world weighing all leaves no error to measure (NaN)."""
    per_world = np.array([[1.0, 4.0], [3.0, 0.0], [2.0, 2.0]])
    plain = CardValues((5, 9), per_world.sum(axis=0), per_world, 1)
    alike = CardValues((5, 9), per_world.sum(axis=0), per_world, 1, np.full(3, 0.3))
    assert alike.values() == pytest.approx(plain.values())
    np.testing.assert_allclose(alike.errors(), plain.errors())
    assert alike.gap_errors(5) == pytest.approx(plain.gap_errors(5))
    twice = CardValues((5, 9), per_world.sum(axis=0), per_world, 1, np.array([1.0, 1.0, 2.0]))
    assert twice.values() == pytest.approx({5: (1 + 3 + 4) / 4, 9: (4 + 0 + 4) / 4})
    # w = 1/4, 1/4, 1/2; card 5's mean 2: sum w^2 (x - 2)^2 = 1/16 + 1/16 + 0, over 1 - 3/8
    assert twice.errors()[0] == pytest.approx(np.sqrt((2 / 16) / (5 / 8)))
    one = CardValues((5, 9), per_world.sum(axis=0), per_world, 1, np.array([0.0, 1.0, 0.0]))
    assert one.values() == {5: 3.0, 9: 0.0}
    assert np.isnan(one.errors()).all()


def test_belief_weighted_netsearch_plays_and_reports_weighted_values(tmp_path):
    """A guided netsearch with beliefs judges real decisions with the weighted means of its
    worlds' values; with ``belief`` 0 it is the plain guided search, world for world."""
    rules = RuleConfig()
    spec = {"leaves": "policy", "worlds": 8, "calls": "heuristic"}
    (tmp_path / "plain.json").write_text(json.dumps({"agent": "netsearch", "params": spec}))
    (tmp_path / "weighed.json").write_text(json.dumps({"agent": "netsearch", "params": {**spec, "belief": 1.0}}))
    plain = make_agent(str(tmp_path / "plain.json"), 1)
    weighed = make_agent(str(tmp_path / "weighed.json"), 1)
    assert weighed.describe()["params"]["belief"] == 1.0
    n = 0
    for view, seen, _state in _hands_with_history(rules, 2, seed=5):
        a = plain.search.card_values(view, random.Random(7))
        b = weighed.search.card_values(view, random.Random(7))
        np.testing.assert_array_equal(a.per_world, b.per_world)  # the same worlds, the same values
        assert a.weights is None and b.weights is not None and b.weights.max() == 1.0
        if not seen:
            np.testing.assert_array_equal(b.weights, np.ones(b.worlds))  # nothing to weigh yet
        share = b.weights / b.weights.sum()
        assert list(b.values().values()) == pytest.approx(list(share @ b.per_world))
        assert weighed.judge(view).action in cards_of(view.legal_mask)
        n += 1
    assert n > 10
