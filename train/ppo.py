"""One learner process of a run: its opponents, games and MaskablePPO, and the PPO update.

``build_learner`` makes what every learner process of a run has (``train.learners`` runs more
than one, ``ppo.processes``): an ``OpponentPool``, ``n_envs / processes`` self-play games and a
``BalootPPO`` taking ``batch_size / processes`` of each minibatch. Rank 0 is the trainer's own
(``train.trainer.Trainer``); its seeds are the run's seeds, so one process plays the run it
always played, and rank ``r`` adds ``r * RANK_SEED_STRIDE`` to each.

``BalootPPO.train`` is sb3-contrib's MaskablePPO update (clipped surrogate, value loss, entropy
bonus, per-minibatch advantage normalisation, gradient clipping; the same figures logged under
the same names) written out, for two reasons: between the backward pass and the clipping the
gradients are averaged over the run's processes (``GradientExchange``), and each minibatch's
advantages are normalised by the statistics of the whole minibatch, across processes; so the
processes together make the update one process would make on the whole batch, and stay
identical. It supports what the config can ask for: no value clipping, no ``target_kl``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import explained_variance
from torch.nn import functional as F

from agents.neural.precision import resolve_precision
from train.config import TrainConfig
from train.hardware import resolve_device
from train.opponents import OpponentPool
from train.policy import BalootPolicy
from train.selfplay import SelfPlayVecEnv

if TYPE_CHECKING:
    from train.exchange import GradientExchange

RANK_SEED_STRIDE = 1_000_003  # rank r's seeds are the run's plus r times this


class BalootPPO(MaskablePPO):
    """MaskablePPO with the update written out (module docstring); ``after_update`` is called
    once each update is done (the run's schedule point), ``exchange`` averages the gradients
    over the run's processes (None: one process)."""

    exchange: GradientExchange | None = None

    def __init__(self, *args: Any, after_update: Callable[[], object] | None = None, **kwargs: Any):
        if kwargs.get("clip_range_vf") is not None or kwargs.get("target_kl") is not None:
            raise ValueError("BalootPPO's update has no value clipping and no target_kl")
        super().__init__(*args, **kwargs)
        self.after_update = after_update

    def train(self) -> None:
        policy = self.policy
        policy.set_training_mode(True)
        self._update_learning_rate(policy.optimizer)
        clip = float(self.clip_range(self._current_progress_remaining))  # type: ignore[operator]  # SB3 makes it a schedule
        params = [p for p in policy.parameters() if p.requires_grad]
        figures: dict[str, list[torch.Tensor]] = {k: [] for k in ("pg", "value", "entropy", "clip", "kl")}
        for _ in range(self.n_epochs):
            batches = list(self.rollout_buffer.get(self.batch_size))
            norms = self._advantage_norms([b.advantages for b in batches])
            for data, (mean, std) in zip(batches, norms, strict=True):
                values, log_prob, entropy = policy.evaluate_actions(
                    data.observations, data.actions.long().flatten(), action_masks=data.action_masks
                )
                advantages = (data.advantages - mean) / (std + 1e-8)
                log_ratio = log_prob - data.old_log_prob
                ratio = torch.exp(log_ratio)
                pg_loss = -torch.min(advantages * ratio, advantages * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
                value_loss = F.mse_loss(data.returns, values.flatten())
                entropy_loss = -torch.mean(entropy) if entropy is not None else torch.mean(log_prob)
                loss = pg_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
                policy.optimizer.zero_grad()
                loss.backward()  # type: ignore[no-untyped-call]  # torch's stub
                if self.exchange is not None:
                    self.exchange.average_gradients(params)
                torch.nn.utils.clip_grad_norm_(params, self.max_grad_norm)
                policy.optimizer.step()
                with torch.no_grad():
                    for key, value in (
                        ("pg", pg_loss),
                        ("value", value_loss),
                        ("entropy", entropy_loss),
                        ("clip", ((ratio - 1).abs() > clip).float().mean()),
                        ("kl", ((ratio - 1) - log_ratio).mean()),
                    ):
                        figures[key].append(value.detach())
            self._n_updates += 1
        means = {k: float(torch.stack(v).mean()) for k, v in figures.items()}
        buffer = self.rollout_buffer
        record = self.logger.record
        record("train/entropy_loss", means["entropy"])
        record("train/policy_gradient_loss", means["pg"])
        record("train/value_loss", means["value"])
        record("train/approx_kl", means["kl"])
        record("train/clip_fraction", means["clip"])
        record("train/loss", float(loss.detach()))
        record("train/explained_variance", explained_variance(buffer.values.flatten(), buffer.returns.flatten()))
        record("train/n_updates", self._n_updates, exclude="tensorboard")
        record("train/clip_range", clip)
        if self.after_update is not None:
            self.after_update()

    def _advantage_norms(self, advantages: list[torch.Tensor]) -> list[tuple[float, float]]:
        """(mean, standard deviation) of each minibatch's advantages over every process's share
        of it (one exchange an epoch): what normalising the whole minibatch would use."""
        sums = torch.tensor(
            [[float(a.double().sum()), float((a.double() ** 2).sum()), a.numel()] for a in advantages],
            dtype=torch.float64,
        )  # on the CPU, where the exchange's shared memory is, whatever the run's device
        if self.exchange is not None:
            sums = self.exchange.sum(sums)
        out = []
        for total, squares, n in sums.tolist():
            mean = total / n
            out.append((mean, max((squares - n * mean * mean) / max(n - 1, 1), 0.0) ** 0.5))
        return out


def build_learner(
    cfg: TrainConfig, rank: int = 0, backend: str = "core", after_update: Callable[[], object] | None = None
) -> tuple[OpponentPool, SelfPlayVecEnv, BalootPPO]:
    """Learner process ``rank``'s opponent pool, games and model (module docstring); the model
    calls ``after_update`` after each update."""
    p = cfg.ppo
    device = resolve_device(cfg.device)  # the learner's network; the games and opponents stay on the CPU
    seed = cfg.seed + rank * RANK_SEED_STRIDE
    spec = cfg.net.spec()
    pool = OpponentPool(cfg.opponents, spec, seed + 1000, resolve_precision(p.precision, "cpu"))
    venv = SelfPlayVecEnv(
        p.n_envs // p.processes, cfg.env, pool, seed + 2000, cfg.net.privileged_critic, backend=backend
    )
    model = BalootPPO(
        BalootPolicy,
        venv,
        learning_rate=p.learning_rate,
        n_steps=p.n_steps,
        batch_size=p.batch_size // p.processes,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        seed=seed,
        device=device,
        policy_kwargs={"net_spec": spec.to_dict(), "precision": resolve_precision(p.precision, device)},
        verbose=0,
        after_update=after_update,
    )
    # SB3 seeds the env with the model's seed (MaskablePPO(seed=...)); the games keep their own
    # seed, applied at the first reset (BalootVecEnv.seed).
    venv.seed(seed + 2000)
    return pool, venv, model


def learner_state(model: BalootPPO, pool: OpponentPool, venv: SelfPlayVecEnv) -> dict[str, Any]:
    """What one learner process needs to continue exactly, besides the weights and the
    optimizer (which every process shares): its games, pool, position in them and generators."""
    return {
        "num_timesteps": int(model.num_timesteps),
        "last_obs": _to_tensor(cast(np.ndarray, model._last_obs)),  # our VecEnv observes arrays, not dicts
        "last_episode_starts": _to_tensor(model._last_episode_starts),
        "pool": pool.state(),
        "games": venv.state(),
        "rng": {"python": random.getstate(), "numpy": _numpy_rng_state(), "torch": torch.get_rng_state()},
    }


def restore_learner(model: BalootPPO, pool: OpponentPool, venv: SelfPlayVecEnv, data: dict[str, Any]) -> None:
    """Restore ``learner_state``; raises KeyError, TypeError or ValueError on data that does not fit."""
    model.num_timesteps = int(data["num_timesteps"])
    model._last_obs = _from_tensor(data["last_obs"], (venv.num_envs, *(venv.observation_space.shape or ())))
    model._last_episode_starts = _from_tensor(data["last_episode_starts"], (venv.num_envs,))
    pool.load_state(data["pool"])
    venv.load_state(data["games"])
    rng = data["rng"]
    version, internal, gauss = rng["python"]
    random.setstate((version, tuple(internal), gauss))
    n = rng["numpy"]
    np.random.set_state((n["key"], np.array(n["keys"], dtype=np.uint32), n["pos"], n["has_gauss"], n["cached"]))
    torch.set_rng_state(rng["torch"])


def _to_tensor(a: np.ndarray | None) -> torch.Tensor | None:
    return None if a is None else torch.from_numpy(np.ascontiguousarray(a).copy())


def _from_tensor(t: torch.Tensor | None, shape: tuple[int, ...]) -> np.ndarray | None:
    if t is None:
        return None
    if not isinstance(t, torch.Tensor) or tuple(t.shape) != shape:
        raise ValueError(f"expected an array of shape {shape}, got {getattr(t, 'shape', type(t).__name__)}")
    return t.numpy()


def _numpy_rng_state() -> dict[str, Any]:
    key, keys, pos, has_gauss, cached = cast(tuple[str, np.ndarray, int, int, float], np.random.get_state())
    return {"key": key, "keys": keys.tolist(), "pos": int(pos), "has_gauss": int(has_gauss), "cached": float(cached)}
