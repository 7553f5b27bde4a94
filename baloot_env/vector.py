"""``BalootVecEnv``: N Baloot games in lockstep as a stable-baselines3 ``VecEnv``.

Spec sheet
----------
Games: ``n_envs`` games, by default on the compiled batched core (``backend="core"``,
``baloot_env.lockstep_core``: every step of all games is one kernel call), or each on the game
driver (``backend="python"``, ``baloot_env.driver.Table``), the one behind the PettingZoo env
``baloot_v0``, self-play training and evaluation: the same rules, deals, observations and
rewards either way (tests/baloot_env/test_driver.py plays the same games through all of them,
tests/baloot_env/test_lockstep_core.py the two backends side by side).

Learner: ``learner="team"`` plays both seats of one team (R1.1); ``learner="seat"`` plays one
seat and its partner is played like the opponents (or by ``partner``). ``position`` fixes the
team (0, 1) or seat (0-3); None (default) draws it per episode.

Opponents: every other seat is played by ``opponents``: an agent spec (``"heuristic"``,
``"random"``, ``"search"``, a policy bundle folder such as ``"policies/champion"``, an agent
file), an ``agents.Agent``, or a callable ``f(observations, masks) -> actions`` on arrays
(N x ``OBS_SIZE`` float32, N x 42 int8), e.g. a torch network; or a list of those, one per
game. Their decisions are batched across the games (``Agent.act_batch`` on ``PlayerView``s,
one call per player and round).

Step: one ``step(actions)`` is one learner decision in every game: the action is applied, then
the other seats play until the learner is to act again. Actions are ``Discrete(42)`` ids (R9);
``action_masks()`` gives the legal ones (bool, ``n_envs`` x 42), which sb3-contrib's
``MaskablePPO`` reads. An illegal action raises ``IllegalActionError`` (no silent penalty).

Observations: ``Box(0, 1, (OBS_SIZE,), float32)``, the acting learner seat's own view
(``baloot_env.observation.PIECES``); ``privileged=True`` appends the four current hands
(4 x 32, relative seats) for a privileged critic, never for an actor.

Rewards (``reward="diff"|"points"|"win"``, ``match_bonus``): ``baloot_env.rewards``, from the
learner's team's side. A hand's reward lands on the learner's last decision of that hand, even
when an opponent's card ended it.

Episodes: ``episode="hand"`` (one deal) or ``"match"`` (R8). A finished game starts its next
episode at once (SB3's auto-reset): its ``done`` is True and its info holds
``terminal_observation``, ``episode`` (``{"r": return, "l": length}``, what SB3's ``Monitor``
reports, so ``rollout/ep_rew_mean`` is logged), ``episode_summary`` (opponent, reward, won,
score, per-hand figures) and, as on every step that ended a hand, ``hand_result`` (R11.4) and
``match_result`` (R11.5).

Seeding: ``seed(s)`` (SB3 calls it, then ``reset()``) and the constructor's ``seed`` make game
``i`` draw from ``default_rng(SeedSequence(s).spawn(n_envs)[i])`` and re-seed the agents made
from specs and the ``Agent`` objects given; ``seed`` takes effect at the next ``reset()``, as in
SB3's own vector envs. Same seed, same actions: the same games.

Needs stable-baselines3 (the ``train`` extra); ``import baloot_env`` does not import this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from baloot_env.actions import NUM_ACTIONS
from baloot_env.lockstep import LockstepGames
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig

__all__ = ["BalootVecEnv"]


class BalootVecEnv(LockstepGames, VecEnv):
    """``n_envs`` Baloot games for one learner, as an SB3 ``VecEnv`` (module docstring).

    Args:
        n_envs: number of games.
        learner: "team" (both seats of a team) or "seat" (one seat).
        opponents: who plays the other seats (module docstring); default ``"heuristic"``.
        episode: "hand" or "match".
        rules: rule variants (default RULES.md).
        reward: "diff", "points" or "win" (or a ``baloot_env.rewards.Reward``).
        seed: seeds the games and the agents (None: fresh entropy).
        position: the learner's team or seat; None: drawn per episode.
        partner: in "seat" mode, who plays the learner's partner (default: ``opponents``).
        match_bonus: added for the match's winner in match episodes ("diff", "points").
        privileged: append the four hands to the observation (a privileged critic).
        backend: "core" (default: the games on the compiled batched core) or "python" (one
            driver ``Table`` a game); the same seed and actions give the same games on both.

    Example::

        from sb3_contrib import MaskablePPO
        from baloot_env.vector import BalootVecEnv

        venv = BalootVecEnv(16, learner="team", opponents="heuristic", seed=0)
        MaskablePPO("MlpPolicy", venv, n_steps=64).learn(2048)
    """

    def __init__(
        self,
        n_envs: int = 8,
        learner: str = "team",
        opponents: Any = "heuristic",
        episode: str = "hand",
        rules: RuleConfig | None = None,
        reward: str | Reward = "diff",
        seed: int | None = None,
        *,
        position: int | None = None,
        partner: Any = None,
        match_bonus: float = 1.0,
        privileged: bool = False,
        backend: str = "core",
    ):
        LockstepGames.__init__(
            self,
            n_envs,
            learner=learner,
            position=position,
            opponents=opponents,
            partner=partner,
            episode=episode,
            rules=rules,
            reward=reward,
            match_bonus=match_bonus,
            seed=seed,
            privileged=privileged,
            autoreset=True,
            backend=backend,
        )
        space = spaces.Box(0.0, 1.0, (self.obs_size,), np.float32)
        VecEnv.__init__(self, n_envs, space, spaces.Discrete(NUM_ACTIONS))
        self._actions: np.ndarray | None = None
        self._pending_seed: tuple[int | None] | None = None
        self._restored = False  # games loaded from a checkpoint: the next reset() keeps them

    # ------------------------------------------------------------------ VecEnv API
    def reset(self) -> np.ndarray:
        """Start a new episode in every game (after applying a pending ``seed``)."""
        if self._restored:  # resuming: keep the games exactly as saved
            self._restored = False
            return self.observe()
        if self._pending_seed is not None:
            self.reseed(self._pending_seed[0])
            self._pending_seed = None
        for i in range(self.num_envs):
            self.new_episode(i)
        n = self.num_envs
        self.advance(np.zeros(n, np.float32), np.zeros(n, bool), [{} for _ in range(n)])
        return self.observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)
        self._masks = None

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        rewards, dones, infos = self.learner_step(self._actions)
        return self.observe(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """Legal actions of each game's learner seat to act (bool, ``n_envs`` x 42)."""
        return self.masks()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed every game and agent (module docstring) at the next ``reset()``."""
        self._pending_seed = (seed,)
        return [seed for _ in range(self.num_envs)]

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        raise AttributeError(f"{type(self).__name__} has no per-env method {method_name!r}")

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in ("action_masks", "render_mode")

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "render_mode":
            return [None for _ in self._get_indices(indices)]
        raise AttributeError(f"{type(self).__name__} has no attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"{type(self).__name__} attributes are not settable ({attr_name!r})")

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def close(self) -> None:
        pass
