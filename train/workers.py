"""The one worker pool of labelling: chunks of a job in spawned processes, results in order.

Labelling a round (``train.labels.label_parallel``), the warm start's positions
(``train.pretrain.labelled``) and the teacher's noise (``train.teacher_noise``) split their work
into seeded chunks and run them here. Each worker limits torch to one thread (workers that each
take every core fight over them) and ends with the process that started it, however that ends
(``baloot_io.processes``); the results come back in the chunks' order, so a job's
output does not depend on how many workers ran it.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Protocol, TypeVar

import torch

from baloot_io.processes import die_with_parent

J = TypeVar("J")
R = TypeVar("R")


def _start(parent: int) -> None:
    die_with_parent(parent)
    torch.set_num_threads(1)


def in_workers(task: Callable[[J], R], chunks: Iterable[J], workers: int) -> Iterator[R]:
    """``task`` on every chunk in ``workers`` spawned processes (one torch thread each, ending
    with this process however it ends), the results yielded in the chunks' order as they come.
    ``task`` must be a module-level function (the processes import it)."""
    with mp.get_context("spawn").Pool(max(1, workers), initializer=_start, initargs=(os.getpid(),)) as pool:
        yield from pool.imap(task, chunks)


class Sized(Protocol):
    def __len__(self) -> int: ...


S = TypeVar("S", bound=Sized)


def in_chunks(
    task: Callable[[J], S], chunks: list[J], workers: int, line: Callable[[int, float], str] | None
) -> list[S]:
    """``in_workers``'s results as a list, and after each chunk ``line(done, per_second)`` (the
    rows done so far and their rate) on stderr, unless ``line`` is None (quiet)."""
    parts: list[S] = []
    t0 = time.perf_counter()
    for part in in_workers(task, chunks, workers):
        parts.append(part)
        if line is not None:
            done = sum(len(p) for p in parts)
            print(line(done, done / (time.perf_counter() - t0)), file=sys.stderr, flush=True)
    return parts
