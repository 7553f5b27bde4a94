"""The fit of labelled positions: the warm start's and the expert rounds' (the fitting floor).

``fit_positions`` fits a network to labelled positions (observations, legal masks, policy
targets, value targets): cross-entropy to the targets plus the value's squared error, each
position under a random renaming of the suits, through the one supervised loop
(``train.supervised.fit``). ``fit_labelled`` runs it data-parallel in several processes on the
CPU: this one and helpers that read the positions in place (shared memory), exchange gradients
(``train.exchange``), and end with the fit, however it ends (``baloot_io.processes``).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import torch
import torch.multiprocessing as tmp
from torch.nn import functional as F

from agents.neural.network import BalootNet, NetSpec
from agents.neural.precision import resolve_precision
from baloot_io.processes import die_with_parent
from train.augment import PERMUTATIONS, SuitPermutations
from train.exchange import WAIT_SECONDS, ExchangeError, GradientExchange
from train.hardware import device_of
from train.supervised import Fit, fit


class FitRecipe(Protocol):
    """What ``fit_positions`` reads of a config: ``PretrainConfig`` and ``ExpertConfig`` both say it."""

    @property
    def epochs(self) -> int: ...
    @property
    def batch_size(self) -> int: ...
    @property
    def learning_rate(self) -> float: ...
    @property
    def value_weight(self) -> float: ...
    @property
    def augment(self) -> bool: ...
    @property
    def precision(self) -> str: ...
    @property
    def workers(self) -> int: ...


def fit_processes(cfg: FitRecipe, net: BalootNet) -> int:
    """How many processes fit the positions: ``cfg.workers`` on the CPU (each a core, as the
    labelling), one on a GPU (one device does the matrix work)."""
    return max(1, cfg.workers) if device_of(net).type == "cpu" else 1


def fit_labelled(
    net: BalootNet,
    data: tuple[torch.Tensor, ...],
    cfg: FitRecipe,
    seed: int,
    after_epoch: Callable[[int, dict[str, float]], None],
    processes: int,
    consistency: float = 0.0,
) -> None:
    """``fit_positions`` in ``processes`` processes (data-parallel, ``train.supervised``): this one
    and ``processes - 1`` helpers started from ``net``'s weights, reading ``data`` in place (shared
    memory when ``labelled`` made it so); a helper that fails stops the others at once."""
    if processes <= 1:
        fit_positions(net, data, cfg, seed, after_epoch, consistency=consistency)
        return
    context = tmp.get_context("spawn")
    exchange = GradientExchange(
        processes, sum(p.numel() for p in net.parameters()), context, "the fit of labelled positions"
    )
    helpers = [
        context.Process(
            target=_fit_helper,
            args=(
                net.spec.to_dict(),
                net.state_dict(),
                data,
                cfg,
                seed,
                exchange,
                rank,
                torch.get_num_threads(),
                os.getpid(),
                consistency,
            ),
            name=f"baloot-fit-{rank}",
            daemon=True,
        )
        for rank in range(1, processes)
    ]
    for proc in helpers:
        proc.start()
        threading.Thread(target=_abort_if_failed, args=(proc, exchange), daemon=True).start()
    try:
        fit_positions(net, data, cfg, seed, after_epoch, exchange, consistency)
    except BaseException:
        exchange.abort()  # the helpers stop at their next exchange
        for proc in helpers:
            proc.join(10)
            if proc.is_alive():
                proc.terminate()
        raise
    for proc in helpers:
        proc.join(WAIT_SECONDS)


def fit_positions(
    net: BalootNet,
    data: tuple[torch.Tensor, ...],
    cfg: FitRecipe,
    seed: int,
    after_epoch: Callable[[int, dict[str, float]], None] = lambda epoch, means: None,
    exchange: GradientExchange | None = None,
    consistency: float = 0.0,
) -> None:
    """The warm start's fit of ``net`` to the labelled ``data`` (``labelled``): cross-entropy to
    the targets plus ``value_weight`` times the value's squared error, each position under a
    random renaming of the suits (``augment``). The rows of each epoch and their renamings come
    from one generator seeded ``seed``, so the processes of a data-parallel fit (``exchange``,
    ``train.supervised``) draw the same ones.

    With ``consistency`` > 0, ``data`` holds a fifth tensor, the teacher's action values in the
    value's units (``train.labels.tensors``), and from the second epoch the loss adds
    ``consistency`` x ``consistency_loss`` (a lever of issue 45, from Texas 42's expert iteration)."""
    X, M, T, V = data[:4]
    Q = _action_values(data, consistency)
    n = len(X)
    epoch_now = [0]
    gen = torch.Generator().manual_seed(seed)
    aug = SuitPermutations(X.shape[1]) if cfg.augment else None
    renaming = torch.zeros(n, dtype=torch.long)  # the epoch's renaming of each position
    dev = device_of(net)  # the positions stay on the CPU; each minibatch goes to the network

    def order(epoch: int) -> torch.Tensor:
        epoch_now[0] = epoch
        rows = torch.randperm(n, generator=gen)
        if aug is not None:
            renaming.copy_(torch.randint(len(PERMUTATIONS), (n,), generator=gen))
        return rows

    def batch_loss(idx: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        xb, mb, tb = X[idx], M[idx], T[idx]
        if aug is not None:
            xb, mb, tb = aug.apply(xb, mb, tb, renaming[idx])
        xb, mb, tb = xb.to(dev), mb.to(dev), tb.to(dev)
        logits, value = net(xb, mb)
        loss_pi = -(tb * F.log_softmax(logits, dim=1)).sum(1).mean()  # cross-entropy to the targets
        loss_v = F.mse_loss(value, V[idx].to(dev))
        figures = {
            "policy_loss": loss_pi.item() * len(idx),
            "value_loss": loss_v.item() * len(idx),
            "train_accuracy": float((logits.argmax(1) == tb.argmax(1)).sum().item()),
        }
        loss = loss_pi + cfg.value_weight * loss_v
        if Q is not None:
            qb = Q[idx] if aug is None else aug.rename_actions(Q[idx], renaming[idx])
            loss_c = consistency_loss(logits, value, qb.to(dev))
            figures["consistency_loss"] = loss_c.item() * len(idx)
            if epoch_now[0] >= 1:  # the first epoch is the warm-up
                loss = loss + consistency * loss_c
        return loss, figures

    precision = resolve_precision(cfg.precision, dev.type)
    how = Fit(cfg.epochs, cfg.batch_size, cfg.learning_rate, precision=precision, device=dev.type)
    fit(net.parameters(), how, order, batch_loss, after_epoch, exchange)


def _action_values(data: tuple[torch.Tensor, ...], consistency: float) -> torch.Tensor | None:
    """The fifth tensor of ``data`` when the consistency loss is on (ValueError without it), else None."""
    if consistency <= 0:
        return None
    if len(data) < 5:
        raise ValueError("a consistency loss needs the teacher's action values (train.labels.tensors value_unit)")
    return data[4]


def consistency_loss(logits: torch.Tensor, value: torch.Tensor, action_values: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of (V.detach() - E_pi[Q])^2, where E_pi[Q] is the policy's mean of the
    teacher's values over the actions it valued (NaN: not valued) and rows without any valued
    action count 0 (``fit_positions``): the policy is pulled towards the actions whose values
    agree with the value head's estimate, the value left alone."""
    valued = ~torch.isnan(action_values)
    pi = torch.softmax(logits.float(), dim=1) * valued
    mass = pi.sum(1)
    searched = valued.any(1) & (mass > 0)
    expected = (pi * torch.where(valued, action_values, 0.0)).sum(1) / mass.clamp_min(1e-12)
    gap = torch.where(searched, value.detach().float() - expected, 0.0)
    return (gap**2).mean()


def _fit_helper(
    spec: dict[str, Any],
    weights: dict[str, torch.Tensor],
    data: tuple[torch.Tensor, ...],
    cfg: FitRecipe,
    seed: int,
    exchange: GradientExchange,
    rank: int,
    threads: int,
    parent: int,
    consistency: float,
) -> None:
    """Process ``rank`` >= 1 of a data-parallel warm-start fit: the same network from the same
    weights, its share of every minibatch; the weights it ends with are rank 0's. It ends with
    ``parent``, the fit's own process, however that ends (``die_with_parent``)."""
    die_with_parent(parent)
    torch.set_num_threads(threads)
    exchange.rank = rank
    threading.Thread(target=_abort_if_orphaned, args=(os.getppid(), exchange), daemon=True).start()
    try:
        net = BalootNet(NetSpec.from_dict(spec))
        net.load_state_dict(weights)
        fit_positions(net, data, cfg, seed, exchange=exchange, consistency=consistency)
    except ExchangeError:
        pass  # rank 0 stopped the fit; it reports why
    except BaseException:
        exchange.abort()
        raise


def _abort_if_orphaned(parent: int, exchange: GradientExchange) -> None:
    """A helper's watch on rank 0: when it is gone (killed), the helper stops at once."""
    while os.getppid() == parent:
        time.sleep(1.0)
    exchange.abort()


def _abort_if_failed(proc: Any, exchange: GradientExchange) -> None:
    """Rank 0's watch on a helper: one that dies (a crash, a kill) releases the others at once."""
    proc.join()
    if proc.exitcode != 0:
        exchange.abort()
