"""ONNX export of a policy bundle, for programs outside Python (game servers, mobile clients).

It lives beside the bundles it reads; ``python -m eval export`` is its command line
(``eval.export``).

``export_onnx(bundle, "model.onnx")`` verifies the bundle (``agents.neural.bundle.load_net``) and
writes two files:

- ``model.onnx``: inputs ``observation`` float32 [batch, OBS_SIZE] and ``mask`` int8
  [batch, 42] (nonzero = legal, R9); outputs ``logits`` float32 [batch, 42], the masked logits
  (illegal actions at ``MASKED_LOGIT`` = -1e8, so the argmax is always legal) and ``value``
  float32 [batch], the value head's estimate of the hand's outcome. The batch axis is dynamic;
  opset 17 or newer.
- ``model.manifest.json``: the bundle's manifest plus an ``onnx`` section: the file's SHA-256,
  opset, input and output names, dtypes and shapes, and the masked-logit value. A loader checks
  ``obs_version``, ``action_version`` and the SHA-256 before using the model, as
  ``examples/node/pick.js`` does.

The export uses torch's TorchScript-based exporter (``dynamo=False``): the network is a plain
MLP that it handles exactly, and the newer exporter would add a dependency (onnxscript).
``check_parity`` compares onnxruntime with torch on real positions (``agents.neural.positions``), and
``time_onnx`` measures inference per decision on one core.
"""

from __future__ import annotations

import hashlib
import json
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.neural.bundle import load_net
from agents.neural.network import MASKED_LOGIT, BalootNet
from agents.neural.positions import collect_positions
from agents.random_agent import RandomAgent
from agents.rule_based.heuristic import HeuristicAgent
from baloot_env.actions import NUM_ACTIONS

MIN_OPSET = 17
INPUTS = ("observation", "mask")
OUTPUTS = ("logits", "value")


class ExportError(RuntimeError):
    """The export failed or the exported model disagrees with torch."""


class _Exported(nn.Module):
    """The network with the exported signature: (observation, int8 mask) -> (masked logits, value)."""

    def __init__(self, net: BalootNet):
        super().__init__()
        self.net = net

    def forward(self, observation: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out: tuple[torch.Tensor, torch.Tensor] = self.net(observation, mask)
        return out


def manifest_path(onnx_path: str | Path) -> Path:
    """Where the manifest of ``model.onnx`` goes: ``model.manifest.json`` beside it."""
    p = Path(onnx_path)
    return p.with_name(p.stem + ".manifest.json")


def export_onnx(bundle: str | Path, out: str | Path, opset: int = MIN_OPSET) -> dict[str, Any]:
    """Verify ``bundle`` and export it to ``out`` (ONNX) with its manifest beside it.

    Returns:
        The manifest written beside the model.

    Raises:
        agents.neural.bundle.BundleError: the bundle failed verification (nothing is written).
        ValueError: an opset below 17.
    """
    if opset < MIN_OPSET:
        raise ValueError(f"opset must be {MIN_OPSET} or newer, got {opset}")
    net, manifest = load_net(bundle)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    obs_size = net.spec.obs_size
    example = (torch.zeros(2, obs_size), torch.ones(2, NUM_ACTIONS, dtype=torch.int8))
    batch = {0: "batch"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(
            _Exported(net).eval(),
            example,
            str(out),
            input_names=list(INPUTS),
            output_names=list(OUTPUTS),
            dynamic_axes={name: batch for name in INPUTS + OUTPUTS},
            opset_version=opset,
            dynamo=False,
        )
    data = out.read_bytes()
    meta = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    meta["bundle_manifest_sha256"] = manifest.get("manifest_sha256")
    meta["onnx"] = {
        "file": out.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "opset": opset,
        "inputs": [
            {"name": "observation", "dtype": "float32", "shape": ["batch", obs_size]},
            {"name": "mask", "dtype": "int8", "shape": ["batch", NUM_ACTIONS], "meaning": "nonzero = legal (R9)"},
        ],
        "outputs": [
            {
                "name": "logits",
                "dtype": "float32",
                "shape": ["batch", NUM_ACTIONS],
                "meaning": "masked logits, illegal at masked_logit",
            },
            {"name": "value", "dtype": "float32", "shape": ["batch"], "meaning": "value head"},
        ],
        "masked_logit": MASKED_LOGIT,
        "bundle": str(bundle),
    }
    manifest_path(out).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return meta


def _session(path: str | Path, threads: int = 1) -> Any:
    # optional dependency: onnxruntime (the eval extra)
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


@dataclass(frozen=True)
class Parity:
    """How far onnxruntime is from torch on ``positions`` positions.

    Float32 kernels differ by rounding, and rounding grows with the size of the numbers, so the
    logit tolerance is ``ABSOLUTE_TOLERANCE`` or ``RELATIVE_TOLERANCE`` of the largest legal logit,
    whichever is larger. A network trained to sharp choices has logits in the thousands, where one
    float32 ulp is already 2.4e-4.
    """

    positions: int
    argmax_agree: int
    max_logit_diff: float  # over legal actions
    max_value_diff: float
    masked_equal: bool  # illegal entries are MASKED_LOGIT in both
    logit_scale: float  # largest |legal logit| from torch

    ABSOLUTE_TOLERANCE = 1e-4
    RELATIVE_TOLERANCE = 1e-6  # about 8 ulps

    @property
    def logit_tolerance(self) -> float:
        return max(self.ABSOLUTE_TOLERANCE, self.RELATIVE_TOLERANCE * self.logit_scale)

    @property
    def ok(self) -> bool:
        return self.argmax_agree == self.positions and self.max_logit_diff < self.logit_tolerance and self.masked_equal


def check_parity(onnx_path: str | Path, net: BalootNet, obs: np.ndarray, masks: np.ndarray) -> Parity:
    """Run both on the same observations and masks (in batches of 512) and compare."""
    sess = _session(onnx_path)
    obs = np.ascontiguousarray(obs, dtype=np.float32)
    masks = np.ascontiguousarray(masks != 0, dtype=np.int8)
    agree, dlogit, dvalue, scale, masked_equal = 0, 0.0, 0.0, 0.0, True
    for lo in range(0, len(obs), 512):
        o, m = obs[lo : lo + 512], masks[lo : lo + 512]
        ort_logits, ort_value = sess.run(list(OUTPUTS), {"observation": o, "mask": m})
        with torch.no_grad():
            t_logits, t_value = (x.numpy() for x in net(torch.from_numpy(o), torch.from_numpy(m)))
        legal = m != 0
        agree += int((ort_logits.argmax(axis=1) == t_logits.argmax(axis=1)).sum())
        dlogit = max(dlogit, float(np.abs(ort_logits - t_logits)[legal].max()))
        scale = max(scale, float(np.abs(t_logits[legal]).max()))
        dvalue = max(dvalue, float(np.abs(ort_value - t_value).max()))
        masked_equal &= bool((ort_logits[~legal] == MASKED_LOGIT).all() and (t_logits[~legal] == MASKED_LOGIT).all())
    return Parity(len(obs), agree, dlogit, dvalue, masked_equal, scale)


def time_onnx(onnx_path: str | Path, obs: np.ndarray, masks: np.ndarray, repeats: int = 1) -> dict[str, float]:
    """Milliseconds per decision with onnxruntime on one thread (batch 1, one decision at a time).

    Returns ``{"median_ms", "p90_ms", "mean_ms", "decisions"}`` over ``repeats`` passes through
    the positions (after 50 warm-up runs), and ``batched_ms``, the time per decision in batches
    of 256.
    """
    return time_onnx_models({"model": onnx_path}, obs, masks, repeats)["model"]


def time_onnx_models(
    models: Mapping[str, str | Path], obs: np.ndarray, masks: np.ndarray, repeats: int = 1
) -> dict[str, dict[str, float]]:
    """``time_onnx`` for several models at once, interleaved decision by decision.

    Interleaving makes the comparison fair on a shared machine: a burst of load from other
    processes slows every model alike instead of whichever was being timed.
    """
    sessions = {name: _session(path, threads=1) for name, path in models.items()}
    obs = np.ascontiguousarray(obs, dtype=np.float32)
    masks = np.ascontiguousarray(masks != 0, dtype=np.int8)
    feeds = [{"observation": obs[i : i + 1], "mask": masks[i : i + 1]} for i in range(len(obs))]
    for sess in sessions.values():
        for feed in feeds[:50]:
            sess.run(None, feed)
    times: dict[str, list[float]] = {name: [] for name in sessions}
    for _ in range(repeats):
        for feed in feeds:
            for name, sess in sessions.items():
                t0 = time.perf_counter()
                sess.run(None, feed)
                times[name].append(time.perf_counter() - t0)
    out = {}
    for name, ts in times.items():
        ms = np.array(ts) * 1e3
        out[name] = {
            "median_ms": float(np.median(ms)),
            "p90_ms": float(np.percentile(ms, 90)),
            "mean_ms": float(ms.mean()),
            "decisions": len(ms),
            "batched_ms": _batched_ms(sessions[name], obs, masks),
        }
    return out


def _batched_ms(sess: Any, obs: np.ndarray, masks: np.ndarray, batch: int = 256) -> float:
    """Milliseconds per decision when decisions come in batches of ``batch`` (a server's many tables)."""
    n = min(batch, len(obs))
    feed = {"observation": obs[:n], "mask": masks[:n]}
    sess.run(None, feed)
    runs = max(3, 2000 // n)
    t0 = time.perf_counter()
    for _ in range(runs):
        sess.run(None, feed)
    return (time.perf_counter() - t0) * 1e3 / (runs * n)


def verify_export(bundle: str | Path, onnx_path: str | Path, positions: int = 1000, seed: int = 0) -> Parity:
    """Parity of an exported model with its bundle on ``positions`` real positions (heuristic and random play)."""

    net, _ = load_net(bundle)
    pos = collect_positions(positions, [HeuristicAgent(seed), RandomAgent(seed)], seed)
    return check_parity(onnx_path, net, pos.observations, pos.masks)


def max_opset() -> int:
    """The newest opset torch's TorchScript exporter writes (private constant; 20 if it moves)."""
    try:
        # optional dependency: torch (the train extra)
        from torch.onnx import _constants

        return int(_constants.ONNX_TORCHSCRIPT_EXPORTER_MAX_OPSET)
    except (ImportError, AttributeError):
        return 20
