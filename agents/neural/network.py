"""The policy network: one shared trunk, a card-play head, a bidding head and a value head.

Plain torch, no stable-baselines3: the same module is trained inside MaskablePPO
(``train.policy``) and loaded for play from a bundle (``agents.neural.bundle``).

Input: the observation vector (``baloot_env.observation``), optionally followed by the
privileged part (``baloot_env.observation.HIDDEN_HANDS``: all four hands, relative seats, 4 x 32) that only the value head reads,
during training only. Output: 42 logits, actions 0-31 from the card-play head and 32-41 (bids
and doubling calls) from the bidding head (R9); the legal-action mask then filters them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from agents.neural.card_inputs import CARD_DESIGNS, CardReader, reader_width
from baloot_env.actions import NUM_CALL_ACTIONS, NUM_CARD_ACTIONS
from baloot_env.observation import OBS_SIZE, PRIVILEGED_SIZE

NUM_BID_ACTIONS = NUM_CALL_ACTIONS  # the bidding head: pass, the calls and the raises (R9)
MASKED_LOGIT = -1e8


MAX_LAYERS, MAX_WIDTH = 8, 4096  # an architecture past these is not one of ours (and would fill the memory)


def _is_width(w: Any) -> bool:
    return not isinstance(w, bool) and isinstance(w, int) and 1 <= w <= MAX_WIDTH


@dataclass(frozen=True)
class NetSpec:
    """Architecture of a ``BalootNet`` (saved in checkpoints and bundle manifests)."""

    trunk: tuple[int, ...] = (256, 256)
    head_hidden: int = 128
    value_hidden: tuple[int, ...] = (128,)
    privileged_critic: bool = False
    obs_size: int = OBS_SIZE
    cards: str = "flat"  # how the card-set pieces are read (``agents.neural.card_inputs``)
    card_width: int = 8  # the features per card (``cards``) or per suit (``suits``)

    def __post_init__(self) -> None:
        """Refuse an architecture that cannot be built, or one far past any network of ours (a
        bundle's manifest or a config may say anything): ``ValueError`` naming the field."""

        def widths(name: str, value: Any, least: int) -> None:
            ok = isinstance(value, tuple) and least <= len(value) <= MAX_LAYERS
            if not ok or not all(_is_width(w) for w in value):
                raise ValueError(
                    f"net {name} must be {least} to {MAX_LAYERS} layer widths of 1 to {MAX_WIDTH}, got {value!r}"
                )

        widths("trunk", self.trunk, 1)
        widths("value_hidden", self.value_hidden, 0)
        if not _is_width(self.head_hidden):
            raise ValueError(f"net head_hidden must be a width of 1 to {MAX_WIDTH}, got {self.head_hidden!r}")
        if not isinstance(self.privileged_critic, bool):
            raise ValueError(f"net privileged_critic must be true or false, got {self.privileged_critic!r}")
        if isinstance(self.obs_size, bool) or not isinstance(self.obs_size, int) or self.obs_size < 1:
            raise ValueError(f"net obs_size must be a positive integer, got {self.obs_size!r}")
        if self.cards not in CARD_DESIGNS:
            raise ValueError(f"net cards must be one of {', '.join(CARD_DESIGNS)}, got {self.cards!r}")
        if not _is_width(self.card_width):
            raise ValueError(f"net card_width must be a width of 1 to {MAX_WIDTH}, got {self.card_width!r}")
        if self.cards != "flat" and self.obs_size != OBS_SIZE:
            raise ValueError(f"net cards {self.cards!r} reads this code's observation (size {OBS_SIZE})")

    def to_dict(self) -> dict[str, Any]:
        return {
            "trunk": list(self.trunk),
            "head_hidden": self.head_hidden,
            "value_hidden": list(self.value_hidden),
            "privileged_critic": self.privileged_critic,
            "obs_size": self.obs_size,
            "cards": self.cards,
            "card_width": self.card_width,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> NetSpec:
        return cls(
            trunk=tuple(d["trunk"]),
            head_hidden=d["head_hidden"],
            value_hidden=tuple(d["value_hidden"]),
            privileged_critic=d["privileged_critic"],
            obs_size=d["obs_size"],
            cards=d.get("cards", "flat"),  # networks saved before the input designs read every card flat
            card_width=d.get("card_width", 8),
        )


def _mlp(sizes: list[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers)


class BalootNet(nn.Module):
    """Shared trunk -> (card head, bid head) logits and a value head."""

    def __init__(self, spec: NetSpec):
        super().__init__()
        self.spec = spec
        self.card_reader = None if spec.cards == "flat" else CardReader(spec.cards, spec.card_width)
        self.trunk = _mlp([reader_width(spec.cards, spec.card_width, spec.obs_size), *spec.trunk])
        width = spec.trunk[-1]
        self.card_head = nn.Sequential(
            nn.Linear(width, spec.head_hidden), nn.ReLU(), nn.Linear(spec.head_hidden, NUM_CARD_ACTIONS)
        )
        self.bid_head = nn.Sequential(
            nn.Linear(width, spec.head_hidden), nn.ReLU(), nn.Linear(spec.head_hidden, NUM_BID_ACTIONS)
        )
        value_in = width + (PRIVILEGED_SIZE if spec.privileged_critic else 0)
        self.value_body = _mlp([value_in, *spec.value_hidden])
        self.value_out = nn.Linear(spec.value_hidden[-1] if spec.value_hidden else value_in, 1)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        """Trunk output from the observation part of the input."""
        x = obs[..., : self.spec.obs_size]
        out: torch.Tensor = self.trunk(x if self.card_reader is None else self.card_reader(x))
        return out

    def logits_from_features(self, h: torch.Tensor) -> torch.Tensor:
        """42 logits: card head for 0-31, bidding head for 32-41 (R9)."""
        return torch.cat([self.card_head(h), self.bid_head(h)], dim=-1)

    def value_latent(self, h: torch.Tensor, full_input: torch.Tensor) -> torch.Tensor:
        if self.spec.privileged_critic:
            priv = full_input[..., self.spec.obs_size : self.spec.obs_size + PRIVILEGED_SIZE]
            if priv.shape[-1] != PRIVILEGED_SIZE:  # play time: no hidden cards, zeros instead
                priv = torch.zeros(*h.shape[:-1], PRIVILEGED_SIZE, dtype=h.dtype, device=h.device)
            h = torch.cat([h, priv], dim=-1)
        out: torch.Tensor = self.value_body(h)
        return out

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (illegal actions at -1e8) and the value, for a batch."""
        h = self.features(obs)
        value = self.value_out(self.value_latent(h, obs)).squeeze(-1)
        return _masked(self.logits_from_features(h), mask), value

    def value(self, full_input: torch.Tensor) -> torch.Tensor:
        """``forward``'s value alone, without the policy heads (a search leaf's estimate)."""
        out: torch.Tensor = self.value_out(self.value_latent(self.features(full_input), full_input)).squeeze(-1)
        return out

    def card_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The card head's 32 logits, unmasked (a playout's card play, where only cards are legal)."""
        out: torch.Tensor = self.card_head(self.features(obs))
        return out

    def policy_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """``forward``'s masked logits alone, without the value head (an opponent's move)."""
        return _masked(self.logits_from_features(self.features(obs)), mask)


def _masked(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.where(mask.bool(), logits, torch.full_like(logits, MASKED_LOGIT))


def _linears(seq: nn.Sequential) -> list[nn.Linear]:
    return [m for m in seq if isinstance(m, nn.Linear)]


class StackedNets:
    """Several ``BalootNet``s of one architecture evaluated as one batched pass: each layer's
    weights stacked (nets x in x out), each net's rows a block of a padded batch, one
    ``baddbmm`` a layer instead of a forward a net. Self-play's opponent pool asks all its
    snapshots this way (``train.opponents``): their games are a few rows each, where a forward's
    fixed cost is most of its time. The nets are read when the stack is built (frozen copies).
    ``dtype``: the number format of the stacked weights and the matrix work (``torch.bfloat16``
    where the processor does it in hardware: ``train.hardware``); the logits come out fp32."""

    def __init__(self, nets: list[BalootNet], dtype: torch.dtype = torch.float32):
        spec = nets[0].spec
        if any(n.spec != spec for n in nets):
            raise ValueError("a stack takes networks of one architecture")
        if spec.cards != "flat":
            raise ValueError(f"a stack takes networks that read the cards flat, not {spec.cards!r}")
        self.spec, self.size, self.dtype = spec, len(nets), dtype

        def stack(layers: list[list[nn.Linear]]) -> list[tuple[torch.Tensor, torch.Tensor]]:
            out = []
            for per_net in zip(*layers, strict=True):
                w = torch.stack([m.weight.detach().t() for m in per_net])  # nets x in x out
                b = torch.stack([m.bias.detach() for m in per_net])[:, None, :]  # nets x 1 x out
                out.append((w.to(dtype).contiguous(), b.to(dtype).contiguous()))
            return out

        self.trunk = stack([_linears(n.trunk) for n in nets])
        self.card_head = stack([_linears(n.card_head) for n in nets])
        self.bid_head = stack([_linears(n.bid_head) for n in nets])

    @staticmethod
    def _mlp(x: torch.Tensor, layers: list[tuple[torch.Tensor, torch.Tensor]], last_relu: bool) -> torch.Tensor:
        for k, (w, b) in enumerate(layers):
            x = torch.baddbmm(b, x, w)
            if last_relu or k < len(layers) - 1:
                x = torch.relu(x)
        return x

    @torch.inference_mode()
    def policy_logits(self, obs: torch.Tensor, mask: torch.Tensor, which: torch.Tensor) -> torch.Tensor:
        """``BalootNet.policy_logits`` of net ``which[i]`` on row ``i`` (equal up to float
        rounding), for all rows at once."""
        counts = torch.bincount(which, minlength=self.size)
        width = int(counts.max())
        starts = torch.cumsum(counts, 0) - counts
        order = torch.argsort(which, stable=True)
        slot = torch.empty_like(which)
        slot[order] = torch.arange(len(which)) - starts[which[order]]  # each row's place in its net's block
        x = torch.zeros(self.size, width, self.spec.obs_size, dtype=self.dtype)
        x[which, slot] = obs[:, : self.spec.obs_size].to(self.dtype)
        h = self._mlp(x, self.trunk, last_relu=True)
        logits = torch.cat([self._mlp(h, self.card_head, False), self._mlp(h, self.bid_head, False)], dim=-1)
        return _masked(logits[which, slot].float(), mask)
