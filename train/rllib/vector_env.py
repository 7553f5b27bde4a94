"""Self-play games on the batched core as a Gymnasium ``VectorEnv``: what each RLlib EnvRunner steps.

Spec sheet
----------
Games: ``num_envs`` games of ``train.selfplay.SelfPlayVecEnv``, the SB3 backend's self-play
games: all of them on the compiled batched core (every step of every game is one kernel call),
the learner on both seats of one team, the opponent team drawn per game from an
``train.opponents.OpponentPool`` (snapshots of the learner, champions, ``heuristic``,
``random``), the pool's networks acting together in one stacked pass. RLlib's
``SingleAgentEnvRunner`` sees one agent a game, the learner's team, and batches the learner's
forward pass over the games, as SB3 does.

Observations (a batch of ``Dict``, the parts ``train.rllib.module`` reads):
  - ``observations``: float32[OBS_SIZE], the acting learner seat's own view;
  - ``action_mask``: float32[42], 1 for the legal actions (R9);
  - ``privileged`` (with ``privileged``): float32[128], the four current hands, for the value
    head of the privileged critic; the policy never reads it.

Actions: ``Discrete(42)`` a game (R9); an illegal one raises ``IllegalActionError``.

Rewards and episodes: ``SelfPlayVecEnv``'s, from the learner team's side: a hand's reward lands
on the team's last decision of that hand; an episode is a hand or a match (``EnvConfig.episode``).

Autoreset: Gymnasium's ``NEXT_STEP``, which RLlib's EnvRunner expects. The step that ends a game's
episode returns that episode's last observation (all-zero mask: nothing is legal); the next step
ignores that game's action and returns the first observation of its next episode (reward 0),
which the core has already dealt and played up to the learner's first decision.

Opponents: the pool's snapshots and champions come from the driver (``set_members``,
``train.rllib.league.MemberSync``); its draws use this env's own generator. Episode summaries pile up in
``finished`` (opponent category, reward, won, score, hands), which the EnvRunner's callback
drains after each sample (``train.rllib.league.LeagueCallbacks``).

Arguments (the ``config`` dict RLlib passes, plus its ``num_envs``): ``env`` (a
``train.config.EnvConfig``), ``opponents`` (an ``OpponentConfig``), ``net`` (the ``NetSpec`` of
the pool's snapshots), ``precision`` of the pool's stacked pass, ``privileged``, ``seed``.
Seeding: ``reset(seed=s)`` (RLlib gives EnvRunner ``w`` the run's seed plus ``w``) seeds the
games from ``SeedSequence([s, 1])`` and the pool from ``[s, 2]``; without a seed, from
``config["seed"]``.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from agents.neural.network import NetSpec
from baloot_env.actions import NUM_ACTIONS
from baloot_env.observation import OBS_SIZE
from train.config import EnvConfig, OpponentConfig
from train.opponents import OpponentPool
from train.rllib.env import observation_space
from train.selfplay import SelfPlayVecEnv


class SelfPlayVectorEnv(gym.vector.VectorEnv[dict[str, np.ndarray], np.ndarray, np.ndarray]):
    """``num_envs`` self-play games for RLlib's single-agent EnvRunner (module docstring)."""

    metadata = {"autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, config: dict[str, Any]):
        c = dict(config)
        self.num_envs = int(c["num_envs"])
        self.env_cfg: EnvConfig = c["env"]
        self.pool_cfg: OpponentConfig = c["opponents"]
        self.net_spec: NetSpec = c["net"]
        self.precision = str(c.get("precision", "fp32"))
        self.privileged = bool(c.get("privileged", False))
        seed = int(c.get("seed", 0))
        self.pool = OpponentPool(self.pool_cfg, self.net_spec, seed, self.precision)
        self.games = SelfPlayVecEnv(self.num_envs, self.env_cfg, self.pool, seed, privileged=self.privileged)
        self.single_observation_space = observation_space(self.privileged)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._owed = np.zeros(self.num_envs, bool)  # games whose next episode's first observation is owed
        self.members_version = -1  # none from the driver yet (only the rule agents)

    @property
    def finished(self) -> deque[dict[str, Any]]:
        """Summaries of the episodes ended since the last drain (``SelfPlayVecEnv``'s)."""
        return self.games.finished

    def set_members(self, members: dict[str, Any], version: int) -> None:
        """The driver's snapshots and champions (``OpponentPool.members()``, its ``version``th
        set, ``train.rllib.league.MemberSync``); this pool's generators are untouched."""
        self.pool.load_members(members)
        self.members_version = version

    # ------------------------------------------------------------------ observing
    def _batch(self, obs: np.ndarray, masks: np.ndarray) -> dict[str, np.ndarray]:
        out = {"observations": obs[:, :OBS_SIZE], "action_mask": masks.astype(np.float32)}
        if self.privileged:
            out["privileged"] = obs[:, OBS_SIZE:]
        return out

    # ------------------------------------------------------------------ VectorEnv API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A new episode in every game; ``seed`` re-seeds the games and the pool (module docstring)."""
        if seed is not None:
            games_seed, pool_seed = np.random.SeedSequence([seed, 1]), np.random.SeedSequence([seed, 2])
            self.games.seed(int(games_seed.generate_state(1)[0]))
            self.pool.reseed(int(pool_seed.generate_state(1)[0]))
        obs = self.games.reset()
        self._owed[:] = False
        return self._batch(obs, self.games.masks()), {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner decision in every game whose observation was a decision (module docstring)."""
        actions = np.asarray(actions).reshape(self.num_envs)
        live = np.flatnonzero(~self._owed)
        rewards, dones, infos = self.games.learner_step(actions[live], games=live.tolist())
        obs, masks = self.games.observe(), self.games.masks()
        ended = np.flatnonzero(dones)
        if len(ended):
            obs, masks = obs.copy(), masks.copy()
            for i in ended:
                obs[i] = infos[i]["terminal_observation"]
                masks[i] = False
        self._owed = dones.copy()
        false = np.zeros(self.num_envs, bool)
        return self._batch(obs, masks), rewards.astype(np.float32), dones, false, {}
