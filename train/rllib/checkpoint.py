"""RLlib run checkpoints, and turning one into a policy bundle.

A checkpoint of the RLlib backend is a folder ``run_dir/checkpoints/step_<N>`` (N learner
decisions, 12 digits) holding

- ``algorithm/``: RLlib's own checkpoint (``Algorithm.save_to_path``): the learner's module
  (``MAIN``), the optimizer, the EnvRunners' connector states and RLlib's counters;
- ``members.pt``: the opponent pool's snapshots and champions (``OpponentPool.members``: names,
  specs, weights), tensors and plain data read with ``torch.load(weights_only=True)``;
- ``state.json``: ours: the config, the learner decisions, the schedule (next checkpoint,
  snapshot, evaluation), the evaluations so far and the promotion state
  (``train.evaluation.promotion_state``).

The folder is written under a temporary name and renamed when complete, so a killed write
leaves no half checkpoint behind; ``latest_checkpoint`` picks the newest complete one.

``checkpoint_to_bundle`` reads the learner module's weights out of a checkpoint without Ray
(they are numpy arrays in RLlib's pickle, read by an unpickler that admits numpy arrays and
nothing else), loads them strictly into ``agents.neural.network.BalootNet`` and writes a policy bundle
(``agents.neural.bundle.save_bundle``) whose manifest's ``training`` names ``backend: rllib`` and the
checkpoint. ``python -m eval``, ``export`` and ``load_policy`` take it as any other bundle.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import re
import shutil
from pathlib import Path
from typing import Any

import torch

from agents.neural.bundle import save_bundle
from baloot_env.config import from_mapping
from baloot_env.rules import RuleConfig
from baloot_io.atomic import write_bytes_atomic, write_json_atomic
from train.checkpoint import CheckpointError, check_counters
from train.config import CONFIG_KEY, NetConfig

CHECKPOINTS = "checkpoints"
ALGORITHM = "algorithm"
STATE = "state.json"
MEMBERS = "members.pt"
STATE_FORMAT = "baloot-rllib-checkpoint-2"
MAIN = "default_policy"  # the learner's module: RLlib's single-agent id (ray.rllib.core.DEFAULT_MODULE_ID)
MAIN_MODULE_PATH = ("learner_group", "learner", "rl_module", MAIN)
_NAME = re.compile(r"^step_(\d{12})$")
TMP_PREFIX = ".tmp-"


def checkpoint_dir(run_dir: Path, steps: int) -> Path:
    return Path(run_dir) / CHECKPOINTS / f"step_{steps:012d}"


def list_checkpoints(run_dir: Path) -> list[Path]:
    """Complete checkpoints of a run, oldest first."""
    folder = Path(run_dir) / CHECKPOINTS
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if _NAME.match(p.name) and (p / STATE).is_file() and (p / ALGORITHM).is_dir()]
    return sorted(found, key=lambda p: p.name)


def latest_checkpoint(run_dir: Path) -> Path:
    """The newest complete checkpoint.

    Raises:
        CheckpointError: the run has none (naming the folder).
    """
    found = list_checkpoints(run_dir)
    if not found:
        raise CheckpointError(f"{Path(run_dir) / CHECKPOINTS} holds no complete RLlib checkpoint to resume from")
    return found[-1]


def save_checkpoint(
    run_dir: Path, steps: int, algo: Any, state: dict[str, Any], members: dict[str, Any], keep: int
) -> Path:
    """Write ``step_<steps>`` (RLlib's checkpoint, the pool's ``members``, then ``state.json``),
    rename it into place, and remove all but the newest ``keep`` checkpoints."""
    final = checkpoint_dir(run_dir, steps)
    tmp = final.with_name(f"{TMP_PREFIX}{final.name}-{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    algo.save_to_path(str((tmp / ALGORITHM).resolve()))
    buf = io.BytesIO()
    torch.save(members, buf)
    write_bytes_atomic(tmp / MEMBERS, buf.getvalue())
    write_json_atomic(tmp / STATE, {"format": STATE_FORMAT, **state})
    if final.exists():  # the same step again (e.g. the last one before the final evaluation)
        shutil.rmtree(final)
    tmp.rename(final)
    for old in list_checkpoints(run_dir)[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def remove_partial_checkpoints(run_dir: Path) -> list[Path]:
    """Remove what killed checkpoint writes left (``checkpoints/.tmp-*``); returns them."""
    folder = Path(run_dir) / CHECKPOINTS
    gone = sorted(p for p in folder.glob(f"{TMP_PREFIX}*")) if folder.is_dir() else []
    for p in gone:
        shutil.rmtree(p, ignore_errors=True)
    return gone


def read_state(checkpoint: Path) -> dict[str, Any]:
    """A checkpoint's ``state.json``.

    Raises:
        CheckpointError: missing, unreadable, or not this backend's format.
    """
    path = Path(checkpoint) / STATE
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{path} cannot be read: {e}") from None
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        raise CheckpointError(f"{path} is not an RLlib backend checkpoint state ({STATE_FORMAT})")
    check_counters(Path(checkpoint), {"step": state.get("steps")})
    return state


def read_members(checkpoint: Path) -> dict[str, Any]:
    """A checkpoint's pool members (``OpponentPool.members``), read without running code.

    Raises:
        CheckpointError: missing, unreadable, or not the pool's members.
    """
    path = Path(checkpoint) / MEMBERS
    try:
        members = torch.load(io.BytesIO(path.read_bytes()), weights_only=True)
    except (OSError, pickle.UnpicklingError, RuntimeError, EOFError, ValueError) as e:
        raise CheckpointError(f"{path} cannot be read: {' '.join(str(e).split())[:200]}") from None
    if not isinstance(members, dict) or set(members) != {"snapshots", "champions"}:
        raise CheckpointError(f"{path} does not hold an opponent pool's snapshots and champions")
    return members


class _ArraysOnly(pickle.Unpickler):
    """Admits what a module state holds (dicts of numpy arrays) and refuses any other class, so
    that reading weights out of a checkpoint cannot run code."""

    ALLOWED = {
        ("collections", "OrderedDict"),
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("numpy.core.multiarray", "scalar"),
        ("numpy._core.multiarray", "scalar"),
        ("numpy.core.numeric", "_frombuffer"),
        ("numpy._core.numeric", "_frombuffer"),
    }

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self.ALLOWED or (module == "numpy" and name.endswith("DType")) or module == "numpy.dtypes":
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refused to load {module}.{name} from a module state (only numpy arrays)")


def read_main_weights(checkpoint: Path) -> dict[str, Any]:
    """The learner module's state (``net.*`` numpy arrays) from a checkpoint folder or from its
    ``algorithm/`` folder.

    Raises:
        CheckpointError: no learner module state there, or it is unreadable.
    """
    root = Path(checkpoint)
    algo = root / ALGORITHM if (root / ALGORITHM).is_dir() else root
    folder = algo.joinpath(*MAIN_MODULE_PATH)
    try:
        meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
        data = (folder / f"{meta.get('state_file', 'module_state')}.pkl").read_bytes()
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"{root}: no readable learner module state under {folder} ({e})") from None
    try:
        state = _ArraysOnly(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError) as e:
        raise CheckpointError(f"{root}: the learner module state cannot be read: {e}") from None
    if not isinstance(state, dict):
        raise CheckpointError(f"{root}: the learner module state is not a dict of arrays")
    return state


def checkpoint_to_bundle(
    checkpoint: Path, out: Path, *, name: str | None = None, evaluations: list[dict[str, Any]] | None = None
) -> Path:
    """Write the policy bundle of a checkpoint's learner module (module docstring).

    Args:
        checkpoint: ``run_dir/checkpoints/step_<N>`` (its ``state.json`` gives the config).
        out: the bundle folder.
        name: the bundle's name (default ``<run>@<N>``).
        evaluations: duplicate results for the manifest.

    Raises:
        CheckpointError: not a complete checkpoint, or weights that do not fit the
            architecture its config names.
    """
    # needs ray (the scale extra): only when a checkpoint is turned into a bundle
    from train.rllib.module import net_from_module_state

    checkpoint = Path(checkpoint)
    state = read_state(checkpoint)
    cfg = state["config"]
    spec = from_mapping(NetConfig, cfg["net"], CONFIG_KEY, "net").spec()
    weights = read_main_weights(checkpoint)
    try:
        net = net_from_module_state(spec, weights)
    except (RuntimeError, ValueError) as e:  # load_state_dict: missing, unexpected or misshapen tensors
        raise CheckpointError(
            f"{checkpoint}: the learner's weights do not fit the architecture {spec.to_dict()}: "
            f"{' '.join(str(e).split())[:300]}"
        ) from None
    steps = int(state["steps"])
    training = {**cfg, "backend": "rllib", "checkpoint": str(checkpoint), "steps": steps}
    run = Path(cfg.get("run_dir", "run")).name
    return save_bundle(
        out,
        net,
        name=name or f"{run}@{steps}",
        rules=RuleConfig.from_dict(cfg["env"]["rules"]),
        training=training,
        evaluations=evaluations,
    )
