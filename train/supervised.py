"""The one supervised loop: minibatch Adam over labelled positions, epoch by epoch.

The warm start (``train.pretrain``: the teacher's actions and the hands' values), distillation
(``train.distill``: a teacher's soft targets) and the call step (``train.call_iteration``:
searched calls into the bid head) all fit a network this way. Each says what differs: which
parameters learn, the order of the rows in each epoch (from its own seeded generator, so that
its runs repeat to the bit), the loss of a minibatch and the figures it sums, whether the step
size anneals, and what happens after each epoch (a held-out figure, a progress line).

Data-parallel (``exchange``): several processes run the same fit on the same rows in the same
order, each computing the loss of its share of every minibatch; the gradients, weighted by
each share's rows, are summed across them (``train.exchange``), so each process takes the step
one process would take on the whole minibatch (equal up to the order of float additions) and
the weights stay identical in every process. The summed figures are summed across them too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from train.exchange import GradientExchange

BatchLoss = Callable[[torch.Tensor], tuple[torch.Tensor, dict[str, float]]]
"""A minibatch's row indices -> its loss (to minimise) and figures summed over its rows
(``{"policy_loss": mean loss x rows, "correct": a count}``), summed again over the epoch."""


@dataclass(frozen=True)
class Fit:
    """How to fit: epochs, rows per minibatch, Adam's step size, cosine annealing to zero, and
    the number format of the minibatch's matrix work ("fp32", or "bf16": autocast, the weights,
    gradients and optimizer staying fp32, as in the PPO update)."""

    epochs: int
    batch_size: int
    learning_rate: float
    cosine: bool = False
    precision: str = "fp32"
    device: str = "cpu"  # of the parameters and of what batch_loss computes on (autocast's device type)


def fit(
    params: Iterable[torch.nn.Parameter],
    how: Fit,
    order: Callable[[int], torch.Tensor],
    batch_loss: BatchLoss,
    after_epoch: Callable[[int, dict[str, float]], None] = lambda epoch, sums: None,
    exchange: GradientExchange | None = None,
) -> None:
    """Minibatch Adam on ``params``: each epoch (from 0) takes the rows ``order(epoch)`` in
    minibatches of ``how.batch_size``, steps on ``batch_loss``'s loss, and passes the summed
    figures (each divided by the rows seen) to ``after_epoch(epoch, means)``. With
    ``exchange``, this process is one of its processes (the module docstring): ``order`` must
    give every process the same rows, and ``batch_loss`` sees this process's share of each
    minibatch (the rows of ``torch.tensor_split(minibatch, processes)[rank]``)."""
    params = list(params)
    opt = torch.optim.Adam(params, lr=how.learning_rate, fused=True)  # one kernel a step for every parameter
    sched = None
    for epoch in range(how.epochs):
        rows = order(epoch)
        if exchange is not None and len(rows) < exchange.processes:
            raise ValueError(f"a fit in {exchange.processes} processes needs as many rows, got {len(rows)}")
        if how.cosine and sched is None:
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=how.epochs * -(-len(rows) // how.batch_size))
        sums: dict[str, float] = {}
        for start in range(0, len(rows), how.batch_size):
            idx = rows[start : start + how.batch_size]
            mine = idx if exchange is None else torch.tensor_split(idx, exchange.processes)[exchange.rank]
            opt.zero_grad()
            if len(mine):  # a share can be empty only in a last minibatch smaller than the processes
                with torch.autocast(how.device, dtype=torch.bfloat16, enabled=how.precision == "bf16"):
                    loss, figures = batch_loss(mine)
                loss.backward()  # type: ignore[no-untyped-call]  # torch leaves it unannotated
                for key, value in figures.items():
                    sums[key] = sums.get(key, 0.0) + value
            if exchange is not None:  # the whole minibatch's mean gradient, in every process
                exchange.sum_gradients(params, len(mine) / len(idx))
            opt.step()
            if sched is not None:
                sched.step()
        if exchange is not None:
            sums = _summed(sums, exchange)
        after_epoch(epoch, {key: value / max(len(rows), 1) for key, value in sums.items()})


def _summed(sums: dict[str, float], exchange: GradientExchange) -> dict[str, float]:
    """``sums`` added up across the exchange's processes (each saw rows, so each has the keys)."""
    keys = sorted(sums)
    total = exchange.sum(torch.tensor([sums[k] for k in keys], dtype=torch.float64))
    return dict(zip(keys, total.tolist(), strict=True))
