"""Learner processes (``ppo.processes``, ``train.learners``) and the PPO update (``train.ppo``).

- Two processes each taking half of a minibatch get, after the exchange, the gradient of the
  whole minibatch and the whole minibatch's advantage statistics (hand-made batch, full batch
  computed in one process as the oracle).
- ``BalootPPO.train``, written out, makes sb3-contrib's ``MaskablePPO.train`` update: the same
  rollout, the same minibatches, the same weights after it (within float rounding).
- A two-process run stopped at a checkpoint and resumed ends on the weights of the run that was
  not stopped; a helper that dies ends the run with ``LearnerError`` instead of a wait.
"""

from __future__ import annotations

import copy
from types import SimpleNamespace

import numpy as np
import pytest
import torch
import torch.multiprocessing as tmp
from sb3_contrib import MaskablePPO
from test_train import tiny

from agents.neural.network import BalootNet, NetSpec
from train.checkpoint import CheckpointError
from train.config import ConfigError, config_from_dict
from train.exchange import GradientExchange
from train.learners import LearnerError
from train.ppo import BalootPPO
from train.trainer import Trainer

SPEC = NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,))


def _batch(n: int = 64) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(3)
    obs = (torch.rand(n, SPEC.obs_size, generator=g) < 0.2).float()
    masks = torch.rand(n, 42, generator=g) < 0.4
    masks[:, 0] = True
    advantages = torch.randn(n, generator=g, dtype=torch.float64).float() * 3 + 1
    return obs, masks, advantages


def _grads(rows: slice, exchange: GradientExchange | None) -> tuple[list[torch.Tensor], list[tuple[float, float]]]:
    """The gradient of a mean loss over ``rows`` of the batch (averaged by ``exchange`` when
    given), and the advantage statistics of those rows (over every process's rows)."""
    torch.manual_seed(0)
    net = BalootNet(SPEC)
    obs, masks, advantages = (x[rows] for x in _batch())
    logits, value = net(obs, masks)
    loss = (torch.log_softmax(logits, -1)[:, 0] * advantages).mean() + (value**2).mean()
    loss.backward()
    params = list(net.parameters())
    if exchange is not None:
        exchange.average_gradients(params)
    norms = BalootPPO._advantage_norms(SimpleNamespace(exchange=exchange), [advantages])  # type: ignore[arg-type]
    return [p.grad.clone() for p in params], norms


def _second_process(exchange: GradientExchange, out) -> None:
    exchange.rank = 1
    torch.set_num_threads(1)
    grads, norms = _grads(slice(32, 64), exchange)
    out.put(([g.numpy() for g in grads], norms))  # arrays: a tensor would travel as shared memory


def test_two_processes_with_half_a_minibatch_each_get_the_whole_minibatchs_gradient():
    full, full_norms = _grads(slice(0, 64), None)
    a = _batch()[2]
    assert full_norms[0] == pytest.approx((a.double().mean().item(), a.double().std().item()), rel=1e-9)
    context = tmp.get_context("spawn")
    exchange = GradientExchange(2, sum(g.numel() for g in full), context)
    out = context.Queue()
    other = context.Process(target=_second_process, args=(exchange, out))
    other.start()
    try:
        mine, my_norms = _grads(slice(0, 32), exchange)
        arrays, their_norms = out.get(timeout=120)
        theirs = [torch.from_numpy(a) for a in arrays]
    finally:
        other.join(30)
    half, _ = _grads(slice(0, 32), None)
    assert not all(torch.allclose(h, f) for h, f in zip(half, full, strict=True))  # half a batch differs
    for m, t, f in zip(mine, theirs, full, strict=True):
        assert torch.equal(m, t)  # every process: the same bits
        torch.testing.assert_close(m, f, rtol=1e-5, atol=1e-7)
    assert my_norms == their_norms
    assert my_norms[0] == pytest.approx(full_norms[0], rel=1e-9)


def test_the_written_out_update_is_sb3_contribs_maskable_ppo_update(tmp_path):
    d = tiny(tmp_path, pretrain={"positions": 0}, ppo={"n_epochs": 2, "batch_size": 32})
    with Trainer(config_from_dict(d), quiet=True) as t:
        model = t.model
        model._setup_learn(10_000, None)
        model.collect_rollouts(model.env, _NoCallback(model), model.rollout_buffer, model.n_steps)
        before = copy.deepcopy(model.policy.state_dict())
        optimizer = copy.deepcopy(model.policy.optimizer.state_dict())
        runs = []
        for update in (BalootPPO.train, MaskablePPO.train):
            model.policy.load_state_dict(before)
            model.policy.optimizer.load_state_dict(optimizer)
            np.random.seed(5)  # the minibatches: rollout_buffer.get's permutation
            update(model)
            runs.append({k: v.clone() for k, v in model.policy.state_dict().items()})
    ours, sb3 = runs
    assert any(not torch.equal(ours[k], before[k]) for k in ours)  # it did learn
    for k in ours:
        torch.testing.assert_close(ours[k], sb3[k], rtol=1e-4, atol=1e-6)


class _NoCallback:
    def __init__(self, model):
        self.model = model

    def on_rollout_start(self):
        pass

    def on_step(self):
        return True

    def update_locals(self, _):
        pass

    def on_rollout_end(self):
        pass


def _two(tmp_path, total: int) -> dict:
    return tiny(
        tmp_path,
        pretrain={"positions": 0},
        ppo={"processes": 2, "total_steps": total},
        opponents={"snapshot_every": 128},
    )


def _params(t: Trainer) -> list[torch.Tensor]:
    return [p.detach().clone() for p in t.net.parameters()]


@pytest.mark.slow  # three runs with a helper process each: about 30 s on 2 cores
def test_a_two_process_run_stopped_at_a_checkpoint_resumes_to_the_same_weights(tmp_path):
    with Trainer(config_from_dict(_two(tmp_path / "a", 512)), quiet=True) as straight:
        straight.run()
        assert straight.steps == 512 and len(straight.pool.snapshots) == 5
        expected = _params(straight)
    with Trainer(config_from_dict(_two(tmp_path / "b", 256)), quiet=True) as first:
        first.run()  # its last checkpoint, at 256, holds the helper's games too
    with Trainer(config_from_dict(_two(tmp_path / "b", 512)), resume=True, quiet=True) as resumed:
        assert resumed.steps == 256
        resumed.run()
        assert resumed.steps == 512
        assert all(torch.equal(a, b) for a, b in zip(expected, _params(resumed), strict=True))
    one = tiny(tmp_path / "b", pretrain={"positions": 0}, ppo={"total_steps": 1024})
    with pytest.raises(CheckpointError, match="2 learner processes"):
        Trainer(config_from_dict(one), resume=True, quiet=True).open()


def test_a_helper_that_dies_ends_the_run_with_a_clear_error(tmp_path):
    with Trainer(config_from_dict(_two(tmp_path, 4096)), quiet=True) as t:
        assert t.helpers is not None
        proc = t.helpers.links[0][0]
        proc.kill()
        proc.join(10)
        with pytest.raises(LearnerError, match="learner process"):
            t.train()


def test_processes_must_divide_the_games_and_the_minibatch():
    with pytest.raises(ConfigError, match="ppo.n_envs must be a multiple of ppo.processes = 3"):
        config_from_dict({"ppo": {"processes": 3, "n_envs": 128, "batch_size": 1023}})
    with pytest.raises(ConfigError, match="ppo.batch_size must be a multiple"):
        config_from_dict({"ppo": {"processes": 2, "batch_size": 1023}})
    with pytest.raises(ConfigError, match="ppo.processes must be in"):
        config_from_dict({"ppo": {"processes": 0}})
