"""Sums and means of tensors across the processes of one data-parallel step, through shared memory.

The learner processes of a PPO run (``train.learners``) and the processes of a warm-start fit
(``train.pretrain``, through ``train.supervised.fit``) each compute the gradient of their share
of a minibatch; ``GradientExchange`` adds them up so that every process makes the same step,
the one a single process would make on the whole minibatch, and the weights stay identical.
Nothing spins while it waits (a semaphore barrier, not busy threads), so a core that another
program takes costs its share and no more.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import torch

WAIT_SECONDS = 600.0  # the longest a process waits for the others at an exchange


class ExchangeError(RuntimeError):
    """A process of the step stopped (or waited past ``WAIT_SECONDS`` for the others)."""


class GradientExchange:
    """Means and sums of tensors across ``processes`` processes, through shared memory.

    Process ``rank`` writes its tensor into its row of a shared slot, all wait at one barrier,
    and each then sums the rows in the same order (so every process gets the same bits). Two
    slots alternate: a process can write the next exchange's row only after passing its
    barrier, that is after every other has finished reading the previous slot. Made in the
    parent before the processes start (``context``: their multiprocessing context); each
    process sets its ``rank``.
    """

    def __init__(
        self,
        processes: int,
        size: int,
        context: Any,
        what: str = "a step",
        who: str = "a process",
        error: type[ExchangeError] = ExchangeError,
    ):
        self.processes = processes
        self.rank = 0
        self.what, self.who, self.error = what, who, error  # for the error raised when one stops
        self.slots = {
            torch.float32: torch.zeros(2, processes, size).share_memory_(),  # type: ignore[no-untyped-call]  # torch's stub
            torch.float64: torch.zeros(2, processes, 1024, dtype=torch.float64).share_memory_(),  # type: ignore[no-untyped-call]
        }
        self.turn = {torch.float32: 0, torch.float64: 0}
        self.barrier = context.Barrier(processes)

    def sum(self, x: torch.Tensor) -> torch.Tensor:
        """The elementwise sum of ``x`` over the processes (float32 or float64, each process
        calling with the same shape in the same order)."""
        slots = self.slots[x.dtype]
        n = x.numel()
        if n > slots.shape[2]:
            raise ValueError(f"an exchange holds {slots.shape[2]} numbers of {x.dtype}, got {n}")
        turn = self.turn[x.dtype]
        self.turn[x.dtype] = 1 - turn
        slot = slots[turn, :, :n]
        slot[self.rank].copy_(x.reshape(-1))
        self.wait()
        out: torch.Tensor = slot.sum(0).view_as(x)
        return out

    def sum_gradients(self, params: Sequence[torch.Tensor], scale: float = 1.0) -> None:
        """Replace each parameter's gradient by the sum over the processes of ``scale`` times it."""
        for p in params:
            if p.grad is None:
                p.grad = torch.zeros_like(p)
        grads = [p.grad for p in params if p.grad is not None]
        flat = torch.cat([g.reshape(-1) for g in grads])
        if scale != 1.0:
            flat.mul_(scale)
        total = self.sum(flat)
        offset = 0
        for g in grads:
            g.copy_(total[offset : offset + g.numel()].view_as(g))
            offset += g.numel()

    def average_gradients(self, params: Sequence[torch.Tensor]) -> None:
        """Replace each parameter's gradient by its mean over the processes."""
        self.sum_gradients(params, 1.0 / self.processes)

    def wait(self) -> None:
        try:
            self.barrier.wait(WAIT_SECONDS)
        except threading.BrokenBarrierError:
            raise self.error(
                f"{self.who} of this run stopped during {self.what} (or waited past {WAIT_SECONDS:.0f} s for the others)"
            ) from None

    def abort(self) -> None:
        """Release every process waiting at the barrier (they raise the exchange's ``error``)."""
        self.barrier.abort()
