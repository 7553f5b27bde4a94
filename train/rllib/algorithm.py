"""How the RLlib backend's config becomes Ray and an RLlib PPO ``Algorithm``.

``connect_ray`` joins a cluster (``--address``) or starts a private local Ray sized for the
config; ``build_algorithm`` builds PPO on the new API stack: the env (``train.rllib.env``), a
module per id the league may name (``train.rllib.module``), the league's policy mapping and
callbacks (``train.rllib.league``), the EnvRunners and Learners of the ``rllib:`` section, PPO's
settings from ``ppo:`` (mapped as ``train.rllib.config`` says) and RLlib's EnvRunner restarts.
"""

from __future__ import annotations

import functools
import logging
import math
from typing import Any

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from eval.ray_runner import start_local_ray
from train.rllib.config import RLlibTrainConfig
from train.rllib.env import AGENTS, BalootMultiAgentEnv, observation_space
from train.rllib.league import MAIN, LeagueCallbacks, LeagueMapping
from train.rllib.module import BalootRLModule, FrozenBalootRLModule, HeuristicRLModule, RandomRLModule


def connect_ray(cfg: RLlibTrainConfig, address: str | None) -> bool:
    """Join the cluster at ``address`` ("auto" or HOST:PORT), or start a private local Ray sized
    for the config's EnvRunners and Learners. Returns True when this process started Ray.

    A Ray already initialised in this process (a test, a notebook) is used as it is.
    """
    if ray.is_initialized():
        return False
    if address:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
        return False
    r = cfg.rllib
    cpus = r.num_env_runners * r.num_cpus_per_env_runner + r.num_learners * r.num_cpus_per_learner
    start_local_ray(max(1, math.ceil(cpus)), r.object_store_mb)
    return True


def module_specs(cfg: RLlibTrainConfig, league: LeagueMapping) -> dict[str, RLModuleSpec]:
    """The module of every id the league may name (``main``, snapshots, champions, rule agents)."""
    obs_space = observation_space(cfg.net.privileged_critic, league.heuristic)
    act_space = BalootMultiAgentEnv({"heuristic": False}).get_action_space(AGENTS[0])
    net = {"net": cfg.net.spec().to_dict()}
    specs = {}
    for mid in league.modules():
        cls = {MAIN: BalootRLModule, "heuristic": HeuristicRLModule, "random": RandomRLModule}.get(
            mid, FrozenBalootRLModule
        )
        specs[mid] = RLModuleSpec(
            module_class=cls, observation_space=obs_space, action_space=act_space, model_config=net
        )
    return specs


def build_algorithm(cfg: RLlibTrainConfig, league: LeagueMapping) -> Any:
    """RLlib PPO for this config (the mapping of the shared keys is in ``train.rllib.config``)."""
    r, p, e = cfg.rllib, cfg.ppo, cfg.env
    env_config = {
        "episode": e.episode,
        "reward": e.reward,
        "reward_scale": e.reward_scale,
        "match_bonus": e.match_bonus,
        "rules": e.rules.to_dict(),
        "privileged": cfg.net.privileged_critic,
        "heuristic": league.heuristic,
        "seed": cfg.seed + 2000,
    }
    specs = module_specs(cfg, league)
    learners = max(1, r.num_learners)
    config = (
        PPOConfig()  # type: ignore[no-untyped-call]  # ray leaves it unannotated
        # The env checker steps random actions, which the rules refuse (R9): the env is tested instead.
        .environment(BalootMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=r.num_env_runners,
            num_envs_per_env_runner=-(-p.n_envs // max(1, r.num_env_runners)),
            num_cpus_per_env_runner=r.num_cpus_per_env_runner,  # type: ignore[arg-type]  # ray takes fractions of a CPU
            rollout_fragment_length="auto",
            sample_timeout_s=r.sample_timeout_s,
        )
        .learners(
            num_learners=r.num_learners,
            num_cpus_per_learner=r.num_cpus_per_learner if r.num_learners else "auto",
            num_gpus_per_learner=r.num_gpus_per_learner,
        )
        .multi_agent(policies=set(specs), policy_mapping_fn=league, policies_to_train=[MAIN])  # type: ignore[arg-type]  # a callable object
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            train_batch_size_per_learner=2 * p.n_envs * p.n_steps // learners,
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
