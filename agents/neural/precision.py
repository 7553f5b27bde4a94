"""The number format of a network's matrix work: ``fp32``, ``bf16``, or ``auto``.

``auto`` is bf16 where the device does bfloat16 matrix work in hardware and fp32 elsewhere, so a
config says ``auto`` and stays the same file on every machine. On a CPU with AVX-512 BF16 or AMX
bf16 a forward pass of our network over a few hundred rows runs about 6x faster in bf16 than in
fp32 (the playouts of a guided search, docs/BENCHMARKS.md); on a CPU without them (AVX2 only)
torch emulates bf16 and it runs many times slower than fp32. Training reads these through
``train.hardware``; the search's network playouts through ``agents.search_player.policy_leaves``.
"""

from __future__ import annotations

import functools
from pathlib import Path

import torch

PRECISIONS = ("auto", "fp32", "bf16")
CPU_BF16_FLAGS = ("avx512_bf16", "amx_bf16")  # /proc/cpuinfo flags of hardware bf16 matrix work


def resolve_precision(precision: str, device: str = "cpu") -> str:
    """The concrete format ("fp32" or "bf16") of ``precision`` on ``device`` ("cpu" or "cuda")."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    if precision != "auto":
        return precision
    return "bf16" if native_bf16(device) else "fp32"


def native_bf16(device: str = "cpu") -> bool:
    """Whether ``device`` does bfloat16 matrix work in hardware."""
    if device == "cuda":
        return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())
    return bool(set(CPU_BF16_FLAGS) & cpu_flags())


@functools.cache
def cpu_flags(cpuinfo: str = "/proc/cpuinfo") -> frozenset[str]:
    """The processor's feature flags (Linux's ``/proc/cpuinfo``; empty elsewhere)."""
    try:
        text = Path(cpuinfo).read_text(errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()
