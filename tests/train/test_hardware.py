"""Where and in what format training's matrix work runs (``train.hardware``), and the bf16 PPO
update (``train.policy.BalootPolicy``).

``device: auto`` is CUDA when torch sees a GPU, else the CPU; ``precision: auto`` is bf16 only
where the device does bf16 in hardware (checked on made-up processor flags and GPU answers). On fixed
positions of a shipped policy, the bf16 update sees the same policy as fp32 within
the stated tolerance (log-probability of the greedy action within 0.1, value within 0.05; on
policies/expert: the champion since 2026-12-05 has logits in the thousands, beyond bf16), and
it does run in bf16 (the figures are not exactly fp32's). The update's own masked log-probability
and entropy (``BalootPolicy.evaluate_actions``, on the logits) equal sb3-contrib's distribution
path (``MaskableCategorical``) within float rounding, on the champion's positions and on random
legal masks with sampled actions; so does the rollouts' lean forward, which draws the same actions.
"""

import numpy as np
import pytest
import torch
from gymnasium import spaces

from agents.neural import precision
from agents.neural.bundle import load_net
from agents.neural.positions import collect_positions
from agents.registry import make_agent
from train import hardware
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
    """On policies/expert (logits in the tens). The champion since 2026-12-05 has logits in the
    thousands, where bf16 (8 bits of mantissa) cannot tell two close logits apart: its bf16
    greedy log-probability is up to 0.7 off (docs/RESULTS.md, "The teacher's noise")."""
    torch.manual_seed(0)
    net, _ = load_net("policies/expert")
    pos = collect_positions(600, [make_agent("heuristic", 0), make_agent("random", 1)], 5)
    obs, masks = torch.from_numpy(pos.observations), torch.from_numpy(pos.masks.astype(bool))
    fp32, bf16 = _policy(net, "fp32"), _policy(net, "bf16")
    with torch.no_grad():
        logits = net(obs, masks)[0]
        greedy = logits.argmax(1)
        v32, l32, e32 = fp32.evaluate_actions(obs, greedy, masks)
        v16, l16, e16 = bf16.evaluate_actions(obs, greedy, masks)
        base = super(BalootPolicy, fp32).evaluate_actions(obs, greedy, masks)
    # the two paths round apart by a few float32 ulps of the largest logit (a champion trained to
    # sharp choices has logits in the thousands, where one ulp is 2.4e-4)
    scale = float(logits[masks].abs().max())
    atol = max(1e-5, 8 * torch.finfo(torch.float32).eps * scale)
    for ours, sb3 in zip((v32, l32, e32), base, strict=True):  # fp32: sb3-contrib's figures
        torch.testing.assert_close(ours, sb3, rtol=1e-5, atol=atol)
    assert l16.dtype == v16.dtype == torch.float32  # the losses are computed in fp32
    assert (l32 - l16).abs().max() < LOGPROB_TOLERANCE and (v32 - v16).abs().max() < VALUE_TOLERANCE
    assert (v32 - v16).abs().max() > 0  # it did run in bf16


def test_masked_log_probs_and_entropy_equal_sb3_contribs_on_random_masks():
    torch.manual_seed(1)
    net, _ = load_net("policies/champion")
    policy = _policy(net, "fp32")
    obs = (torch.rand(500, net.spec.obs_size) < 0.15).float()
    masks = torch.rand(500, 42) < 0.3
    masks[torch.arange(500), torch.randint(0, 42, (500,))] = True  # at least one legal action
    actions = torch.multinomial(masks.float(), 1).squeeze(1)  # a legal action of each row
    with torch.no_grad():
        ours = policy.evaluate_actions(obs, actions, masks)
        sb3 = super(BalootPolicy, policy).evaluate_actions(obs, actions, masks)
    for a, b in zip(ours, sb3, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    assert ours[2].min() >= 0 and (ours[2] < torch.log(masks.sum(1).float()) + 1e-5).all()  # at most log(#legal)


def test_the_rollouts_forward_samples_as_sb3_contribs_does():
    """``BalootPolicy.forward`` (the rollouts' lean pass) draws the action sb3-contrib's
    ``MaskableCategorical`` draws from the same generator state, with its value and
    log-probability, and never an illegal action."""
    net, _ = load_net("policies/champion")
    policy = _policy(net, "fp32")
    g = torch.Generator().manual_seed(2)
    obs = (torch.rand(400, net.spec.obs_size, generator=g) < 0.15).float()
    masks = torch.rand(400, 42, generator=g) < 0.3
    masks[torch.arange(400), torch.randint(0, 42, (400,), generator=g)] = True
    with torch.no_grad():
        torch.manual_seed(7)
        ours = policy.forward(obs, action_masks=masks.numpy())
        torch.manual_seed(7)
        sb3 = super(BalootPolicy, policy).forward(obs, action_masks=masks.numpy())
        greedy = policy.forward(obs, deterministic=True, action_masks=masks.numpy())[0]
    assert torch.equal(ours[0], sb3[0]) and masks[torch.arange(400), ours[0]].all()
    for a, b in zip(ours[1:], sb3[1:], strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    assert torch.equal(greedy, torch.where(masks, net(obs, masks)[0], -1e9).argmax(1))


def test_precision_is_a_checked_config_key():
    assert config_from_dict({}).ppo.precision == "auto"  # the main job's (configs/default.yaml)
    assert config_from_dict({}).pretrain.precision == "auto"
    assert config_from_dict({"ppo": {"precision": "fp32"}}).ppo.precision == "fp32"
    with pytest.raises(ConfigError, match="ppo.precision"):
        config_from_dict({"ppo": {"precision": "fp16"}})
    assert config_from_dict({"pretrain": {"precision": "fp32"}}).pretrain.precision == "fp32"
    with pytest.raises(ConfigError, match="pretrain.precision"):
        config_from_dict({"pretrain": {"precision": "fp16"}})


def test_the_rllib_backend_takes_the_precision_and_refuses_processes():
    pytest.importorskip("ray.rllib")
    from train.rllib.algorithm import module_spec
    from train.rllib.config import load_rllib_config

    assert module_spec(load_rllib_config(None, ["ppo.precision=bf16"])).model_config["precision"] == "bf16"
    assert module_spec(load_rllib_config(None, ["ppo.precision=fp32"])).model_config["precision"] == "fp32"
    with pytest.raises(ConfigError, match="ppo.processes"):
        load_rllib_config(None, ["ppo.processes=2"])
    ppo = load_rllib_config(None).ppo  # left out: the shared precision, one process (RLlib's runners are its own)
    assert (ppo.precision, ppo.processes) == ("auto", 1)


CPUINFO = "processor\t: 0\nmodel name\t: test\nflags\t\t: fpu sse2 avx2 {extra}\n\nprocessor\t: 1\n"


@pytest.mark.parametrize(
    ("extra", "auto"),
    [("", "fp32"), ("avx512f avx512bw", "fp32"), ("avx512f avx512_bf16", "bf16"), ("amx_bf16", "bf16")],
)
def test_auto_takes_bf16_only_where_the_cpu_has_it_in_hardware(tmp_path, monkeypatch, extra, auto):
    """AVX2 or plain AVX-512 emulate bf16 (20x slower than fp32 on an AVX2 EPYC): ``auto`` is
    fp32 there; AVX-512 BF16 or AMX: bf16. An explicit choice is kept on any processor."""
    info = tmp_path / "cpuinfo"
    info.write_text(CPUINFO.format(extra=extra))
    flags = precision.cpu_flags(str(info))
    monkeypatch.setattr(precision, "cpu_flags", lambda: flags)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert precision.resolve_precision("auto") == auto
    assert hardware.hardware_words("auto", "auto").startswith(f"cpu, {auto} (auto")
    assert (precision.resolve_precision("fp32"), precision.resolve_precision("bf16")) == ("fp32", "bf16")
    with pytest.raises(ValueError, match="precision"):
        precision.resolve_precision("fp16")


def test_cpu_flags_of_a_missing_file_are_none():
    assert precision.cpu_flags("/nonexistent/cpuinfo") == frozenset()


@pytest.mark.parametrize(("gpu", "bf16"), [(False, False), (True, False), (True, True)])
def test_device_auto_is_cuda_when_torch_sees_a_gpu(monkeypatch, gpu, bf16):
    """``device: auto``: CUDA with a GPU (bf16 under ``auto`` where the GPU supports it), else the
    CPU; ``device: cuda`` without one is refused when the config is read, before any work."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: gpu)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: bf16)
    assert hardware.resolve_device("auto") == ("cuda" if gpu else "cpu")
    assert hardware.resolve_device("cpu") == "cpu"
    if gpu:
        assert precision.resolve_precision("auto", "cuda") == ("bf16" if bf16 else "fp32")
        assert config_from_dict({"device": "cuda"}).device == "cuda"
    else:
        with pytest.raises(ValueError, match="no GPU"):
            hardware.resolve_device("cuda")
        with pytest.raises(ConfigError, match="device"):
            config_from_dict({"device": "cuda"})
    with pytest.raises(ConfigError, match="device"):
        config_from_dict({"device": "tpu"})
    assert config_from_dict({}).device == "auto"
