"""A trained network as an agent, with the array-level API that other programs use.

``PolicyAgent`` plays through the ``Agent`` interface (``act(view)``, ``act_batch(views)``) in
evaluation and self-play, and through plain arrays anywhere else: a game server holds an
observation vector (``baloot_env.observation.encode``, ``OBS_SIZE`` floats) and the int8 legal
mask of length 42 (R9, R11.3), so

    policy.act(observation, mask)          # one decision -> action id
    policy.act_arrays(observations, masks) # a batch (N x OBS_SIZE, N x 42) -> N action ids
    policy.probabilities(observations, masks), policy.logits_and_value(observations, masks)

Greedy (``deterministic=True``: the legal action with the largest logit) or sampled from the
masked softmax with the agent's own ``numpy`` generator (seeded by ``seed`` / ``reset``).
Illegal actions are never chosen: their logits are set to ``MASKED_LOGIT`` and their
probabilities to exactly 0. Only torch and numpy are needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from agents.base import Agent
from agents.neural.network import BalootNet
from baloot_env.actions import NUM_ACTIONS
from baloot_env.view import PlayerView


def sample_masked(probs: np.ndarray, rng: np.random.Generator) -> list[int]:
    """One action a row drawn from ``probs`` (N x 42, zero on illegal actions, rows need not
    sum to 1), one ``rng.random`` draw a row: the one masked sampler of every network player.

    Inverse CDF: the first action whose cumulative probability exceeds ``u``, uniform in
    [0, row total). That action has positive probability, so an illegal action (probability 0)
    is never drawn, even at u = 0; the fallback (u rounded up to the total) takes the last action
    with positive probability.
    """
    cum = np.cumsum(probs, axis=1)
    u = rng.random(len(probs)) * cum[:, -1]
    picks = (cum <= u[:, None]).sum(axis=1)
    last = NUM_ACTIONS - 1 - np.argmax(probs[:, ::-1] > 0, axis=1)
    return [int(a) for a in np.where(picks > last, last, picks)]


class PolicyAgent(Agent):
    """A ``BalootNet`` as an agent; greedy (``deterministic``) or sampling from its policy."""

    def __init__(
        self, net: BalootNet, manifest: dict[str, Any] | None = None, seed: int = 0, deterministic: bool = True
    ):
        super().__init__(seed)
        self.net = net.eval()
        self.manifest = manifest or {}
        self.name = self.manifest.get("name", "policy")
        self.deterministic = deterministic
        self.obs_size = net.spec.obs_size
        self._np_rng = np.random.default_rng(seed)

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self._np_rng = np.random.default_rng(seed)

    # ------------------------------------------------------------------ Agent interface
    def act(self, view: PlayerView | np.ndarray, mask: np.ndarray | None = None) -> int:
        """One action: ``act(view)`` (the ``Agent`` interface) or ``act(observation, mask)``.

        Args:
            view: a ``PlayerView``, or an observation vector of ``OBS_SIZE`` floats.
            mask: with an observation, its legal-action mask (42 entries, nonzero = legal).

        Raises:
            ValueError: wrong shapes, or a mask without a legal action.
        """
        if isinstance(view, PlayerView):
            if mask is not None:
                raise ValueError("act(view) takes the mask from the view; pass a mask only with an observation")
            return self.act_batch([view])[0]
        if mask is None:
            raise ValueError("act(observation, mask) needs the legal-action mask")
        return self.act_arrays(np.asarray(view)[None], np.asarray(mask)[None])[0]

    def act_batch(self, views: Sequence[PlayerView]) -> list[int]:
        """Actions for several views at once (one forward pass)."""
        obs = np.stack([v.observation() for v in views])
        masks = np.stack([v.action_mask() for v in views])
        return self.act_arrays(obs, masks)

    # ------------------------------------------------------------------ arrays
    def _check(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.asarray(obs, dtype=np.float32)
        masks = np.asarray(masks)
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(f"observations must have shape (N, {self.obs_size}), got {obs.shape}")
        if masks.shape != (obs.shape[0], NUM_ACTIONS):
            raise ValueError(f"masks must have shape ({obs.shape[0]}, {NUM_ACTIONS}), got {masks.shape}")
        legal = masks != 0
        empty = np.flatnonzero(~legal.any(axis=1))
        if empty.size:
            raise ValueError(f"every mask needs at least one legal action; rows {empty[:5].tolist()} have none")
        return obs, legal.astype(np.int8)

    def logits_and_value(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Masked logits (N x 42, illegal at ``MASKED_LOGIT``) and values (N) for a batch."""
        obs, masks = self._check(obs, masks)
        with torch.no_grad():
            logits, value = self.net(torch.from_numpy(obs), torch.from_numpy(masks))
        return logits.numpy(), value.numpy()

    def logits(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``logits_and_value``'s logits alone, without the value head (every move of a game)."""
        obs, masks = self._check(obs, masks)
        with torch.no_grad():
            out: np.ndarray = self.net.policy_logits(torch.from_numpy(obs), torch.from_numpy(masks)).numpy()
        return out

    def probabilities(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy (N x 42, float64): the masked softmax, exactly 0 on illegal actions."""
        z = self.logits(obs, masks).astype(np.float64)
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z) * (np.asarray(masks) != 0)
        out: np.ndarray = p / p.sum(axis=1, keepdims=True)
        return out

    def act_arrays(self, obs: np.ndarray, masks: np.ndarray, deterministic: bool | None = None) -> list[int]:
        """Actions for a batch of observations (N x ``OBS_SIZE``) and masks (N x 42).

        Args:
            obs, masks: the batch; a mask entry is legal when nonzero.
            deterministic: override the agent's setting for this call (None: keep it).
        """
        greedy = self.deterministic if deterministic is None else deterministic
        if greedy:
            return [int(a) for a in self.logits(obs, masks).argmax(axis=1)]
        return sample_masked(self.probabilities(obs, masks), self._np_rng)

    def describe(self) -> dict[str, Any]:
        return {"agent": self.name, "weights_sha256": self.manifest.get("weights_sha256")}
