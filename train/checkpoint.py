"""Checkpoints: everything a killed run needs to continue exactly, written atomically.

A checkpoint is one ``torch.save`` file ``checkpoints/step_<N>.pt`` holding the network and
optimizer, the PPO counters and last observation, the opponent pool, the games in progress and
every random state (python, numpy, torch); ``checkpoints/latest`` names the newest. Files carry
``OBS_VERSION`` and ``ACTION_VERSION``; loading refuses another version or a corrupt file with
a message that says which.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import torch

from baloot_env.actions import ACTION_VERSION
from baloot_env.atomic import write_bytes_atomic, write_text_atomic
from baloot_env.observation import OBS_VERSION

CHECKPOINT_FORMAT = "baloot-train-checkpoint-1"
KEEP = 2


class CheckpointError(ValueError):
    """A checkpoint that is missing, corrupt or from another observation/action version."""


def save_checkpoint(run_dir: Path, step: int, payload: dict[str, Any]) -> Path:
    """Write ``payload`` as the checkpoint of ``step`` and point ``latest`` at it."""
    folder = Path(run_dir) / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    data = {"format": CHECKPOINT_FORMAT, "obs_version": OBS_VERSION, "action_version": ACTION_VERSION,
            "step": step, **payload}  # fmt: skip
    buf = io.BytesIO()
    torch.save(data, buf)
    path = folder / f"step_{step:09d}.pt"
    write_bytes_atomic(path, buf.getvalue())
    write_text_atomic(folder / "latest", path.name + "\n")
    for old in sorted(folder.glob("step_*.pt"))[:-KEEP]:
        old.unlink()
    return path


def latest_checkpoint(run_dir: Path) -> Path:
    """The newest checkpoint of a run; raises CheckpointError when there is none."""
    folder = Path(run_dir) / "checkpoints"
    pointer = folder / "latest"
    if not pointer.is_file():
        raise CheckpointError(f"{run_dir} has no checkpoint to resume from ({pointer} is missing)")
    path = folder / pointer.read_text().strip()
    if not path.is_file():
        raise CheckpointError(f"{pointer} names {path.name}, which does not exist")
    return path


def load_checkpoint(path: Path) -> dict[str, Any]:
    """Read and check a checkpoint file."""
    try:
        data = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as e:  # torch raises many types for a damaged file
        raise CheckpointError(f"checkpoint {path} is corrupt or unreadable: {type(e).__name__}: {e}") from None
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path} is not a baloot-rl training checkpoint")
    if data.get("obs_version") != OBS_VERSION:
        raise CheckpointError(
            f"checkpoint {path} was written for observation version {data.get('obs_version')}, "
            f"this code has OBS_VERSION {OBS_VERSION}"
        )
    if data.get("action_version") != ACTION_VERSION:
        raise CheckpointError(
            f"checkpoint {path} was written for action version {data.get('action_version')}, "
            f"this code has ACTION_VERSION {ACTION_VERSION}"
        )
    return data
