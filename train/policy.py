"""MaskablePPO policy around ``BalootNet`` (what sb3-contrib does not give us).

sb3-contrib's ``MaskableActorCriticPolicy`` supplies masking, sampling, log-probs, entropy and
the PPO update; we only replace its MLP with our network so that one shared trunk feeds a
card-play head and a bidding head (joined into the 42 logits the mask filters) and a value head
that may also read the privileged part of the input.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from agents.neural.network import MASKED_LOGIT, BalootNet, NetSpec


class _Extractor(nn.Module):
    """SB3's ``mlp_extractor`` slot: actor latent = trunk output; critic latent = value body."""

    def __init__(self, net: BalootNet):
        super().__init__()
        self.net = net
        self.latent_dim_pi = net.spec.trunk[-1]
        self.latent_dim_vf = net.value_out.in_features

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.net.features(features)
        return h, self.net.value_latent(h, features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.net.features(features)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.net.value_latent(self.net.features(features), features)


class _Heads(nn.Module):
    """SB3's ``action_net`` slot: the two heads joined into 42 logits."""

    def __init__(self, net: BalootNet):
        super().__init__()
        self.net = net

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return self.net.logits_from_features(latent)


class BalootPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose networks are one ``BalootNet`` (``self.net``).

    ``precision``: the number format of the network's matrix work in the PPO update
    (``evaluate_actions``): "fp32", or "bf16" (autocast; the weights, the gradients, the
    distribution and the losses stay fp32). The rollouts' forward passes are fp32 either way.
    """

    def __init__(self, *args: Any, net_spec: dict[str, Any] | None = None, precision: str = "fp32", **kwargs: Any):
        if precision not in ("fp32", "bf16"):  # resolved (agents.neural.precision.resolve_precision)
            raise ValueError(f"precision must be 'fp32' or 'bf16', got {precision!r}")
        self.precision = precision
        self._net_spec = NetSpec.from_dict(net_spec) if net_spec else NetSpec()
        kwargs.setdefault("ortho_init", True)
        # sb3-contrib's Adam (eps 1e-5), fused: one kernel for every parameter's step (on our
        # network's small minibatches the per-tensor step was a sixth of a minibatch's time)
        kwargs.setdefault("optimizer_kwargs", {"eps": 1e-5, "fused": True})
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.net = BalootNet(self._net_spec)
        self.mlp_extractor = _Extractor(self.net)  # type: ignore[assignment]  # SB3 reads only its latent sizes and forward

    def _build(self, lr_schedule: Any) -> None:
        self._build_mlp_extractor()
        self.action_net = _Heads(self.net)
        self.value_net = self.net.value_out
        if self.ortho_init:
            for module, gain in ((self.net.trunk, np.sqrt(2)), (self.net.value_body, np.sqrt(2))):
                module.apply(partial(self.init_weights, gain=gain))
            for head in (self.net.card_head, self.net.bid_head):
                head[0].apply(lambda m: self.init_weights(m, gain=np.sqrt(2)))
                head[2].apply(lambda m: self.init_weights(m, gain=0.01))
            self.init_weights(self.net.value_out, gain=1.0)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)  # type: ignore[call-arg]  # SB3 types the class as the base Optimizer

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["net_spec"] = self._net_spec.to_dict()
        return data

    def forward(
        self, obs: torch.Tensor, deterministic: bool = False, action_masks: np.ndarray | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Actions sampled from the masked policy, values and the actions' log-probabilities, as
        sb3-contrib's forward gives them (the same ``torch.multinomial`` draw on the same
        probabilities), computed on the logits directly: the rollouts call this every step."""
        features = self.extract_features(obs)
        assert isinstance(features, torch.Tensor)  # one features extractor, shared (share_features_extractor)
        h = self.net.features(features)
        logits = self.net.logits_from_features(h)
        values = self.value_net(self.net.value_latent(h, features))
        if action_masks is None:
            legal = torch.ones_like(logits, dtype=torch.bool)
        else:
            legal = torch.as_tensor(action_masks, device=logits.device).reshape(logits.shape).bool()
        log_p = torch.log_softmax(torch.where(legal, logits, MASKED_LOGIT), dim=-1)
        if deterministic:
            actions = log_p.argmax(-1)
        else:
            actions = torch.multinomial(log_p.exp(), 1, True).squeeze(-1)
        return actions, values, log_p.gather(-1, actions.reshape(-1, 1)).squeeze(-1)

    def evaluate_actions(
        self, obs: torch.Tensor, actions: torch.Tensor, action_masks: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """Values, log-probabilities of ``actions`` and entropies under the masked policy, as
        sb3-contrib's (illegal actions at ``MASKED_LOGIT``, their terms left out of the entropy),
        computed on the logits directly (no distribution object: the update calls this for every
        minibatch), with the network's matrix work in ``precision`` (class docstring)."""
        features = self.extract_features(obs)
        assert isinstance(features, torch.Tensor)  # one features extractor, shared (share_features_extractor)
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.precision == "bf16"):
            h = self.net.features(features)
            logits = self.net.logits_from_features(h)
            values = self.value_net(self.net.value_latent(h, features))
        logits = logits.float()
        legal = torch.ones_like(logits, dtype=torch.bool) if action_masks is None else action_masks.bool()
        log_p = torch.log_softmax(torch.where(legal, logits, MASKED_LOGIT), dim=-1)
        log_prob = log_p.gather(-1, actions.long().reshape(-1, 1)).squeeze(-1)
        entropy = -torch.where(legal, log_p.exp() * log_p, 0.0).sum(-1)
        return values.float(), log_prob, entropy
