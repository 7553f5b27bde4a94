"""A network grown wider computes what the narrower one did (``agents.neural.widen``), its new
units keep their fresh weights, and a run started from a narrower bundle plays as that bundle."""

from __future__ import annotations

import pytest
import torch

from agents.neural.network import BalootNet, NetSpec
from agents.neural.widen import widen, widens
from baloot_env.actions import NUM_ACTIONS
from baloot_env.observation import OBS_SIZE, PRIVILEGED_SIZE

PAIRS = [
    (NetSpec((32, 16), 8, (8,), True), NetSpec((48, 40), 24, (16,), True)),  # every layer wider
    (NetSpec((32,), 8, (), True), NetSpec((64,), 8, (), True)),  # the value reads trunk + hidden hands directly
    (NetSpec((32, 16), 8, (8, 8), False), NetSpec((32, 24), 8, (8, 12), False)),  # some layers wider
]


def _net(spec: NetSpec, seed: int) -> BalootNet:
    torch.manual_seed(seed)
    return BalootNet(spec)


def _inputs(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    full = (torch.rand(n, OBS_SIZE + PRIVILEGED_SIZE, generator=g) < 0.3).float()
    mask = torch.rand(n, NUM_ACTIONS, generator=g) < 0.6
    mask[:, 0] = True
    return full, mask


@pytest.mark.parametrize("narrow_spec,wide_spec", PAIRS)
def test_the_wider_network_gives_the_narrower_ones_logits_and_values(narrow_spec, wide_spec):
    narrow = _net(narrow_spec, 1)
    with torch.no_grad():
        for p in narrow.parameters():
            p.add_(0.1)  # no fresh network's weights: the copy must be where it belongs
    wide = _net(wide_spec, 2)
    full, mask = _inputs(64, 3)
    with torch.no_grad():
        before_logits, before_value = wide(full, mask)
        widen(narrow, wide)
        logits, value = wide(full, mask)
        want_logits, want_value = narrow(full, mask)
        assert not torch.allclose(before_value, want_value, atol=1e-3)  # the fresh net played otherwise
        torch.testing.assert_close(logits, want_logits, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(value, want_value, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(wide.value(full), narrow.value(full), rtol=1e-5, atol=1e-5)
        # at play time (no hidden hands given) too
        torch.testing.assert_close(wide(full[:, :OBS_SIZE], mask)[1], narrow(full[:, :OBS_SIZE], mask)[1])


def test_the_new_units_keep_their_fresh_weights_and_learn():
    narrow_spec, wide_spec = PAIRS[0]
    narrow, wide = _net(narrow_spec, 1), _net(wide_spec, 2)
    fresh = [m.weight.detach().clone() for m in wide.trunk if isinstance(m, torch.nn.Linear)]
    widen(narrow, wide)
    first = wide.trunk[0]
    old = narrow_spec.trunk[0]
    assert torch.equal(first.weight[old:], fresh[0][old:])  # the new units read the inputs as fresh
    assert torch.equal(first.weight[:old], narrow.trunk[0].weight)
    assert torch.count_nonzero(wide.trunk[2].weight[: narrow_spec.trunk[1], old:]) == 0  # old units ignore them
    # one step of a loss moves the weights out of the new units (they are not dead)
    full, mask = _inputs(32, 4)
    logits, value = wide(full, mask)
    (value.square().mean() + torch.log_softmax(logits, -1)[:, 0].mean()).backward()
    assert wide.trunk[2].weight.grad[:, old:].abs().sum() > 0


def test_what_does_not_widen_is_refused():
    base = NetSpec((32, 16), 8, (8,), True)
    for other in (
        base,  # the same: nothing to widen
        NetSpec((16, 16), 8, (8,), True),  # narrower somewhere
        NetSpec((32, 16, 16), 8, (8,), True),  # another depth
        NetSpec((32, 16), 8, (8,), False),  # another critic
        NetSpec((32, 16), 4, (8,), True),  # a narrower head
        NetSpec((32, 16), 8, (8,), True, cards="suits"),  # another card reader
    ):
        assert not widens(base, other), other
    assert widens(base, NetSpec((32, 32), 8, (8,), True))
    with pytest.raises(ValueError, match="does not widen"):
        widen(_net(base, 0), _net(NetSpec((32, 16, 16), 8, (8,), True), 0))


def test_a_run_started_from_a_narrower_bundle_plays_as_it(tmp_path):
    """``init_from`` a bundle whose layers are narrower than the run's ``net``: the run's network
    starts as that bundle's play, wider; a bundle that does not widen is refused before any work."""
    from agents.neural.bundle import save_bundle
    from train.config import ConfigError, config_from_dict
    from train.trainer import Trainer

    narrow = _net(NetSpec((32,), 16, (16,), True), 5)
    save_bundle(tmp_path / "b", narrow, name="b")
    d = {
        "run_dir": str(tmp_path / "run"),
        "pretrain": {"positions": 0},
        "expert": {"rounds": 0},
        "ppo": {"processes": 1, "n_envs": 4, "n_steps": 32, "batch_size": 64, "n_epochs": 1, "total_steps": 256},
        "eval": {"every": 0, "deals": 2, "final_deals": 2, "workers": 1, "promote": False},
        "net": {"trunk": [48], "head_hidden": 24, "value_hidden": [16], "privileged_critic": True},
        "init_from": str(tmp_path / "b"),
    }
    t = Trainer(config_from_dict(d), quiet=True).open()
    try:
        assert t.net.spec.trunk == (48,)
        full, mask = _inputs(16, 6)
        with torch.no_grad():
            torch.testing.assert_close(t.net(full, mask)[0], narrow(full, mask)[0], rtol=1e-5, atol=1e-5)
    finally:
        t.close()
    d["net"]["trunk"] = [48, 8]
    with pytest.raises(ConfigError, match="the same layers each at least as wide"):
        Trainer(config_from_dict(d), quiet=True).open()
