"""The RLlib module: our ``BalootNet`` as an RLModule.

``BalootRLModule`` holds one ``agents.neural.network.BalootNet`` (``self.net``), the very network the
SB3 backend trains and the policy bundles hold: shared trunk, card-play head (actions 0-31),
bidding head (32-41), the legal-action mask applied to the logits (illegal actions at
``MASKED_LOGIT``, as ``BalootNet.forward``), and the value head, which with
``net.privileged_critic`` also reads the four hands (the observation's ``privileged`` part,
training only). Its weights are ``self.net``'s state dict, key for key, so an RLlib checkpoint
becomes a policy bundle without any translation (``train.rllib.checkpoint``). The opponents (frozen
snapshots, champions, the rule agents) are not RLlib modules: they play inside the EnvRunners'
games (``train.rllib.vector_env``).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

from agents.neural.network import MASKED_LOGIT, BalootNet, NetSpec


def _orthogonal(module: nn.Module, gain: float) -> None:
    """Orthogonal weights and zero biases, as SB3's ``init_weights`` (``train.policy``)."""
    for m in module.modules():
        if isinstance(m, nn.Linear):
            nn.init.orthogonal_(m.weight, gain=gain)
            nn.init.zeros_(m.bias)


def init_like_sb3(net: BalootNet) -> None:
    """The SB3 backend's initialisation (``train.policy.BalootPolicy._build``): trunk and value
    body with gain sqrt 2, each head's hidden layer sqrt 2 and its output 0.01, value output 1."""
    _orthogonal(net.trunk, np.sqrt(2))
    _orthogonal(net.value_body, np.sqrt(2))
    for head in (net.card_head, net.bid_head):
        _orthogonal(head[0], np.sqrt(2))
        _orthogonal(head[2], 0.01)
    _orthogonal(net.value_out, 1.0)


def masked_logits(net: BalootNet, h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The 42 logits of trunk output ``h`` with the illegal actions at ``MASKED_LOGIT`` (R9)."""
    logits = net.logits_from_features(h)
    return torch.where(mask > 0.5, logits, torch.full_like(logits, MASKED_LOGIT))


class BalootRLModule(TorchRLModule, ValueFunctionAPI):
    """``BalootNet`` as the learner's RLModule: masked logits and the value head.

    ``model_config``: ``{"net": NetSpec dict, "init": "sb3" | "torch", "precision": "fp32" |
    "bf16"}``; "sb3" (default) gives the SB3 backend's orthogonal initialisation; ``precision``
    (resolved, ``train.hardware``) is the number format of the update's matrix work, as
    ``ppo.precision`` in the SB3 backend (the rollouts' forward passes are fp32 either way).
    """

    @property
    def settings(self) -> dict[str, Any]:
        """``model_config`` as the plain dict this module is always given (class docstring)."""
        return cast(dict[str, Any], self.model_config)

    def setup(self) -> None:
        self.spec = NetSpec.from_dict(self.settings["net"])
        self.net = BalootNet(self.spec)
        if self.settings.get("init", "sb3") == "sb3":
            init_like_sb3(self.net)

    def _autocast(self) -> torch.autocast:
        """bf16 autocast for the update when ``precision`` says so (weights, gradients and the
        optimizer stay fp32, as in the SB3 backend), else a no-op."""
        device = next(self.net.parameters()).device.type
        return torch.autocast(device, dtype=torch.bfloat16, enabled=self.settings.get("precision") == "bf16")

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        h = self.net.features(obs["observations"])
        return {Columns.ACTION_DIST_INPUTS: masked_logits(self.net, h, obs["action_mask"])}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        with self._autocast():
            h = self.net.features(obs["observations"])
            logits = masked_logits(self.net, h, obs["action_mask"])
        return {Columns.ACTION_DIST_INPUTS: logits.float(), Columns.EMBEDDINGS: h}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The value head on the trunk output (and, with the privileged critic, the four hands)."""
        obs = batch[Columns.OBS]
        with self._autocast():
            h = embeddings if embeddings is not None else self.net.features(obs["observations"])
            full = obs["observations"]
            if self.spec.privileged_critic:
                full = torch.cat([full, obs["privileged"]], dim=-1)
            out: torch.Tensor = self.net.value_out(self.net.value_latent(h, full)).squeeze(-1)
        return out.float()


def net_state(module_state: dict[str, Any]) -> dict[str, torch.Tensor]:
    """``BalootNet`` weights (copies) from a ``BalootRLModule`` state (``net.*``).

    Raises:
        ValueError: the state holds no ``net.`` weights.
    """
    # copies: arrays from the object store are read-only, and the weights must not share memory with the module
    out = {k[len("net.") :]: torch.from_numpy(np.array(v)) for k, v in module_state.items() if k.startswith("net.")}
    if not out:
        raise ValueError(f"not a Baloot RLModule state: no 'net.' weights among {sorted(module_state)[:5]}")
    return out


def net_from_module_state(spec: NetSpec, module_state: dict[str, Any]) -> BalootNet:
    """A ``BalootNet`` of ``spec`` holding the module's weights (strict: every tensor must fit)."""
    net = BalootNet(spec)
    net.load_state_dict(net_state(module_state))
    net.eval()
    return net
