"""Policy bundles: a folder with the network weights and a verified ``manifest.json``.

``save_bundle`` writes ``weights.pt`` and a manifest holding the versions (observation, action,
environment), the ``RuleConfig``, the architecture, the training config, the SHA-256 of the
weights and the latest evaluation results. ``load_policy`` verifies all of that *before*
loading anything and refuses with a ``BundleError`` saying what is wrong; only then does it log
one line naming what it loaded. Loading needs torch only (no stable-baselines3).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import Agent, PlayerView
from agents.network import BalootNet, NetSpec
from baloot_env.actions import ACTION_VERSION, NUM_ACTIONS
from baloot_env.env import ENV_NAME
from baloot_env.observation import OBS_SIZE, OBS_VERSION

BUNDLE_FORMAT = "baloot-policy-bundle-1"
WEIGHTS = "weights.pt"
MANIFEST = "manifest.json"
log = logging.getLogger("baloot.bundle")


class BundleError(ValueError):
    """A bundle that is missing, corrupt, or made for other versions or another architecture."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def save_bundle(
    path: str | Path,
    net: BalootNet,
    *,
    name: str,
    rules: dict | None = None,
    training: dict | None = None,
    evaluations: list[dict] | None = None,
) -> Path:
    """Write a bundle folder (weights first, manifest last, each atomically)."""
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    torch.save({k: v.detach().cpu() for k, v in net.state_dict().items()}, buf)
    weights = buf.getvalue()
    _write_atomic(folder / WEIGHTS, weights)
    manifest = {
        "format": BUNDLE_FORMAT,
        "name": name,
        "obs_version": OBS_VERSION,
        "obs_size": OBS_SIZE,
        "action_version": ACTION_VERSION,
        "env": ENV_NAME,
        "rules": rules or {},
        "net": net.spec.to_dict(),
        "training": training or {},
        "weights_sha256": _sha256(weights),
        "parameters": sum(p.numel() for p in net.parameters()),
        "evaluations": evaluations or [],
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    _write_atomic(folder / MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode())
    return folder


def read_manifest(path: str | Path) -> dict[str, Any]:
    """The manifest of a bundle, checked for format and versions (weights not yet read)."""
    folder = Path(path)
    if not folder.is_dir():
        raise BundleError(f"policy bundle {folder} does not exist or is not a folder")
    mpath = folder / MANIFEST
    if not mpath.is_file():
        raise BundleError(f"policy bundle {folder} has no {MANIFEST}")
    try:
        manifest = json.loads(mpath.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BundleError(f"{mpath} is corrupt: {e}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != BUNDLE_FORMAT:
        raise BundleError(f"{mpath} is not a {BUNDLE_FORMAT} manifest")
    checks = (("obs_version", OBS_VERSION), ("action_version", ACTION_VERSION), ("env", ENV_NAME))
    for key, want in checks:
        if manifest.get(key) != want:
            raise BundleError(f"policy bundle {folder} has {key} {manifest.get(key)!r}; this code needs {want!r}")
    return manifest


def load_net(path: str | Path) -> tuple[BalootNet, dict[str, Any]]:
    """Verify a bundle (manifest, versions, checksum, architecture) and return its network."""
    folder = Path(path)
    manifest = read_manifest(folder)
    wpath = folder / WEIGHTS
    if not wpath.is_file():
        raise BundleError(f"policy bundle {folder} has no {WEIGHTS}")
    weights = wpath.read_bytes()
    digest = _sha256(weights)
    if digest != manifest.get("weights_sha256"):
        raise BundleError(
            f"policy bundle {folder}: {WEIGHTS} has SHA-256 {digest[:12]}..., the manifest says "
            f"{str(manifest.get('weights_sha256'))[:12]}...; the file is corrupt or was replaced"
        )
    try:
        spec = NetSpec.from_dict(manifest["net"])
    except (KeyError, TypeError, ValueError) as e:
        raise BundleError(f"policy bundle {folder}: malformed architecture in manifest: {e}") from None
    if spec.obs_size != OBS_SIZE:
        raise BundleError(f"policy bundle {folder} expects observations of size {spec.obs_size}, this code has {OBS_SIZE}")
    net = BalootNet(spec)
    try:
        state = torch.load(io.BytesIO(weights), map_location="cpu", weights_only=True)
        net.load_state_dict(state)
    except Exception as e:  # a mismatched architecture or unreadable tensor file
        raise BundleError(f"policy bundle {folder}: weights do not fit the architecture: {e}") from None
    net.eval()
    return net, manifest


class PolicyAgent(Agent):
    """A trained network as an agent; greedy (``deterministic``) or sampling from its policy."""

    def __init__(self, net: BalootNet, manifest: dict[str, Any] | None = None, seed: int = 0, deterministic: bool = True):
        super().__init__(seed)
        self.net = net
        self.manifest = manifest or {}
        self.name = self.manifest.get("name", "policy")
        self.deterministic = deterministic
        self._np_rng = np.random.default_rng(seed)

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self._np_rng = np.random.default_rng(seed)

    def act(self, view: PlayerView) -> int:
        return self.act_batch([view])[0]

    def act_batch(self, views: list[PlayerView]) -> list[int]:
        obs = np.stack([v.observation() for v in views])
        masks = np.stack([v.action_mask() for v in views])
        return self.act_arrays(obs, masks)

    def act_arrays(self, obs: np.ndarray, masks: np.ndarray) -> list[int]:
        """Actions for a batch of observations and int8 masks (the form any app holds)."""
        obs = np.asarray(obs, dtype=np.float32).reshape(-1, OBS_SIZE)
        masks = np.asarray(masks).reshape(-1, NUM_ACTIONS)
        if not masks.any(axis=1).all():
            raise ValueError("every mask needs at least one legal action")
        with torch.no_grad():
            logits, _ = self.net(torch.from_numpy(obs), torch.from_numpy(masks.astype(np.int8)))
        if self.deterministic:
            return [int(a) for a in logits.argmax(dim=1)]
        probs = torch.softmax(logits, dim=1).numpy().astype(np.float64) * (masks > 0)
        cum = np.cumsum(probs, axis=1)
        u = self._np_rng.random(len(obs)) * cum[:, -1]
        return [int(a) for a in (cum < u[:, None]).sum(axis=1)]

    def describe(self) -> dict[str, Any]:
        return {"agent": self.name, "weights_sha256": self.manifest.get("weights_sha256")}


def load_policy(path: str | Path, seed: int = 0, deterministic: bool = True) -> PolicyAgent:
    """Verify and load a policy bundle, then log one line: name, checksum, evaluation."""
    net, manifest = load_net(path)
    evals = manifest.get("evaluations") or []
    last = evals[-1] if evals else None
    result = (
        f"{last.get('opponent')} {last.get('mean', float('nan')):+.2f} [{last['ci95'][0]:+.2f}, {last['ci95'][1]:+.2f}]"
        if last and "ci95" in last
        else "not evaluated"
    )
    log.info("loaded policy %s sha256=%s... eval: %s", manifest["name"], manifest["weights_sha256"][:12], result)
    return PolicyAgent(net, manifest, seed=seed, deterministic=deterministic)
