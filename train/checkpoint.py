"""Checkpoints: everything a killed run needs to continue exactly, written atomically; and the
lock a run holds on its directory.

A checkpoint is one ``torch.save`` file ``checkpoints/step_<N>.pt`` holding the network and
optimizer, the PPO counters and last observation, the opponent pool, the games in progress,
every random state (python, numpy, torch) and the promotion state; ``checkpoints/latest`` names
the newest. Files carry ``OBS_VERSION`` and ``ACTION_VERSION``; loading refuses another
version or a corrupt file with a message that says which.

Like a policy bundle, a checkpoint is verified before a run continues from it: it carries the
SHA-256 of everything it holds (``content_digest``: every tensor's dtype, shape and bytes, every
plain value), so one flipped byte is refused, and its policy's weights must be finite. Format 2
files, written before the digest, still load (without that check), so that runs started then
can be resumed.

A checkpoint holds tensors and plain data only (dicts, lists, tuples, numbers, strings, bytes)
and is read with ``torch.load(weights_only=True)``: a file that names any other Python object
is refused, since unpickling it could run code (format 1 stored pickled games and numpy
arrays and cannot be resumed).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import pickle
import re
import socket
from pathlib import Path
from typing import Any

import torch
from filelock import FileLock, Timeout

from baloot_env.actions import ACTION_VERSION
from baloot_env.errors import ConfigError, shown
from baloot_env.observation import OBS_VERSION
from baloot_io.atomic import write_bytes_atomic, write_text_atomic

CHECKPOINT_FORMAT = "baloot-train-checkpoint-3"
UNCHECKED_FORMATS = ("baloot-train-checkpoint-2",)  # written before the digest: loaded without it
DIGEST = "content_sha256"
KEEP = 2


class CheckpointError(ValueError):
    """A checkpoint that is missing, corrupt, unsafe or from another observation/action version."""


class RunDirBusyError(ConfigError):
    """The run directory is held by another live run (``python -m train`` exits with 2)."""


class RunLock:
    """The lock a run holds on its directory for its whole life (``filelock``).

    The lock file sits beside the run directory, ``runs/x.lock`` for ``runs/x``, so that it
    stays where it is while a fresh run moves an earlier run aside; ``runs/x.lock.holder`` names
    the holder (pid, host, start) for the message a second process gets. The operating system
    drops the lock when the holder dies, however it dies, so a killed run never blocks its
    ``--resume``.
    """

    def __init__(self, run_dir: str | os.PathLike[str]):
        self.run_dir = Path(run_dir)
        full = self.run_dir.resolve()
        self.path = full.with_name(full.name + ".lock")
        self.holder_path = full.with_name(full.name + ".lock.holder")
        self._lock = FileLock(str(self.path))

    def acquire(self) -> None:
        """Take the lock now or raise RunDirBusyError naming its holder."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            raise RunDirBusyError(
                f"run dir {self.run_dir} is in use by {self.holder()} (lock {self.path}); "
                "let that run finish or stop it first"
            ) from None
        holder = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        }
        try:
            write_text_atomic(self.holder_path, json.dumps(holder) + "\n")
        except BaseException:
            self._lock.release()
            raise

    def holder(self) -> str:
        """Who holds the lock, from the holder file (best effort)."""
        try:
            h = json.loads(self.holder_path.read_text(encoding="utf-8"))
            me = " (this process)" if h["pid"] == os.getpid() and h["host"] == socket.gethostname() else ""
            return f"pid {h['pid']}{me} on {h['host']} since {h['since']}"
        except (OSError, ValueError, KeyError, TypeError):
            return "another process"

    @property
    def held(self) -> bool:
        return self._lock.is_locked

    def release(self) -> None:
        if self._lock.is_locked:
            self.holder_path.unlink(missing_ok=True)
            self._lock.release()


def has_checkpoint(run_dir: Path) -> bool:
    """True once a run has completed its first checkpoint (``checkpoints/latest`` exists)."""
    return (Path(run_dir) / "checkpoints" / "latest").is_file()


def save_checkpoint(run_dir: Path, step: int, payload: dict[str, Any]) -> Path:
    """Write ``payload`` as the checkpoint of ``step`` and point ``latest`` at it."""
    folder = Path(run_dir) / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    data = {
        "format": CHECKPOINT_FORMAT,
        "obs_version": OBS_VERSION,
        "action_version": ACTION_VERSION,
        "step": step,
        **payload,
    }
    data[DIGEST] = content_digest(data)
    buf = io.BytesIO()
    torch.save(data, buf)
    path = folder / f"step_{step:09d}.pt"
    write_bytes_atomic(path, buf.getvalue())
    write_text_atomic(folder / "latest", path.name + "\n")
    for old in sorted(folder.glob("step_*.pt"))[:-KEEP]:
        old.unlink()
    return path


def content_digest(data: Any) -> str:
    """The SHA-256 of a checkpoint's content, its own digest left out: every tensor's dtype,
    shape and bytes and every plain value, in a fixed order (mappings by key)."""
    h = hashlib.sha256()

    def feed(x: Any) -> None:
        if isinstance(x, torch.Tensor):
            t = x.detach().cpu().contiguous()
            h.update(f"T{t.dtype}{tuple(t.shape)}".encode())
            h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
        elif isinstance(x, dict):
            h.update(b"{")
            for key in sorted(x, key=repr):
                if key != DIGEST:
                    h.update(repr(key).encode())
                    feed(x[key])
            h.update(b"}")
        elif isinstance(x, (list, tuple)):
            h.update(b"[" if isinstance(x, list) else b"(")
            for item in x:
                feed(item)
            h.update(b"]")
        else:
            h.update(f"{type(x).__name__}:{x!r};".encode())

    feed(data)
    return h.hexdigest()


def check_content(path: Path, data: dict[str, Any]) -> None:
    """A format-3 checkpoint's digest matches its content, and its policy's weights are finite.

    Raises:
        CheckpointError: naming the file and what is wrong.
    """
    if data.get("format") in UNCHECKED_FORMATS:
        return
    if data.get(DIGEST) != content_digest(data):
        raise CheckpointError(f"checkpoint {path} is corrupt: its content does not match its {DIGEST}")
    for name, t in (data.get("policy") or {}).items():
        if isinstance(t, torch.Tensor) and t.is_floating_point() and not bool(torch.isfinite(t).all()):
            raise CheckpointError(f"checkpoint {path}: policy weight {name} is not finite (NaN or infinite)")


def latest_checkpoint(run_dir: Path) -> Path:
    """The newest checkpoint of a run; raises CheckpointError when there is none."""
    folder = Path(run_dir) / "checkpoints"
    pointer = folder / "latest"
    if not pointer.is_file():
        config = Path(run_dir) / "config.yaml"
        if config.is_file():  # a run killed before its first checkpoint, i.e. during the warm start
            raise CheckpointError(
                f"{run_dir} has no checkpoint to resume from: it stopped before its first one, during the warm "
                f"start; start it again with python -m train --config {config} (same config and seed: same run)"
            )
        raise CheckpointError(f"{run_dir} has no checkpoint to resume from ({pointer} is missing)")
    name = pointer.read_text(encoding="utf-8", errors="replace").strip()
    if not re.fullmatch(r"step_\d+\.pt", name):
        raise CheckpointError(f"{pointer} should name a step_<N>.pt file beside it, not {name[:80]!r}")
    path = folder / name
    if not path.is_file():
        raise CheckpointError(f"{pointer} names {path.name}, which does not exist")
    return path


def load_checkpoint(path: Path) -> dict[str, Any]:
    """Read and check a checkpoint file."""
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:  # the weights-only unpickler met something else
        lines = str(e).splitlines()
        why = next((ln.strip() for ln in lines if "Unsupported" in ln), lines[0] if lines else "")
        raise CheckpointError(
            f"checkpoint {path} holds more than tensors and plain data and is refused, since loading it "
            f"could run code ({why}); checkpoints of format 1 are like that: start a new run"
        ) from None
    except Exception as e:  # torch raises many types for a damaged file
        raise CheckpointError(f"checkpoint {path} is corrupt or unreadable: {type(e).__name__}: {e}") from None
    fmt = data.get("format") if isinstance(data, dict) else None
    known = (CHECKPOINT_FORMAT, *UNCHECKED_FORMATS)
    if isinstance(fmt, str) and fmt.startswith("baloot-train-checkpoint-") and fmt not in known:
        raise CheckpointError(
            f"checkpoint {path} has format {fmt!r}, this code reads {CHECKPOINT_FORMAT!r}: start a new run"
        )
    if fmt not in known:
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
    check_counters(path, data)
    check_content(path, data)
    out: dict[str, Any] = data
    return out


MAX_STEP = 2**53  # more learner decisions than any run makes; exact as a float too


def _count(data: dict[str, Any], key: str, path: Path) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_STEP:
        raise CheckpointError(f"checkpoint {path}: {key} must be a count in [0, 2**53], got {shown(value)}")
    return value


def check_counters(path: Path, data: dict[str, Any]) -> None:
    """The counters of a checkpoint agree with each other and with its name: ``step`` is the N of
    ``step_<N>`` and, where saved, the learner processes' decisions (``num_timesteps`` times
    ``processes``); ``n_updates`` and the expert rounds are counts (one record a round). A file
    edited to claim more or less training than it holds is refused before the run starts.

    Raises:
        CheckpointError: naming the file and the counter.
    """
    step = _count(data, "step", path)
    named = re.fullmatch(r"step_(\d+)(\.pt)?", Path(path).name)
    if named and int(named.group(1)) != step:
        raise CheckpointError(f"checkpoint {path}: its step {step:,} is not the step of its name")
    if "num_timesteps" in data:
        processes = _count(data, "processes", path) if "processes" in data else 1
        if _count(data, "num_timesteps", path) * processes != step:
            raise CheckpointError(
                f"checkpoint {path}: num_timesteps {data['num_timesteps']:,} times {processes} processes "
                f"is not its step {step:,}"
            )
    if "n_updates" in data:
        _count(data, "n_updates", path)
    expert = data.get("expert")
    if expert is not None:
        if not isinstance(expert, dict) or not isinstance(expert.get("stats"), list):
            raise CheckpointError(f"checkpoint {path}: expert must hold rounds and their stats")
        if _count(expert, "rounds", path) != len(expert["stats"]):
            raise CheckpointError(
                f"checkpoint {path}: {expert['rounds']:,} expert rounds with {len(expert['stats'])} records"
            )
