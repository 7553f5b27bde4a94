"""The RLlib modules: our ``BalootNet`` as an RLModule, and the two rule agents.

``BalootRLModule`` holds one ``agents.neural.network.BalootNet`` (``self.net``), the very network the
SB3 backend trains and the policy bundles hold: shared trunk, card-play head (actions 0-31),
bidding head (32-41), the legal-action mask applied to the logits (illegal actions at
``MASKED_LOGIT``, as ``BalootNet.forward``), and the value head, which with
``net.privileged_critic`` also reads the four hands (the observation's ``privileged`` part,
training only). Its weights are ``self.net``'s state dict, key for key, so an RLlib checkpoint
becomes a policy bundle without any translation (``train.rllib.bundle``).

``FrozenBalootRLModule`` is the same network without the value function: the frozen snapshots
(``main_v1``, ...) and champions the learner plays against. Without ``ValueFunctionAPI`` RLlib's
advantage estimation skips their (never trained) data.

``HeuristicRLModule`` plays the action the environment computed with the rule-based
``heuristic`` agent from the seat's own ``PlayerView`` (``heuristic_action``,
``train.rllib.env``); ``RandomRLModule`` plays uniformly among the legal actions. Neither is
ever trained (``policies_to_train=["main"]``).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
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


class FrozenBalootRLModule(TorchRLModule):
    """``BalootNet`` as an RLModule that acts (masked logits) but has no value function.

    ``model_config``: ``{"net": NetSpec dict}``.
    """

    @property
    def settings(self) -> dict[str, Any]:
        """``model_config`` as the plain dict this module is always given (module docstring)."""
        return cast(dict[str, Any], self.model_config)

    def setup(self) -> None:
        self.spec = NetSpec.from_dict(self.settings["net"])
        self.net = BalootNet(self.spec)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        h = self.net.features(obs["observations"])
        return {Columns.ACTION_DIST_INPUTS: masked_logits(self.net, h, obs["action_mask"])}


class BalootRLModule(FrozenBalootRLModule, ValueFunctionAPI):
    """The learner's module: ``BalootNet`` with its value head (``ValueFunctionAPI``).

    ``model_config``: ``{"net": NetSpec dict, "init": "sb3" | "torch"}``; "sb3" (default) gives
    the SB3 backend's orthogonal initialisation.
    """

    def setup(self) -> None:
        super().setup()
        if self.settings.get("init", "sb3") == "sb3":
            init_like_sb3(self.net)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        h = self.net.features(obs["observations"])
        return {Columns.ACTION_DIST_INPUTS: masked_logits(self.net, h, obs["action_mask"]), Columns.EMBEDDINGS: h}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The value head on the trunk output (and, with the privileged critic, the four hands)."""
        obs = batch[Columns.OBS]
        h = embeddings if embeddings is not None else self.net.features(obs["observations"])
        full = obs["observations"]
        if self.spec.privileged_critic:
            full = torch.cat([full, obs["privileged"]], dim=-1)
        out: torch.Tensor = self.net.value_out(self.net.value_latent(h, full)).squeeze(-1)
        return out


class _RuleModule(RLModule):
    """A module that picks actions itself (no logits) and is never trained."""

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._forward_inference(batch, **kwargs)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise RuntimeError(
            f"{type(self).__name__} is a rule agent and is never trained (policies_to_train excludes it)"
        )

    def compile(self, *args: Any, **kwargs: Any) -> None:  # TorchRLModule's hook, nothing to compile
        pass


class HeuristicRLModule(_RuleModule):
    """Plays the ``heuristic`` agent's action, computed by the env from the seat's view."""

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        actions = np.asarray(batch[Columns.OBS]["heuristic_action"]).reshape(-1).astype(np.int64)
        return {Columns.ACTIONS: actions}


class RandomRLModule(_RuleModule):
    """Uniform over the legal actions (the ``random`` agent).

    Its generator is drawn from numpy's global one, which RLlib seeds in every EnvRunner from
    the run's seed and the runner's index (``config.debugging(seed=...)``).
    """

    def setup(self) -> None:
        self.rng = np.random.default_rng(np.random.randint(2**31))

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        masks = np.asarray(batch[Columns.OBS]["action_mask"]) > 0.5
        u = self.rng.random(masks.shape) * masks  # the largest of uniform draws on the legal actions
        return {Columns.ACTIONS: u.argmax(axis=1).astype(np.int64)}


def net_state(module_state: dict[str, Any]) -> dict[str, torch.Tensor]:
    """``BalootNet`` weights (copies) from a ``BalootRLModule`` / ``FrozenBalootRLModule`` state (``net.*``).

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
