"""How the RLlib backend's config becomes Ray and an RLlib PPO ``Algorithm``.

``connect_ray`` joins a cluster (``--address``) or starts a private local Ray sized for the
config; ``build_algorithm`` builds single-agent PPO on the new API stack: each EnvRunner steps its
share of the self-play games on the batched core (``train.rllib.vector_env``, a Gymnasium
``VectorEnv``: the learner's forward pass one batch over the games, the opponents inside the
games), the learner's module (``train.rllib.module``), the league's callbacks
(``train.rllib.league``), the EnvRunners and Learners of the ``rllib:`` section, PPO's settings
from ``ppo:`` (mapped as ``train.rllib.config`` says) and RLlib's EnvRunner restarts.
"""

from __future__ import annotations

import functools
import logging
import math
from typing import Any

import gymnasium as gym
import ray
from gymnasium import spaces
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from agents.neural.precision import resolve_precision
from baloot_cli import one_line
from baloot_env.actions import NUM_ACTIONS
from baloot_env.errors import ConfigError
from eval.ray_runner import quiet_ray_notices, start_local_ray
from train.rllib.config import RLlibTrainConfig
from train.rllib.env import observation_space
from train.rllib.league import LeagueCallbacks
from train.rllib.module import BalootRLModule
from train.rllib.vector_env import SelfPlayVectorEnv


def connect_ray(cfg: RLlibTrainConfig, address: str | None) -> bool:
    """Join the cluster at ``address`` ("auto" or HOST:PORT), or start a private local Ray sized
    for the config's EnvRunners and Learners. Returns True when this process started Ray.

    A Ray already initialised in this process (a test, a notebook) is used as it is.
    """
    if ray.is_initialized():
        return False
    if address:
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
        except ConnectionError as e:
            raise ConfigError(f"--address {address!r}: {one_line(e)}") from None
        return False
    r = cfg.rllib
    cpus = r.num_env_runners * r.num_cpus_per_env_runner + r.num_learners * r.num_cpus_per_learner
    start_local_ray(max(1, math.ceil(cpus)), r.object_store_mb)
    return True


def module_spec(cfg: RLlibTrainConfig) -> RLModuleSpec:
    """The learner's module (``BalootRLModule``): the run's network, in the update's number format."""
    return RLModuleSpec(
        module_class=BalootRLModule,
        observation_space=observation_space(cfg.net.privileged_critic),
        action_space=spaces.Discrete(NUM_ACTIONS),
        model_config={"net": cfg.net.spec().to_dict(), "precision": update_precision(cfg)},
    )


def update_precision(cfg: RLlibTrainConfig) -> str:
    """``ppo.precision`` resolved for the Learners' device (a GPU when ``num_gpus_per_learner``)."""
    return resolve_precision(cfg.ppo.precision, "cuda" if cfg.rllib.num_gpus_per_learner > 0 else "cpu")


def build_algorithm(cfg: RLlibTrainConfig) -> Any:
    """RLlib PPO for this config (the mapping of the shared keys is in ``train.rllib.config``)."""
    r, p = cfg.rllib, cfg.ppo
    env_config = {
        "env": cfg.env,
        "opponents": cfg.opponents,
        "net": cfg.net.spec(),
        "precision": resolve_precision(p.precision, "cpu"),  # the opponents' stacked pass, on the runners' CPUs
        "privileged": cfg.net.privileged_critic,
        "seed": cfg.seed + 2000,
    }
    learners = max(1, r.num_learners)
    quiet_ray_notices()
    config = (
        PPOConfig()  # type: ignore[no-untyped-call]  # ray leaves it unannotated
        # The env checker steps random actions, which the rules refuse (R9): the env is tested instead.
        .environment(SelfPlayVectorEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=r.num_env_runners,
            num_envs_per_env_runner=games_per_runner(cfg),
            gym_env_vectorize_mode=gym.VectorizeMode.VECTOR_ENTRY_POINT,  # the env is the vector of games
            num_cpus_per_env_runner=r.num_cpus_per_env_runner,  # type: ignore[arg-type]  # ray takes fractions of a CPU
            rollout_fragment_length="auto",
            sample_timeout_s=r.sample_timeout_s,
        )
        .learners(
            num_learners=r.num_learners,
            num_cpus_per_learner=r.num_cpus_per_learner if r.num_learners else "auto",
            num_gpus_per_learner=r.num_gpus_per_learner,
        )
        .rl_module(rl_module_spec=module_spec(cfg))
        .training(
            train_batch_size_per_learner=games_per_runner(cfg) * max(1, r.num_env_runners) * p.n_steps // learners,
            minibatch_size=p.batch_size,
            num_epochs=p.n_epochs,
            lr=p.learning_rate,
            gamma=p.gamma,
            lambda_=p.gae_lambda,
            clip_param=p.clip_range,
            entropy_coeff=p.ent_coef,
            vf_loss_coeff=p.vf_coef,
            grad_clip=p.max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=True,
            kl_coeff=0.0,
            vf_clip_param=float("inf"),
        )
        .callbacks(functools.partial(LeagueCallbacks, torch_threads=cfg.torch_threads))  # type: ignore[arg-type]  # a factory works
        .fault_tolerance(
            restart_failed_env_runners=r.restart_failed_env_runners,
            max_num_env_runner_restarts=r.max_env_runner_restarts,
        )
        .debugging(seed=cfg.seed, log_level="ERROR")
    )
    return config.build_algo()


def games_per_runner(cfg: RLlibTrainConfig) -> int:
    """``ppo.n_envs`` spread over the EnvRunners (rounded up; the driver's own with none)."""
    return -(-cfg.ppo.n_envs // max(1, cfg.rllib.num_env_runners))
