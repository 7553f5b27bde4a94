"""The number format of training's matrix work: ``fp32``, ``bf16`` (autocast), or ``auto``.

``auto`` (the default of ``ppo.precision`` and ``pretrain.precision``) takes bf16 where the
processor does bfloat16 matrix work in hardware and fp32 elsewhere: on a CPU with AVX-512 BF16
or AMX, bf16 autocast measured about 2x fp32 for our network (docs/BENCHMARKS.md), while on a
CPU without them (AVX2 only) torch emulates it and one PPO update ran about 20x slower than in
fp32. A config says ``auto`` and stays the same file on every machine; the run log says what
it became (``resolve``).
"""

from __future__ import annotations

import functools
from pathlib import Path

PRECISIONS = ("auto", "fp32", "bf16")  # what a config may say
CPU_BF16_FLAGS = ("avx512_bf16", "amx_bf16")  # /proc/cpuinfo flags of hardware bf16 matrix work


def resolve(precision: str, device: str = "cpu") -> str:
    """The concrete format ("fp32" or "bf16") of ``precision`` on ``device`` ("cpu" or "cuda")."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    if precision != "auto":
        return precision
    return "bf16" if native_bf16(device) else "fp32"


def native_bf16(device: str = "cpu") -> bool:
    """Whether ``device`` does bfloat16 matrix work in hardware."""
    if device == "cuda":
        import torch

        return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())
    return bool(set(CPU_BF16_FLAGS) & cpu_flags())


def precision_words(precision: str, device: str = "cpu") -> str:
    """What ``precision`` became, for the run log: "bf16", or "fp32 (auto: no hardware bf16)"."""
    chosen = resolve(precision, device)
    if precision == "auto":
        why = "hardware bf16" if chosen == "bf16" else "no hardware bf16"
        return f"{chosen} (auto: {why})"
    return chosen


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
