"""A Stable-Baselines3 model as an agent (``sb3:PATH`` on every command line).

A researcher trains ``MaskablePPO`` (sb3-contrib) or ``PPO`` with an MLP policy on our vector env
(``baloot_env.vector``, observation ``Box(697)``: ``"MlpPolicy"``) or our Gymnasium env
(``baloot_env.single``, ``Dict(action_mask, observation)``: ``"MultiInputPolicy"``), saves it with
``model.save("model.zip")``, and scores it with ``python -m eval --a sb3:model.zip --b heuristic``.

The zip is read without SB3 and without unpickling anything, so a model file cannot run code
(SB3's own ``load`` unpickles the spaces, the schedules and the policy class from ``data``):

- ``data`` is JSON: the action space must be ``Discrete(42)`` and the observation space our
  ``Box(697)`` or our ``Dict``; the activation comes from the readable ``policy_kwargs``
  (``activation_fn``'s class name, one of ``ACTIVATIONS``; SB3's default ``Tanh`` when absent);
- ``policy.pth`` is a torch state dict, read with ``weights_only=True``: the layers of
  ``mlp_extractor.policy_net`` and ``action_net`` give the actor's widths; the critic is not
  needed to play.

The actor is SB3's: the features (the observation; with the ``Dict`` space the flattened
``action_mask`` and ``observation`` joined in the space's key order, as SB3's
``CombinedExtractor`` does), each hidden layer then the activation, then ``action_net``; the
model plays its most likely legal action (SB3's ``predict(..., deterministic=True)`` with
``action_masks``). ``tests/agents/test_sb3_agent.py`` checks the actions against SB3's own
``predict`` on models trained on both envs.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.base import Agent
from baloot_env.actions import NUM_ACTIONS
from baloot_env.observation import OBS_SIZE
from baloot_env.view import PlayerView

ACTIVATIONS = {
    "Tanh": nn.Tanh,
    "ReLU": nn.ReLU,
    "ELU": nn.ELU,
    "LeakyReLU": nn.LeakyReLU,
    "GELU": nn.GELU,
    "SiLU": nn.SiLU,
}
MAX_MODEL_BYTES = 512 << 20  # a zip larger than this is not an MLP policy over 697 inputs
FLAT, DICT = "flat", "dict"  # the observation layouts: our vector env's Box, our Gymnasium env's Dict
_LAYER = re.compile(r"mlp_extractor\.policy_net\.(\d+)\.(weight|bias)")


class Sb3Error(ValueError):
    """A model file that is not an SB3 MLP policy trained on our env (one line, naming it)."""


def _read_zip(path: str) -> tuple[dict[str, Any], dict[str, torch.Tensor], str]:
    """The ``data`` JSON, the policy's state dict and the file's SHA-256."""
    p = Path(path)
    if not p.is_file():
        raise Sb3Error(f"sb3 model {path!r} does not exist or is not a file")
    if p.stat().st_size > MAX_MODEL_BYTES:
        raise Sb3Error(f"sb3 model {path!r} is larger than {MAX_MODEL_BYTES >> 20} MB")
    raw = p.read_bytes()
    try:
        with zipfile.ZipFile(p) as z:
            names = set(z.namelist())
            if not {"data", "policy.pth"} <= names:
                raise Sb3Error(f"sb3 model {path!r} has no 'data' and 'policy.pth': not a model saved by SB3")
            data = json.loads(z.read("data"))
            with z.open("policy.pth") as f:
                state = torch.load(f, map_location="cpu", weights_only=True)
    except (zipfile.BadZipFile, OSError, UnicodeDecodeError, json.JSONDecodeError, RuntimeError, EOFError) as e:
        raise Sb3Error(f"sb3 model {path!r} cannot be read: {type(e).__name__}: {e}") from None
    if not isinstance(data, dict) or not isinstance(state, dict):
        raise Sb3Error(f"sb3 model {path!r}: 'data' or 'policy.pth' is not what SB3 saves")
    return data, state, hashlib.sha256(raw).hexdigest()


def _layout(data: dict[str, Any], path: str) -> tuple[str, bool]:
    """The observation layout, and with ``DICT`` whether the mask comes first in the features."""
    action = data.get("action_space") or {}
    if "Discrete" not in str(action.get(":type:")) or str(action.get("n")) != str(NUM_ACTIONS):
        raise Sb3Error(f"sb3 model {path!r} was not trained on our actions (Discrete({NUM_ACTIONS}))")
    space = data.get("observation_space") or {}
    kind = str(space.get(":type:"))
    if "Box" in kind and str(space.get("_shape")) == f"[{OBS_SIZE}]":
        return FLAT, False
    spaces = str(space.get("spaces", ""))
    if "Dict" in kind and f"({OBS_SIZE},)" in spaces and f"({NUM_ACTIONS},)" in spaces:
        return DICT, spaces.index("'action_mask'") < spaces.index("'observation'")
    raise Sb3Error(
        f"sb3 model {path!r} was not trained on our observations (the vector env's Box({OBS_SIZE}) "
        f"or the Gymnasium env's Dict of action_mask and observation)"
    )


def _activation(data: dict[str, Any], path: str) -> type[nn.Module]:
    kwargs = data.get("policy_kwargs") or {}
    found = re.search(r"\.(\w+)'>", str(kwargs.get("activation_fn", "<class 'torch.nn.Tanh'>")))
    name = found.group(1) if found else ""
    if name not in ACTIVATIONS:
        raise Sb3Error(
            f"sb3 model {path!r}: activation {kwargs.get('activation_fn')!r} is not one of {list(ACTIVATIONS)}"
        )
    return ACTIVATIONS[name]


def _actor(state: dict[str, torch.Tensor], activation: type[nn.Module], inputs: int, path: str) -> nn.Sequential:
    """The actor of SB3's ``ActorCriticPolicy`` from its state dict (module docstring)."""
    indices = sorted({int(m.group(1)) for k in state if (m := _LAYER.fullmatch(k))})
    layers: list[nn.Module] = []
    width = inputs
    try:
        for i in indices:
            w, b = state[f"mlp_extractor.policy_net.{i}.weight"], state[f"mlp_extractor.policy_net.{i}.bias"]
            layers += [_linear(w, b, width), activation()]
            width = w.shape[0]
        head = _linear(state["action_net.weight"], state["action_net.bias"], width)
    except (KeyError, ValueError) as e:
        raise Sb3Error(f"sb3 model {path!r} is not an MLP policy over our observations: {e}") from None
    if head.out_features != NUM_ACTIONS:
        raise Sb3Error(f"sb3 model {path!r}: its action_net has {head.out_features} outputs, not {NUM_ACTIONS}")
    return nn.Sequential(*layers, head).eval()


def _linear(w: torch.Tensor, b: torch.Tensor, inputs: int) -> nn.Linear:
    if w.ndim != 2 or w.shape[1] != inputs or b.shape != (w.shape[0],):
        raise ValueError(f"a layer of shape {tuple(w.shape)} after {inputs} features")
    if not (torch.isfinite(w).all() and torch.isfinite(b).all()):
        raise ValueError("a layer with weights that are not finite")
    layer = nn.Linear(w.shape[1], w.shape[0])
    with torch.no_grad():
        layer.weight.copy_(w.float())
        layer.bias.copy_(b.float())
    return layer


class Sb3Agent(Agent):
    """An SB3 MLP policy trained on our env, playing its most likely legal action (module docstring)."""

    deterministic = True

    def __init__(self, path: str, seed: int = 0):
        super().__init__(seed)
        data, state, self.sha256 = _read_zip(path)
        self.layout, self.mask_first = _layout(data, path)
        inputs = OBS_SIZE + (NUM_ACTIONS if self.layout == DICT else 0)
        self.actor = _actor(state, _activation(data, path), inputs, path)
        self.path = path
        self.name = Path(path).stem

    def features(self, obs: np.ndarray, masks: np.ndarray) -> torch.Tensor:
        """The network's input for observations (N x 697) and masks (N x 42), as SB3 builds it."""
        x = np.asarray(obs, dtype=np.float32)
        if self.layout == DICT:
            m = np.asarray(masks, dtype=np.float32)
            x = np.concatenate([m, x] if self.mask_first else [x, m], axis=1)
        return torch.from_numpy(np.ascontiguousarray(x))

    def act(self, view: PlayerView) -> int:
        return self.act_batch([view])[0]

    def act_batch(self, views: Sequence[PlayerView]) -> list[int]:
        masks = np.stack([v.action_mask() for v in views])
        obs = np.stack([v.observation() for v in views])
        with torch.no_grad():
            logits = self.actor(self.features(obs, masks)).numpy().astype(np.float64)
        logits[masks == 0] = -math.inf
        return [int(a) for a in logits.argmax(axis=1)]

    def describe(self) -> dict[str, Any]:
        return {"agent": "sb3", "path": self.path, "sha256": self.sha256, "layout": self.layout}


def check_sb3(path: str) -> None:
    """Read and check the model at ``path`` (``Sb3Error`` naming what is wrong), as ``Sb3Agent`` does."""
    Sb3Agent(path)


__all__ = ["ACTIVATIONS", "Sb3Agent", "Sb3Error", "check_sb3"]
