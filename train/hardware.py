"""Where training's matrix work runs and in what number format: ``device`` and ``precision``.

``device`` (the run's, ``TrainConfig.device``): ``cpu``, ``cuda``, or ``auto``, the default:
CUDA when torch sees a GPU, else the CPU. The learner's network, the PPO update, the rollout's
forward passes of the learner and the warm-start fit run there; the opponents' networks, the
games and the evaluations stay on the CPU (small batches of tens of rows, where a GPU's launch
costs more than the work), and bundles and checkpoints are written from CPU copies, so a run
resumes or is evaluated on either. With two learner processes on one GPU the gradients meet in
the CPU's shared memory as on the CPU (``train.learners``).

``precision`` (``ppo.precision``, ``pretrain.precision``, ``expert.precision``): ``fp32``,
``bf16`` (autocast; the weights, gradients and optimizer stay fp32), or ``auto``, the default:
bf16 where the device does bfloat16 matrix work in hardware, fp32 elsewhere
(``agents.neural.precision``, which the search's network playouts read too). On a CPU with AVX-512 BF16 or AMX bf16
autocast measured about 2x fp32 for our network (docs/BENCHMARKS.md), while on a CPU without
them (AVX2 only) torch emulates it and the PPO update ran about 10x slower than in fp32; on a
GPU, bf16 where ``torch.cuda.is_bf16_supported()``. A config says ``auto`` and stays the same
file on every machine; the run log says what each became (``hardware_words``).
"""

from __future__ import annotations

import torch

from agents.neural.precision import resolve_precision

DEVICES = ("auto", "cpu", "cuda")  # what a config may say


def resolve_device(device: str) -> str:
    """The concrete device ("cpu" or "cuda") of ``device``; "cuda" without a GPU is refused."""
    if device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda': torch sees no GPU on this machine (use 'auto' or 'cpu')")
    return device


def hardware_words(device: str, precision: str) -> str:
    """What the config's ``device`` and ``precision`` became, for the run log:
    "cpu, fp32 (auto: no hardware bf16)"."""
    where = resolve_device(device)
    chosen = resolve_precision(precision, where)
    if precision == "auto":
        why = "hardware bf16" if chosen == "bf16" else "no hardware bf16"
        chosen = f"{chosen} (auto: {why})"
    return f"{where}, {chosen}"


def device_of(module: torch.nn.Module) -> torch.device:
    """The device of ``module``'s parameters (the learner's network is on the run's device)."""
    return next(module.parameters()).device
