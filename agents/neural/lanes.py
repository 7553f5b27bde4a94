"""Several games played side by side in one thread, their networks' forward passes shared.

A forward pass of a network at the sizes a search asks for costs a fixed part (about 0.3 ms on
one core of this project's machines) besides its rows: a pass of 1,024 rows takes about twice
the time of one of 256. A lookahead teacher labelling one game asks for a pass of a few hundred
rows at every card of its playouts, and the learner a pass of one row at every move.

``Lanes.run`` plays several independent tasks (say, labelling jobs) as greenlets: cooperative
coroutines of one thread that switch only where a task asks ``forward``. The hub runs every
task until each is waiting on a forward pass or done, then makes one pass per function of all
the rows asked of it (their inputs concatenated in the tasks' order), hands each task its rows
and goes round again. Nothing else is shared: each task keeps its own generators and state, so
a task computes what it would alone, up to the order in which the matrix library sums a row's
products for batches of other sizes (in fp32 it takes another kernel below 16 rows: the last
bits of a learner's one-row move; ``tests/train/test_lanes.py`` labels in lanes and alone and
compares). The schedule is fixed by the tasks' order, so a run is repeatable.

Outside ``Lanes.run`` ``forward`` is the plain call, and greenlet is not imported. Every pass
runs under ``torch.inference_mode``, entered here: the grad mode is the thread's, which the
tasks share, so a task must not switch inside a torch context of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import torch

T = TypeVar("T")
Forward = Callable[..., torch.Tensor]
PAD = 32  # a shared pass's row count is a multiple of this (oneDNN prepares its kernels per batch size)

_running: Lanes | None = None  # the hub of the run in progress (greenlet is imported only then)


def forward(fn: Forward, *inputs: torch.Tensor, rows: int | None = None) -> torch.Tensor:
    """``fn(*inputs)`` without gradients; inside ``Lanes.run`` in one pass with the other tasks'
    rows for ``fn`` (each input's rows concatenated along dim 0, the output split the same way).

    ``rows``: the inputs' real rows when padding rows follow them (a caller that pads its batches
    to a few sizes); their outputs are not read. In lanes only the real rows join the pass, which
    is padded as a whole to a multiple of ``PAD`` rows.
    """
    hub = _running
    if hub is not None:
        from greenlet import getcurrent  # only while lanes run: load_policy needs torch and numpy alone

        lane = getcurrent()
        if lane in hub.lanes:
            real = tuple(x[:rows] for x in inputs) if rows is not None else inputs
            hub_side = lane.parent
            assert hub_side is not None  # a lane's parent is the greenlet that runs the hub
            out: torch.Tensor = hub_side.switch((fn, real))
            return out
    with torch.inference_mode():
        return fn(*inputs)


class Lanes:
    """The hub that runs tasks side by side and makes their forward passes (module docstring)."""

    def __init__(self) -> None:
        self.lanes: set[Any] = set()  # the running tasks' greenlets
        self.passes = 0  # shared passes made (for the benchmarks' figures)
        self.rows = 0

    def run(self, tasks: Sequence[Callable[[], T]]) -> list[T]:
        """Every task's result, in the tasks' order; the first exception of a task is raised
        (the other tasks are dropped where they stand). One run at a time: a task cannot run lanes."""
        global _running
        from greenlet import greenlet  # (as in forward)

        if _running is not None:
            raise RuntimeError("lanes run one at a time")
        lanes = [greenlet(task) for task in tasks]
        self.lanes = set(lanes)
        results: list[Any] = [None] * len(lanes)
        sends: dict[int, Any] = {i: None for i in range(len(lanes))}  # what each waiting task gets next
        _running = self
        try:
            while sends:
                waiting: dict[int, tuple[Forward, tuple[torch.Tensor, ...]]] = {}
                for i, value in sends.items():
                    asked = lanes[i].switch(value) if value is not None else lanes[i].switch()
                    if lanes[i].dead:
                        results[i] = asked
                    else:
                        waiting[i] = asked
                sends = self._serve(waiting)
        finally:
            _running = None
            self.lanes = set()
        return results

    def _serve(self, waiting: dict[int, tuple[Forward, tuple[torch.Tensor, ...]]]) -> dict[int, torch.Tensor]:
        """One pass per function asked, of all its tasks' rows in the tasks' order; each task's
        share of the output."""
        by_fn: dict[Forward, list[int]] = {}
        for i, (fn, _) in waiting.items():
            by_fn.setdefault(fn, []).append(i)
        out: dict[int, torch.Tensor] = {}
        for fn, lanes in by_fn.items():
            parts = [waiting[i][1] for i in lanes]
            total = sum(len(inputs[0]) for inputs in parts)
            padding = -total % PAD
            joined = [
                torch.cat([*column, column[0].new_zeros((padding, *column[0].shape[1:]))])
                for column in zip(*parts, strict=True)
            ]
            with torch.inference_mode():
                result = fn(*joined)
            self.passes += 1
            self.rows += total
            start = 0
            for i, inputs in zip(lanes, parts, strict=True):
                n = len(inputs[0])
                out[i] = result[start : start + n]
                start += n
        return dict(sorted(out.items()))
