"""``ppo.precision: bf16``: the PPO update's matrix work in bfloat16 (``train.policy.BalootPolicy``).

On fixed positions of the shipped champion, the bf16 update sees the same policy as fp32 within
the stated tolerance (log-probability of the greedy action within 0.1, value within 0.05), and
it does run in bf16 (the figures are not exactly fp32's); fp32 is SB3's own path, exactly.
"""

import numpy as np
import pytest
import torch
from gymnasium import spaces

from agents.neural.bundle import load_net
from agents.neural.positions import collect_positions
from agents.registry import make_agent
from train.config import ConfigError, config_from_dict
from train.policy import BalootPolicy

LOGPROB_TOLERANCE = 0.1
VALUE_TOLERANCE = 0.05


def _policy(net, precision):
    space = spaces.Box(0.0, 1.0, (net.spec.obs_size,), np.float32)
    p = BalootPolicy(space, spaces.Discrete(42), lambda _: 1e-4, net_spec=net.spec.to_dict(), precision=precision)
    p.net.load_state_dict(net.state_dict())
    return p.eval()


def test_bf16_update_sees_the_fp32_policy_within_tolerance():
    torch.manual_seed(0)
    net, _ = load_net("policies/champion")
    pos = collect_positions(600, [make_agent("heuristic", 0), make_agent("random", 1)], 5)
    obs, masks = torch.from_numpy(pos.observations), torch.from_numpy(pos.masks.astype(bool))
    fp32, bf16 = _policy(net, "fp32"), _policy(net, "bf16")
    with torch.no_grad():
        greedy = net(obs, masks)[0].argmax(1)
        v32, l32, e32 = fp32.evaluate_actions(obs, greedy, masks)
        v16, l16, e16 = bf16.evaluate_actions(obs, greedy, masks)
        base = super(BalootPolicy, fp32).evaluate_actions(obs, greedy, masks)
    assert all(torch.equal(x, y) for x, y in zip(base, (v32, l32, e32), strict=True))  # fp32: SB3's own path
    assert l16.dtype == v16.dtype == torch.float32  # the losses are computed in fp32
    assert (l32 - l16).abs().max() < LOGPROB_TOLERANCE and (v32 - v16).abs().max() < VALUE_TOLERANCE
    assert (v32 - v16).abs().max() > 0  # it did run in bf16


def test_precision_is_a_checked_config_key():
    assert config_from_dict({}).ppo.precision == "fp32"
    assert config_from_dict({"ppo": {"precision": "bf16"}}).ppo.precision == "bf16"
    with pytest.raises(ConfigError, match="ppo.precision"):
        config_from_dict({"ppo": {"precision": "fp16"}})


def test_the_rllib_backend_refuses_bf16_rather_than_ignore_it():
    from train.rllib.config import load_rllib_config

    with pytest.raises(ConfigError, match="ppo.precision"):
        load_rllib_config(None, ["ppo.precision=bf16"])
