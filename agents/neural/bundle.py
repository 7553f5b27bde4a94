"""Policy bundles: a folder with the network weights and a verified ``manifest.json``.

A bundle is what other programs load: a game server, an analysis notebook, the ONNX exporter
(``agents.neural.export``). ``save_bundle`` writes ``weights.pt`` and then a manifest holding

- the versions the weights were made for: ``obs_version`` and ``obs_size``
  (``baloot_env.observation``), ``action_version`` (R9, ``baloot_env.actions``), ``env``
  (``baloot_v0``);
- the ``rules`` (a ``RuleConfig`` dict), the architecture ``net`` (a ``NetSpec`` dict) and its
  ``parameters`` count, the ``training`` config;
- ``weights_sha256``, the SHA-256 of ``weights.pt``, and ``manifest_sha256``, the SHA-256 of
  the manifest's own canonical JSON without that key (so a flipped byte anywhere is caught);
- ``evaluations``: the latest duplicate results, each with ``opponent``, ``deal_set``,
  ``checksum`` (of the deal set), ``deals``, ``mean``, ``ci95`` and ``date``. They are shown
  in the load line, so each is checked: a dict with a str ``opponent``, a number ``mean``, a
  ``ci95`` of two numbers and an int ``deals`` >= 0; ``deal_set``, ``checksum``, ``date`` and
  ``label`` are str and ``sd`` a number where present; other keys are free.

``load_policy`` verifies everything (files present, manifest intact, versions, weights
checksum, architecture against the tensors) *before* it builds the network, refuses with a
``BundleError`` saying which check failed, and only then logs one line naming what it loaded:
name, checksum and evaluation. A program that configures logging gets it as an INFO record of
``baloot.bundle``; a person at a Python prompt or in a notebook, where nobody has, gets it on
stderr, so whoever loads a policy by hand sees what was loaded. Scripts and our commands (whose
bad input is one line) stay quiet, as a library should. A reference system once served a random
policy for days because its loader said "model loaded" before it had verified the file; ours
cannot.

Loading needs torch and numpy only: this module does not import stable-baselines3.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import logging
import sys
from pathlib import Path
from typing import Any

import torch

from agents.neural.network import BalootNet, NetSpec
from agents.neural.policy import PolicyAgent
from agents.shipped import packaged_bundle
from baloot_env import ENV_NAME
from baloot_env.actions import ACTION_VERSION
from baloot_env.errors import ConfigError
from baloot_env.observation import OBS_SIZE, OBS_VERSION
from baloot_env.rules import RuleConfig
from baloot_io.atomic import write_bytes_atomic
from baloot_io.reading import InputFileError, parse_json, read_bytes_checked, read_text_checked

BUNDLE_FORMAT = "baloot-policy-bundle-1"
WEIGHTS = "weights.pt"
WEIGHTS_LIMIT = 256 << 20  # some 64M fp32 parameters, far above any network of ours
MANIFEST = "manifest.json"
BUNDLE_FILES = (MANIFEST, WEIGHTS)  # what a bundle's folder holds
REQUIRED_KEYS = ("name", "obs_version", "obs_size", "action_version", "env", "net", "weights_sha256")
_NUMBER = (int, float)
# Evaluation fields: (name, types, required). Bools are never numbers here (True == 1 in Python).
EVALUATION_FIELDS = (
    ("opponent", (str,), True),
    ("mean", _NUMBER, True),
    ("ci95", (list, tuple), True),
    ("deals", (int,), True),
    ("sd", _NUMBER, False),
    ("deal_set", (str,), False),
    ("checksum", (str,), False),
    ("date", (str,), False),
    ("label", (str,), False),
    ("rules", (dict,), False),  # the switches that differ from RULES.md, when any did
)
log = logging.getLogger("baloot.bundle")

__all__ = [
    "BUNDLE_FORMAT",
    "BundleError",
    "MANIFEST",
    "PolicyAgent",
    "WEIGHTS",
    "describe_evaluations",
    "evaluations_problem",
    "load_net",
    "load_policy",
    "read_manifest",
    "save_bundle",
    "update_evaluations",
]


class BundleError(ValueError):
    """A bundle that is missing, corrupt, or made for other versions or another architecture."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest_digest(manifest: dict[str, Any]) -> str:
    """SHA-256 of the manifest's canonical JSON (sorted keys, no spaces), ``manifest_sha256`` left out."""
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    return _sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode())


def evaluations_problem(evaluations: object) -> str | None:
    """What is wrong with a manifest's ``evaluations`` (see the module docstring), or None."""
    if not isinstance(evaluations, list):
        return f"evaluations must be a list of results, got {type(evaluations).__name__}"
    for i, ev in enumerate(evaluations):
        if not isinstance(ev, dict):
            return f"evaluations[{i}] must be a dict, got {type(ev).__name__}"
        for key, types, required in EVALUATION_FIELDS:
            if key not in ev:
                if required:
                    return f"evaluations[{i}] lacks {key!r}"
                continue
            v = ev[key]
            if isinstance(v, bool) or not isinstance(v, types):
                return f"evaluations[{i}][{key!r}] must be {' or '.join(t.__name__ for t in types)}, got {v!r:.60}"
        ci = ev["ci95"]
        if len(ci) != 2 or any(isinstance(x, bool) or not isinstance(x, _NUMBER) for x in ci):
            return f"evaluations[{i}]['ci95'] must be [low, high], two numbers; got {ci!r:.60}"
        if ev["deals"] < 0:
            return f"evaluations[{i}]['deals'] must be >= 0, got {ev['deals']}"
    return None


def _check_evaluations(evaluations: object, where: str) -> None:
    problem = evaluations_problem(evaluations)
    if problem:
        raise BundleError(f"{where}: {problem}")


def _write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    manifest = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    manifest["manifest_sha256"] = manifest_digest(manifest)
    write_bytes_atomic(folder / MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode())


def save_bundle(
    path: str | Path,
    net: BalootNet,
    *,
    name: str,
    rules: RuleConfig | None = None,
    training: dict[str, Any] | None = None,
    evaluations: list[dict[str, Any]] | None = None,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write a bundle folder: the weights first, then the manifest, each atomically.

    Args:
        path: the folder (created if needed; an existing bundle there is replaced).
        net: the network; its ``spec`` becomes the manifest's ``net``.
        name: a short label, logged on load and used in reports.
        rules: the rules the policy was trained under (default RULES.md); ``bundle_rules`` reads them.
        training: the training config (JSON-ready), e.g. ``train.config.to_dict(cfg)``.
        evaluations: duplicate results (see the module docstring).
        extra: further JSON-ready manifest keys (e.g. ``distillation``); they may not replace
            the keys above.

    Returns:
        The folder.

    Raises:
        BundleError: malformed ``evaluations``; nothing is written.
    """
    _check_evaluations(evaluations or [], f"policy bundle {path}")
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    torch.save({k: v.detach().cpu() for k, v in net.state_dict().items()}, buf)
    weights = buf.getvalue()
    write_bytes_atomic(folder / WEIGHTS, weights)
    manifest = {
        "format": BUNDLE_FORMAT,
        "name": name,
        "obs_version": OBS_VERSION,
        "obs_size": OBS_SIZE,
        "action_version": ACTION_VERSION,
        "env": ENV_NAME,
        "rules": (rules or RuleConfig()).to_dict(),
        "net": net.spec.to_dict(),
        "parameters": sum(p.numel() for p in net.parameters()),
        "training": training or {},
        "weights_sha256": _sha256(weights),
        "evaluations": evaluations or [],
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    clash = sorted(set(extra or {}) & set(manifest))
    if clash:
        raise ValueError(f"extra manifest keys {clash} would replace the standard ones")
    manifest.update(extra or {})
    _write_manifest(folder, manifest)
    return folder


def update_evaluations(path: str | Path, evaluations: list[dict[str, Any]]) -> dict[str, Any]:
    """Replace a verified bundle's ``evaluations`` (the manifest checksum is renewed); returns the manifest.

    Raises:
        BundleError: the bundle fails a check, or ``evaluations`` is malformed; nothing is written.
    """
    folder = Path(path)
    _check_evaluations(evaluations, f"policy bundle {folder}")
    _, manifest = load_net(folder)
    manifest["evaluations"] = list(evaluations)
    _write_manifest(folder, manifest)
    return manifest


def read_manifest(path: str | Path) -> dict[str, Any]:
    """The manifest of a bundle, checked for presence, integrity, format and versions.

    The weights are not read here (``load_net`` does that).

    Raises:
        BundleError: the folder or manifest is missing, the manifest is corrupt or edited, or
            it was made for another observation, action or environment version.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise BundleError(f"policy bundle {folder} does not exist or is not a folder")
    mpath = folder / MANIFEST
    if not mpath.is_file():
        raise BundleError(f"policy bundle {folder} has no {MANIFEST} (missing file)")
    try:
        manifest = parse_json(read_text_checked(mpath, "bundle manifest"), MANIFEST)
    except InputFileError as e:
        raise BundleError(f"policy bundle {folder}: {e}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BundleError(f"policy bundle {folder}: {MANIFEST} is corrupt (not readable JSON: {e})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != BUNDLE_FORMAT:
        raise BundleError(f"policy bundle {folder}: {MANIFEST} is not a {BUNDLE_FORMAT} manifest")
    if "manifest_sha256" not in manifest:  # without it an edited manifest would pass unnoticed
        raise BundleError(
            f"policy bundle {folder}: {MANIFEST} has no manifest_sha256, so its integrity cannot be checked; "
            "the key was deleted or the bundle predates it (re-save it with agents.neural.bundle.save_bundle)"
        )
    if manifest["manifest_sha256"] != manifest_digest(manifest):
        raise BundleError(
            f"policy bundle {folder}: {MANIFEST} does not match its manifest_sha256; the manifest is corrupt "
            "or was edited by hand (use agents.neural.bundle.update_evaluations to change evaluations)"
        )
    missing = [k for k in REQUIRED_KEYS if k not in manifest]
    if missing:
        raise BundleError(f"policy bundle {folder}: {MANIFEST} lacks the keys {missing}")
    for key in ("name", "weights_sha256"):
        if not isinstance(manifest[key], str):
            raise BundleError(f"policy bundle {folder}: {MANIFEST} {key} must be a string, got {manifest[key]!r:.60}")
    if "evaluations" in manifest:
        _check_evaluations(manifest["evaluations"], f"policy bundle {folder}: {MANIFEST}")
    checks = (
        ("obs_version", OBS_VERSION, "OBS_VERSION"),
        ("obs_size", OBS_SIZE, "OBS_SIZE"),
        ("action_version", ACTION_VERSION, "ACTION_VERSION"),
        ("env", ENV_NAME, "the environment"),
    )
    for key, want, what in checks:
        if manifest[key] != want:
            raise BundleError(
                f"policy bundle {folder} was made for {key} {manifest[key]!r}; this code has {what} {want!r} "
                "(retrain or re-export the policy for this version)"
            )
    try:
        bundle_rules(manifest)
    except ConfigError as e:
        raise BundleError(f"policy bundle {folder}: its rules are not a RuleConfig of this code: {e}") from None
    return manifest


def bundle_rules(manifest: dict[str, Any]) -> RuleConfig:
    """The rules a bundle's policy was trained under (its manifest's ``rules``; ``{}`` or none:
    the RULES.md defaults).

    Raises:
        ConfigError: the manifest's rules are not a ``RuleConfig`` of this code.
    """
    return RuleConfig.from_dict(manifest.get("rules") or {})


def _check_architecture(folder: Path, spec: NetSpec, state: dict[str, Any], manifest: dict[str, Any]) -> None:
    """Refuse weights whose tensors (names and shapes) are not those of ``BalootNet(spec)``."""
    with torch.device("meta"):  # shapes only: no memory, no random initialisation
        want = {k: tuple(v.shape) for k, v in BalootNet(spec).state_dict().items()}
    have = {k: tuple(v.shape) for k, v in state.items() if isinstance(v, torch.Tensor)}
    if len(have) != len(state):
        raise BundleError(f"policy bundle {folder}: {WEIGHTS} holds entries that are not tensors")
    problems = [f"missing {k}" for k in want if k not in have]
    problems += [f"unexpected {k}" for k in have if k not in want]
    problems += [
        f"{k} has shape {list(have[k])}, the architecture needs {list(s)}"
        for k, s in want.items()
        if k in have and have[k] != s
    ]
    if problems:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        raise BundleError(
            f"policy bundle {folder}: the weights do not fit the manifest's architecture {spec.to_dict()}: {shown}"
        )
    count = sum(int(torch.Size(s).numel()) for s in want.values())
    if "parameters" in manifest and manifest["parameters"] != count:
        raise BundleError(
            f"policy bundle {folder}: the manifest says {manifest['parameters']} parameters, the architecture has {count}"
        )


def load_net(path: str | Path) -> tuple[BalootNet, dict[str, Any]]:
    """Verify a bundle (manifest, versions, checksum, architecture) and return its network.

    Nothing is built or logged until every check has passed.

    Raises:
        BundleError: any failed check, naming it (missing file, corrupt manifest, version,
            checksum, architecture).
    """
    folder = Path(path)
    manifest = read_manifest(folder)
    wpath = folder / WEIGHTS
    if not wpath.is_file():
        raise BundleError(f"policy bundle {folder} has no {WEIGHTS} (missing file)")
    try:
        weights = read_bytes_checked(wpath, "weights file", WEIGHTS_LIMIT)
    except InputFileError as e:
        raise BundleError(f"policy bundle {folder}: {e}") from None
    digest = _sha256(weights)
    if digest != manifest["weights_sha256"]:
        raise BundleError(
            f"policy bundle {folder}: {WEIGHTS} has SHA-256 {digest[:12]}..., the manifest says "
            f"{str(manifest['weights_sha256'])[:12]}...; the weights file is corrupt or was replaced"
        )
    try:
        spec = NetSpec.from_dict(manifest["net"])
    except (KeyError, TypeError, ValueError) as e:
        raise BundleError(f"policy bundle {folder}: malformed architecture in the manifest: {e!r}") from None
    if spec.obs_size != OBS_SIZE:
        raise BundleError(
            f"policy bundle {folder}: its network reads observations of size {spec.obs_size}, this code has {OBS_SIZE}"
        )
    try:
        state = torch.load(io.BytesIO(weights), map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types for an unreadable tensor file
        raise BundleError(f"policy bundle {folder}: {WEIGHTS} cannot be read as tensors: {e}") from None
    if not isinstance(state, dict):
        raise BundleError(f"policy bundle {folder}: {WEIGHTS} is not a state dict")
    _check_architecture(folder, spec, state, manifest)
    bad = [k for k, t in state.items() if not torch.is_floating_point(t) or not bool(torch.isfinite(t).all())]
    if bad:
        raise BundleError(f"policy bundle {folder}: {WEIGHTS} holds weights that are not finite numbers ({bad[0]})")
    net = BalootNet(spec)
    net.load_state_dict(state)
    net.eval()
    return net, manifest


def describe_evaluations(manifest: dict[str, Any]) -> str:
    """One phrase for the latest evaluation against each opponent, e.g. ``vs heuristic +2.10 [+1.60, +2.60] ...``."""
    evaluations = manifest.get("evaluations", [])
    problem = evaluations_problem(evaluations)
    if problem:  # read_manifest refuses these; a dict from elsewhere gets the same check
        raise BundleError(problem)
    latest: dict[str, dict[str, Any]] = {}
    for ev in evaluations:
        latest[ev["opponent"]] = ev  # later entries replace earlier ones
    if not latest:
        return "not evaluated"
    parts = []
    for opp, ev in latest.items():
        lo, hi = ev["ci95"]
        where = f"{ev.get('deals', '?')} deals of {ev.get('deal_set', '?')} ({str(ev.get('checksum', ''))[:12]})"
        parts.append(
            f"vs {ev.get('label') or Path(opp).name or opp} {ev['mean']:+.2f} [{lo:+.2f}, {hi:+.2f}] on {where}, {ev.get('date', 'undated')}"
        )
    return "; ".join(parts)


def printable(text: str) -> str:
    """``text`` with its control characters escaped (``\\n``, ``\\x1b``): a name read from a
    manifest cannot start a forged log line or move the cursor."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def interactive() -> bool:
    """Whether a person types into this process: a Python prompt (``sys.ps1``, ``python -i``) or
    a notebook's kernel."""
    return hasattr(sys, "ps1") or bool(sys.flags.interactive) or "ipykernel" in sys.modules


def load_policy(path: str | Path, seed: int = 0, deterministic: bool = True, threads: int | None = 1) -> PolicyAgent:
    """Verify and load a policy bundle, then log one line: name, checksum, evaluation.

    Args:
        path: the bundle folder; ``policies/NAME`` finds a bundle shipped in the package from any
            folder (``agents.shipped``), as agent specs do.
        seed: seeds the sampling generator (``deterministic=False``).
        deterministic: greedy (the most probable legal action) or sampled from the policy.
        threads: once the bundle is verified, ``torch.set_num_threads(threads)`` for this
            process; None leaves torch's setting alone (a trainer that chose its own count).
            One by default because a policy decides on small batches, where extra threads only
            add synchronisation, and evaluation workers running side by side would otherwise
            fight each other for the cores. Results are identical either way; on a 2-core
            machine the speed was the same too (docs/BENCHMARKS.md, ``eval_threads.py``).

    Returns:
        A ``PolicyAgent`` (``act(view)``, ``act(observation, mask)``, ``act_arrays(obs, masks)``).

    Raises:
        BundleError: the bundle failed a check; nothing was loaded or logged, and torch's
            thread count is unchanged.
        ValueError: ``threads`` is not None or an int >= 1 (checked first).
    """
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be None or an int >= 1, got {threads!r}")
    net, manifest = load_net(packaged_bundle(str(path)) or path)  # policies/NAME from any folder
    if threads is not None:
        torch.set_num_threads(threads)
    line = "loaded policy {} from {}: weights sha256 {}, {} parameters, eval: {}".format(
        printable(str(manifest["name"])),
        printable(str(path)),
        manifest["weights_sha256"],
        sum(p.numel() for p in net.parameters()),
        describe_evaluations(manifest),
    )
    if log.hasHandlers():
        log.info(line)
    elif interactive():  # nobody configured logging, and a person is at the prompt (module docstring)
        print(line, file=sys.stderr, flush=True)
    return PolicyAgent(net, manifest, seed=seed, deterministic=deterministic)
