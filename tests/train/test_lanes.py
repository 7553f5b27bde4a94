"""Games side by side in lanes (``agents.neural.lanes``, ``train.labels.label_lanes``): the
shared forward passes give every task what it gets alone, in fewer passes."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.neural.lanes import Lanes, forward
from agents.neural.network import BalootNet, NetSpec
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig
from train.labels import LabelJob, label, label_lanes, label_parallel

REWARD = Reward("diff", 44.0)


def _linear(seed: int) -> torch.nn.Linear:
    torch.manual_seed(seed)
    return torch.nn.Linear(5, 3)


def _task(net: torch.nn.Linear, other: torch.nn.Linear, calls: int, seed: int):
    """A task that asks ``calls`` passes of ``net`` of 1-4 rows (and one of ``other``), each
    input made from the previous output, so a wrong share breaks every later call."""

    def run() -> list[torch.Tensor]:
        gen = torch.Generator().manual_seed(seed)
        x = torch.randn(1 + seed % 4, 5, generator=gen)
        outs = []
        for k in range(calls):
            y = forward(net, x)
            outs.append(y.clone())
            x = torch.cat([y, y[:, :2]], dim=1) + k
            if k == 1:
                outs.append(forward(other, x).clone())
        return outs

    return run


def test_forward_outside_lanes_is_the_plain_call_without_gradients():
    net = _linear(0)
    x = torch.randn(3, 5)
    y = forward(net, x)
    assert torch.equal(y, net(x).detach()) and not y.requires_grad


def test_lanes_give_each_task_its_own_results_in_one_pass_per_round():
    net, other = _linear(1), _linear(2)
    calls = [4, 2, 5, 3]  # unequal tasks: the ones done drop out of later passes
    alone = [_task(net, other, c, seed)() for seed, c in enumerate(calls)]
    lanes = Lanes()
    together = lanes.run([_task(net, other, c, seed) for seed, c in enumerate(calls)])
    for a, b in zip(alone, together, strict=True):
        assert len(a) == len(b) and all(torch.allclose(x, y, rtol=1e-5, atol=1e-6) for x, y in zip(a, b, strict=True))
    assert lanes.passes == max(calls) + 1  # one pass of net a round, and one of other (round 2)
    assert lanes.rows == sum((1 + seed % 4) * (c + 1) for seed, c in enumerate(calls))


def test_a_tasks_exception_ends_the_run():
    net = _linear(0)

    def bad() -> None:
        forward(net, torch.zeros(1, 5))
        raise RuntimeError("lane 1 fails")

    with pytest.raises(RuntimeError, match="lane 1 fails"):
        Lanes().run([_task(net, net, 3, 0), bad])
    assert torch.is_grad_enabled()  # no torch mode left behind
    assert Lanes().run([lambda: 1, lambda: 2]) == [1, 2]  # the failed run is over


def test_a_task_cannot_run_lanes_of_its_own():
    with pytest.raises(RuntimeError, match="one at a time"):
        Lanes().run([lambda: Lanes().run([lambda: 0])])


def _player(seed: int = 0):
    torch.manual_seed(seed)
    net = BalootNet(NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,)))
    return net.spec.to_dict(), net.state_dict()


def _equal(a, b) -> bool:
    """The same labels; the learner's probabilities up to the last bits (its matrix products
    for one row and for a lane's few rows are summed in different orders by the library)."""
    return np.allclose(a.policy, b.policy, rtol=0, atol=1e-6) and all(
        np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True)
        for f in ("obs", "masks", "actions", "action_values", "values", "action_errors")
    )


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_labels_in_lanes_are_the_labels_of_each_job_alone(tmp_path, precision):
    """A guided teacher whose playouts the learner plays: each job's labels in lanes equal its
    labels alone, in either number format of the playouts; label_parallel's lanes keep its
    chunks' labels."""
    teacher = tmp_path / "guided.json"
    params = {"leaves": "policy", "worlds": 4, "calls": "heuristic", "precision": precision}
    teacher.write_text(json.dumps({"agent": "netsearch", "params": params}))
    job = LabelJob(60, 3, RuleConfig(), REWARD, str(teacher), _player(), False, 1.0, 0.1, guide=True)
    jobs = job.chunks(3)
    together = label_lanes(jobs)
    alone = [label(j) for j in jobs]
    assert len(together) == 60 and _equal(together, type(together).join(alone))
    assert np.isfinite(together.action_values).any()  # searched choices were labelled
    assert _equal(label_parallel(job, 1, chunks=3, quiet=True, lanes=2), together)


def test_jobs_in_lanes_share_their_teacher():
    a = LabelJob(4, 0, RuleConfig(), REWARD, "heuristic")
    with pytest.raises(ValueError, match="share their player, teacher and guide"):
        label_lanes([a, LabelJob(4, 1, RuleConfig(), REWARD, "random")])
