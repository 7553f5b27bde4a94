"""The consistency loss of expert fits (issue 45): worked by hand, renamed with the suits, and a
fit with it moves the policy's mean of the teacher's values towards the value."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from agents.neural.network import BalootNet, NetSpec
from baloot_env.observation import OBS_SIZE
from baloot_env.rewards import Reward
from train.augment import PERMUTATIONS, SuitPermutations
from train.config import ConfigError, ExpertConfig, config_from_dict
from train.fitting import consistency_loss, fit_labelled, fit_positions
from train.labels import value_unit

NAN = float("nan")


def test_the_loss_worked_by_hand():
    # row 0: pi = (1/4, 3/4) over two valued cards of 1 and 3 -> 2.5; V = 1.5 -> (1.5 - 2.5)^2 = 1
    # row 1: an unsearched choice (no values) counts 0
    # row 2: equal logits over three legal actions, the third unvalued: the mean is over the valued
    #        two, (2 + 4) / 2 = 3; V = 3 -> 0
    logits = torch.full((3, 42), -1e8)
    logits[0, :2] = torch.tensor([0.0, math.log(3.0)])
    logits[1, :2] = 0.0
    logits[2, :3] = 0.0
    q = torch.full((3, 42), NAN)
    q[0, :2] = torch.tensor([1.0, 3.0])
    q[2, :2] = torch.tensor([2.0, 4.0])
    logits.requires_grad_()
    value = torch.tensor([1.5, 0.7, 3.0], requires_grad=True)
    loss = consistency_loss(logits, value, q)
    assert loss.item() == pytest.approx((1.0 + 0.0 + 0.0) / 3, rel=1e-5)
    loss.backward()
    assert value.grad is None and logits.grad is not None  # the policy moves, the value is left alone
    assert logits.grad[0, 0] < 0 < logits.grad[0, 1]  # descent favours the card of value 1, nearer V = 1.5


def test_value_units_follow_the_reward():
    assert value_unit(Reward("diff", 44.0)) == 44.0 and value_unit(Reward("points")) == 1.0
    with pytest.raises(ValueError, match="win"):
        value_unit(Reward("win"))
    with pytest.raises(ConfigError, match="env.reward"):
        config_from_dict({"expert": {"consistency": 0.3}, "env": {"reward": "win"}})
    with pytest.raises(ConfigError, match="expert.consistency"):
        config_from_dict({"expert": {"consistency": -1}})


def test_renaming_the_suits_renames_the_values_with_the_actions():
    aug = SuitPermutations(OBS_SIZE)
    q = torch.arange(42, dtype=torch.float32)[None].repeat(len(PERMUTATIONS), 1)
    targets = torch.zeros(len(PERMUTATIONS), 42)
    targets[:, 3] = 1.0  # the ten of spades (card 3) as the target
    perm = torch.arange(len(PERMUTATIONS))
    renamed = aug.rename_actions(q, perm)
    _, _, t = aug.apply(torch.zeros(len(PERMUTATIONS), OBS_SIZE), torch.ones(len(PERMUTATIONS), 42), targets, perm)
    where = t.argmax(1)  # the target's new place: the value 3 must have gone with it
    assert torch.all(renamed[torch.arange(len(perm)), where] == 3.0)
    assert torch.all(renamed.sort(1).values == q)  # a renaming only moves the values


def _data(n: int, seed: int) -> tuple[torch.Tensor, ...]:
    """Positions of four legal cards the teacher values 0, 0.2, 0.4 and 1, soft targets spread over
    them alike (a policy mean of 0.4) and a value of 0.8: only the consistency loss moves the
    policy towards the cards whose mean is the value."""
    rng = np.random.default_rng(seed)
    obs = (rng.random((n, OBS_SIZE)) < 0.1).astype(np.float32)
    masks = np.zeros((n, 42), dtype=np.int8)
    masks[:, :4] = 1
    targets = np.zeros((n, 42), dtype=np.float32)
    targets[:, :4] = 0.25
    values = np.full(n, 0.8, dtype=np.float32)
    q = np.full((n, 42), NAN, dtype=np.float32)
    q[:, :4] = [0.0, 0.2, 0.4, 1.0]
    return tuple(torch.from_numpy(a) for a in (obs, masks, targets, values, q))


def test_a_fit_with_the_loss_ends_closer_to_its_values_than_one_without():
    data = _data(256, 3)
    spec = NetSpec(trunk=(16,), head_hidden=8, value_hidden=(8,))
    ends, means_q = {}, {}
    for weight in (0.0, 1.0):
        torch.manual_seed(0)
        net = BalootNet(spec)
        cfg = ExpertConfig(epochs=4, batch_size=16, learning_rate=1e-2, augment=False, workers=1, precision="fp32")
        means: list[dict[str, float]] = []
        fit_positions(net, data, cfg, 1, lambda e, m, means=means: means.append(m), consistency=weight)
        with torch.no_grad():
            logits, value = net(data[0], data[1])
            ends[weight] = consistency_loss(logits, value, data[4]).item()
            means_q[weight] = (torch.softmax(logits, 1)[:, :4] * data[4][:, :4]).sum(1).mean().item()
        assert ("consistency_loss" in means[-1]) == bool(weight)
    assert ends[1.0] < 0.7 * ends[0.0], ends
    assert means_q[0.0] == pytest.approx(0.4, abs=0.02) and means_q[1.0] > means_q[0.0] + 0.03, means_q  # V is 0.8


def test_the_loss_needs_the_values_and_reaches_the_helpers():
    data = _data(256, 4)
    net = BalootNet(NetSpec(trunk=(8,), head_hidden=8, value_hidden=(8,)))
    cfg = ExpertConfig(epochs=2, batch_size=64, augment=True, workers=2, precision="fp32")
    with pytest.raises(ValueError, match="action values"):
        fit_positions(net, data[:4], cfg, 1, consistency=0.3)
    means: list[dict[str, float]] = []
    torch.set_num_threads(1)
    fit_labelled(net, data, cfg, 1, lambda e, m: means.append(m), 2, 0.3)
    assert len(means) == 2 and means[-1]["consistency_loss"] > 0
