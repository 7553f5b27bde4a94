"""The RLlib backend's config: ``train.config.TrainConfig`` plus one ``rllib:`` section.

Every section of ``TrainConfig`` means here what it means for the SB3 backend, with the same
defaults (one source: ``configs/default.yaml``); ``configs/rllib.yaml`` only states what differs.
How the shared keys map onto RLlib:

- ``ppo.n_envs`` games in all, spread over the EnvRunners (``ceil(n_envs / num_env_runners)``
  each, all stepped at once on the batched core); a PPO update trains on
  ``ppo.n_envs * ppo.n_steps`` learner decisions (the opponents' moves happen inside the games);
  ``batch_size`` is the minibatch, ``n_epochs`` the passes; ``precision`` the update's number
  format on the Learners (bf16 autocast or fp32, ``train.hardware``); ``learning_rate``, ``gamma``,
  ``gae_lambda``, ``clip_range``, ``ent_coef``, ``vf_coef``, ``max_grad_norm`` are RLlib's ``lr``,
  ``gamma``, ``lambda_``, ``clip_param``, ``entropy_coeff``, ``vf_loss_coeff``, ``grad_clip``;
  RLlib's KL penalty is off (coefficient 0, as in SB3) and its value clipping is not used.
- ``opponents``: the SB3 backend's pool (``train.opponents``): the opponent team of each game is
  drawn by these weights from the recent snapshots, the champions, ``heuristic`` and ``random``,
  inside the EnvRunners' games (``train.rllib.league``).
- ``eval``, ``pretrain``, ``init_from``, ``checkpoint_every``, ``log_every``, ``seed``,
  ``torch_threads`` (in the driver and in every EnvRunner): as in the SB3 backend.

This module imports neither Ray nor torch, so configs are checked without them.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from baloot_env.config import from_mapping
from baloot_env.errors import ConfigError
from train.config import (
    CONFIG_KEY,
    TrainConfig,
    apply_overrides,
    iter_fields,
    read_config_file,
    show_value,
    validate,
)
from train.config import _f as _field

BACKEND = "rllib"


@dataclass(frozen=True)
class RayConfig:
    """Ray and RLlib: the EnvRunners and Learners, and fault tolerance (``rllib:`` section)."""

    num_env_runners: int = _field(
        0, "EnvRunner actors sampling games (0: sample in the driver, the fastest on 2 cores)"
    )
    num_cpus_per_env_runner: float = _field(1.0, "CPUs Ray reserves for each EnvRunner")
    num_learners: int = _field(0, "Learner actors (0: one learner in the driver process)")
    num_cpus_per_learner: float = _field(1.0, "CPUs Ray reserves for each Learner actor (num_learners >= 1)")
    num_gpus_per_learner: float = _field(0.0, "GPUs for each Learner (0: CPU)")
    restart_failed_env_runners: bool = _field(True, "replace an EnvRunner that died and go on training")
    max_env_runner_restarts: int = _field(1000, "EnvRunner replacements allowed in a run")
    sample_timeout_s: float = _field(120.0, "seconds to wait for an EnvRunner's samples before counting it failed")
    keep_checkpoints: int = _field(3, "RLlib checkpoints kept in run_dir/checkpoints (older ones are removed)")
    object_store_mb: int = _field(512, "object store of a Ray started by this command (no --address); MiB")


@dataclass(frozen=True)
class RLlibTrainConfig(TrainConfig):
    """``TrainConfig`` for ``python -m train --backend rllib``: the shared sections plus ``rllib``."""

    rllib: RayConfig = field(default_factory=RayConfig)


def _need(ok: bool, key: str, value: Any, what: str) -> None:
    if not ok:
        raise ConfigError(f"{key} must be {what}, got {value!r}")


def validate_rllib(cfg: RLlibTrainConfig, *, fresh: bool = True) -> None:
    """The shared sections as ``train.config.validate`` checks them, then the ``rllib`` section."""
    validate(cfg, fresh=fresh)
    r = cfg.rllib
    _need(r.num_env_runners >= 0, "rllib.num_env_runners", r.num_env_runners, ">= 0")
    _need(r.num_cpus_per_env_runner > 0, "rllib.num_cpus_per_env_runner", r.num_cpus_per_env_runner, "> 0")
    _need(r.num_learners >= 0, "rllib.num_learners", r.num_learners, ">= 0")
    _need(r.num_cpus_per_learner > 0, "rllib.num_cpus_per_learner", r.num_cpus_per_learner, "> 0")
    _need(r.num_gpus_per_learner >= 0, "rllib.num_gpus_per_learner", r.num_gpus_per_learner, ">= 0")
    _need(r.max_env_runner_restarts >= 0, "rllib.max_env_runner_restarts", r.max_env_runner_restarts, ">= 0")
    _need(r.sample_timeout_s > 0, "rllib.sample_timeout_s", r.sample_timeout_s, "> 0 (seconds)")
    _need(r.keep_checkpoints >= 1, "rllib.keep_checkpoints", r.keep_checkpoints, ">= 1")
    _need(r.object_store_mb >= 80, "rllib.object_store_mb", r.object_store_mb, ">= 80 (Ray's minimum)")
    _need(
        cfg.ppo.n_envs >= max(1, r.num_env_runners),
        "ppo.n_envs",
        cfg.ppo.n_envs,
        f">= rllib.num_env_runners = {r.num_env_runners} (each EnvRunner plays at least one game)",
    )
    _need(
        cfg.ppo.processes == 1,
        "ppo.processes",
        cfg.ppo.processes,
        "1 with --backend rllib (its EnvRunners and learners are rllib.num_env_runners and Ray's)",
    )
    _need(
        cfg.expert.rounds == 0,
        "expert.rounds",
        cfg.expert.rounds,
        "0 with --backend rllib (expert iteration runs on the SB3 backend)",
    )


# The RLlib backend's own defaults, where a file leaves them out: the SB3 backend's learner
# processes are not RLlib's, and expert iteration runs on the SB3 backend only.
RLLIB_DEFAULTS: dict[str, dict[str, Any]] = {"ppo": {"processes": 1}, "expert": {"rounds": 0}}


def load_rllib_config(
    path: str | Path | None, overrides: list[str] | None = None, *, fresh: bool = True
) -> RLlibTrainConfig:
    """Read a YAML config for the RLlib backend, apply ``section.key=value`` overrides, validate.

    Keys the file leaves out take ``TrainConfig``'s defaults (``configs/default.yaml``) and
    ``RayConfig``'s, except ``RLLIB_DEFAULTS``'s (one learner process, no expert rounds).
    ``configs/NAME.yaml`` is found in the package when no such file exists here.

    Raises:
        ConfigError: a missing or unreadable file, bad YAML, an unknown key, or a value out of
            range; one line naming the key.
    """
    data = apply_overrides(read_config_file(path), overrides)
    for name, defaults in RLLIB_DEFAULTS.items():
        section = data.setdefault(name, {})
        if isinstance(section, dict):  # anything else: from_mapping says what is wrong
            for key, value in defaults.items():
                section.setdefault(key, value)
    cfg = from_mapping(RLlibTrainConfig, data, CONFIG_KEY)
    validate_rllib(cfg, fresh=fresh)
    return cfg


def is_rllib_config(path: str | Path) -> bool:
    """True when a config file (``configs/rllib.yaml``, a run's saved ``config.yaml``) is the RLlib
    backend's: it has an ``rllib:`` section."""
    try:
        return "rllib" in read_config_file(path)
    except ConfigError:
        return False  # not a config at all: load_config says why


def rllib_config_help(width: int = 100) -> str:
    """The ``rllib:`` keys with their defaults and meanings (added to ``python -m train --help``)."""
    lines = [" rllib: (--backend rllib only) " + (RayConfig.__doc__ or "").splitlines()[0].replace("``", "")]
    for key, default, meaning in iter_fields(RayConfig, "rllib."):
        left = f"  {key} = {show_value(default)}"
        text = textwrap.wrap(meaning, width=max(30, width - 40)) or [""]
        lines.append(f"{left:<40}{text[0]}" if len(left) < 40 else f"{left}\n{'':40}{text[0]}")
        lines.extend(" " * 40 + t for t in text[1:])
    return "\n".join(lines)
