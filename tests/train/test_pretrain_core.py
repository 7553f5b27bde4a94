"""Warm-start labelling on the batched core gives the positions the driver gives (same deals)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.neural.bundle import load_policy
from agents.rule_based.heuristic import HeuristicAgent
from baloot_env.deal import random_deal
from baloot_env.driver import DealSource, Table
from baloot_env.observation import OBS_SIZE, seat_hidden_hands
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig
from baloot_env.view import PlayerView
from train.config import PretrainConfig
from train.pretrain import collect_core, uses_core


def _reference(deals, rules, reward, agent=None):
    """An independent loop: each deal played by ``agent`` (HeuristicAgent) on the driver, every
    position kept."""
    agent = agent or HeuristicAgent()
    rows = []
    for deal in deals:
        table = Table(rules, "hand", DealSource(deals=[deal]), reward)
        table.reset()
        start, teams, outcome = len(rows), [], None
        while not table.over:
            seat = table.to_act
            view = PlayerView.from_table(table, seat)
            label = agent.act(view)
            hands = table.hand.hands
            priv = seat_hidden_hands(hands, seat)
            rows.append([np.concatenate([view.observation(), priv]), view.action_mask(), label, 0.0])
            teams.append(seat % 2)
            outcome = table.apply(label)
        for j, team in enumerate(teams):
            rows[start + j][3] = outcome.rewards[team]
    return rows


@pytest.mark.parametrize("rules", [RuleConfig(), RuleConfig(projects=False), RuleConfig(doubling=False)])
def test_core_labels_observations_and_values_equal_the_driver_on_the_same_deals(rules):
    rng = np.random.default_rng(5)
    deals = [random_deal(rng) for _ in range(40)]
    reward = Reward("diff", 44.0)
    ref = _reference(deals, rules, reward)
    n = len(ref)
    obs, masks, targets, values = collect_core(n, 0, rules, 0.0, reward, True, games=1, deals=deals)
    assert n > 40 * 4  # every deal gave positions (a thrown-in deal has at least 8 calls)
    for k, (o, m, label, v) in enumerate(ref):
        assert np.array_equal(obs[k], o), k
        assert np.array_equal(masks[k], m), k
        assert int(np.argmax(targets[k])) == label and targets[k].sum() == 1.0, k
        assert values[k] == np.float32(v), k


@pytest.mark.parametrize("temperature", [0.0, 1.0], ids=["greedy", "soft"])
def test_a_bundle_teacher_on_the_core_labels_what_its_policy_agent_plays_on_the_driver(temperature):
    """Every seat the shipped champion's greedy action, on the driver through ``PolicyAgent``
    and on the core through one forward pass per step: the same positions, the same actions;
    with a temperature the targets are the agent's own probabilities."""
    rules, reward = RuleConfig(), Reward("diff", 44.0)
    agent = load_policy("policies/champion")
    rng = np.random.default_rng(8)
    deals = [random_deal(rng) for _ in range(12)]
    ref = _reference(deals, rules, reward, agent)
    assert len(ref) > 12 * 4
    obs, masks, targets, values = collect_core(
        len(ref),
        0,
        rules,
        0.0,
        reward,
        True,
        games=1,
        deals=deals,
        teacher="policies/champion",
        temperature=temperature,
    )
    for k, (o, m, label, v) in enumerate(ref):
        assert np.array_equal(obs[k], o) and np.array_equal(masks[k], m) and values[k] == np.float32(v), k
        assert int(np.argmax(targets[k])) == label, k
        if temperature:
            want = agent.probabilities(o[None, :OBS_SIZE], m[None])[0]
            np.testing.assert_allclose(targets[k], want, atol=1e-5)
            assert (targets[k][m == 0] == 0).all()
        else:
            assert targets[k].sum() == 1.0 and targets[k][label] == 1.0, k


def test_uses_core_for_the_heuristic_and_for_a_bundle():
    assert uses_core(PretrainConfig(teacher="heuristic", soft_temperature=0.0))
    assert uses_core(PretrainConfig(teacher="heuristic", soft_temperature=1.0))  # no values: one-hot all the same
    assert not uses_core(PretrainConfig(teacher="heuristic", backend="python"))
    assert not uses_core(PretrainConfig(teacher="search"))
    assert uses_core(PretrainConfig(teacher="policies/champion", soft_temperature=1.0))
    assert not uses_core(PretrainConfig(teacher="policies/champion", backend="python"))


def test_many_games_give_the_asked_number_of_finished_positions():
    obs, masks, targets, values = collect_core(3000, 1, RuleConfig(), 0.1, Reward(), False, games=64)
    assert obs.shape == (3000, 697) and masks.shape == (3000, 42)
    labels = targets.argmax(1)
    assert np.all(masks[np.arange(3000), labels] == 1)  # every label is legal in its position
    assert np.all(targets.sum(1) == 1.0) and np.isfinite(values).all()


def test_labelling_on_the_core_splits_over_the_workers_in_seeded_chunks_in_order():
    from train.pretrain import collect_parallel

    cfg = PretrainConfig(positions=300, workers=2, teacher="heuristic")  # on the core: 8 chunks, seeds 4..11
    assert uses_core(cfg)
    a = collect_parallel(cfg, 4, RuleConfig(), Reward(), False, True)
    first = collect_core(38, 4, RuleConfig(), cfg.random_share, Reward(), False)  # chunk 0
    last = collect_core(37, 11, RuleConfig(), cfg.random_share, Reward(), False)  # chunk 7
    for got, chunk0, chunk7 in zip(a, first, last, strict=True):
        assert np.array_equal(got[:38], chunk0) and np.array_equal(got[-37:], chunk7)
    one = collect_parallel(
        PretrainConfig(positions=300, workers=1, teacher="heuristic"), 4, RuleConfig(), Reward(), False, True
    )
    assert np.array_equal(one[0], collect_core(300, 4, RuleConfig(), cfg.random_share, Reward(), False)[0])
    assert (a[2].sum(1) == 1).all()  # every row labelled


def test_the_warm_start_fits_in_its_workers_processes_like_one_process(monkeypatch):
    """``pretrain.workers: 2`` fits in two processes (train.supervised's data-parallel fit):
    the same epochs' figures as one process on the same positions, up to float rounding (a
    helper on other rows, or on rows renamed otherwise, would differ by far more)."""
    import torch

    from agents.neural.network import BalootNet, NetSpec
    from baloot_env.observation import OBS_SIZE
    from train.fitting import fit_positions
    from train.pretrain import labelled, pretrain

    torch.set_num_threads(1)
    cfg = PretrainConfig(positions=1201, epochs=2, batch_size=128, workers=2)
    spec = NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,), obs_size=OBS_SIZE, privileged_critic=True)
    data = labelled(cfg, 5, RuleConfig(), Reward(), True, True)
    torch.manual_seed(0)
    alone = BalootNet(spec)
    start = {k: v.clone() for k, v in alone.state_dict().items()}
    one: list[dict] = []
    fit_positions(alone, data, cfg, 5, lambda e, m: one.append(m))

    both = BalootNet(spec)
    both.load_state_dict(start)
    monkeypatch.setattr("train.pretrain.labelled", lambda *args: data)  # the same positions as above
    stats = pretrain(both, cfg, 5, RuleConfig(), Reward(), quiet=True)
    assert stats["fit_processes"] == 2
    for key in ("policy_loss", "value_loss"):
        assert stats[key] == pytest.approx(one[-1][key], rel=1e-3), key
    assert abs(stats["train_accuracy"] - one[-1]["train_accuracy"]) <= 3 / 1201  # a near tie may flip
    drift = max((a - b).abs().max().item() for a, b in zip(alone.parameters(), both.parameters(), strict=True))
    assert drift < 0.05  # Adam's steps from gradients equal up to rounding
