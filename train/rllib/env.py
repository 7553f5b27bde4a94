"""Baloot as an RLlib ``MultiAgentEnv``: a thin translation of the game driver ``Table``.

The RLlib way in for multi-agent work: every seat an agent, mapped to whatever modules a
researcher's policy mapping names, one game a sub-env. The RLlib training backend does not step
it: its self-play games run many at once on the batched core (``train.rllib.vector_env``),
which gives the same observation parts, so ``train.rllib.module.BalootRLModule`` reads both.

Spec sheet
----------
Agents: ``player_0`` ... ``player_3`` (seats 0-3, R1.1); teams are seats {0, 2} and {1, 3}.
Turn-based: each step, only the seat the rules ask to act (``Table.to_act``) gets an
observation, and the action dict holds that seat's action.

Observation of every agent: ``Dict``
  - ``observations``: float32[OBS_SIZE], the seat's own view (``baloot_env.observation``);
  - ``action_mask``: float32[42], 1 for the legal actions (R9);
  - ``privileged`` (only with ``privileged=True``): float32[128], the four current hands
    (me, next, partner, previous; ``baloot_env.observation.HIDDEN_HANDS``), for the value head of
    a privileged critic during training; the policy never reads it.

Actions: ``Discrete(42)`` (R9). An illegal action raises ``IllegalActionError`` (the modules
mask their logits, so it means a bug).

Rewards (``baloot_env.rewards``, the environment's own): when a hand ends, all four agents get
their team's reward (partners equal, opponents the negative); RLlib holds a reward for a seat
that is not acting until that seat's next observation (or the episode's end). The acting seat
always gets an entry (0.0 when nothing happened), as RLlib requires.

Episode end: when the driver says the episode is over (hand episode: the hand; match episode:
the match), ``terminateds["__all__"]`` is True and every seat that acted gets a last
observation whose info holds ``episode`` (the hands' results and the score, by absolute team),
for a researcher's callbacks.

Arguments (the ``config`` dict RLlib passes): ``episode``, ``reward``, ``reward_scale``,
``match_bonus``, ``rules`` (``train.config.EnvConfig`` fields), ``privileged`` and ``seed``.
The deals come from the env's generator: ``reset(seed=s)`` makes it ``default_rng(s)`` (and ``default_rng([s, w])`` in EnvRunner ``w`` >= 1, since RLlib gives its
runners overlapping seeds).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from baloot_env.actions import NUM_ACTIONS
from baloot_env.cards import NUM_SEATS
from baloot_env.driver import DealSource, Table
from baloot_env.observation import OBS_SIZE, PRIVILEGED_SIZE, action_mask, encode, seat_hidden_hands
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig

AGENTS = tuple(f"player_{s}" for s in range(NUM_SEATS))


def seat_of(agent_id: str) -> int:
    """The seat of an agent id ``player_<seat>``."""
    return int(agent_id.rsplit("_", 1)[1])


def observation_space(privileged: bool) -> spaces.Dict:
    """The observation space of every agent (module docstring); the self-play games of the
    RLlib backend (``train.rllib.vector_env``) give the same parts."""
    parts: dict[str, spaces.Space[Any]] = {
        "observations": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
        "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
    }
    if privileged:
        parts["privileged"] = spaces.Box(0.0, 1.0, (PRIVILEGED_SIZE,), np.float32)
    return spaces.Dict(parts)


class BalootMultiAgentEnv(MultiAgentEnv):
    """Four seats of one game played by the driver ``Table`` (module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()  # type: ignore[no-untyped-call]  # ray leaves it unannotated
        c = dict(config or {})
        self.rules = RuleConfig.from_dict(c.get("rules") or {})
        d = Reward()  # the env config's keys are EnvConfig's; missing ones take Reward's defaults
        self.reward = Reward(
            c.get("reward", d.mode), float(c.get("reward_scale", d.scale)), float(c.get("match_bonus", d.match_bonus))
        )
        self.privileged = bool(c.get("privileged", False))
        # RLlib's EnvContext carries the EnvRunner's index (0: the driver's own runner).
        self.worker = int(getattr(config, "worker_index", 0) or 0)
        self.rng = np.random.default_rng(
            [int(c.get("seed", 0)), self.worker, int(getattr(config, "vector_index", 0) or 0)]
        )
        self.table = Table(self.rules, c.get("episode", "hand"), DealSource(self.rng), self.reward)
        self.agents = self.possible_agents = list(AGENTS)
        space = observation_space(self.privileged)
        self.observation_spaces = {a: space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._acted: set[str] = set()
        self._hands: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ observing
    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        table, hand = self.table, self.table.current_hand
        obs = {
            "observations": encode(hand, seat, table.context),
            "action_mask": action_mask(hand, seat).astype(np.float32),
        }
        if self.privileged:
            hands = hand.hands
            obs["privileged"] = seat_hidden_hands(hands, seat)
        return obs

    # ------------------------------------------------------------------ reset / step
    def reset(  # type: ignore[override]  # agent ids are the seat names (str), not any Hashable
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new episode: the first deal from this env's generator (R2.4, R11.2)."""
        if seed is not None:
            # RLlib seeds sub-env i of EnvRunner w with (run seed + w + i): runners overlap, so the
            # runner's index goes in too (streams distinct for every (w, i)).
            self.rng = np.random.default_rng(seed if self.worker == 0 else [seed, self.worker])
        self.table.reset(DealSource(self.rng))
        self._acted = set()
        self._hands = []
        seat = self.table.to_act
        return {AGENTS[seat]: self._observe(seat)}, {}

    def step(  # type: ignore[override]  # agent ids are the seat names (str), not any Hashable
        self, action_dict: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
        """Apply the acting seat's action; rewards at a hand's end to all four seats."""
        agent = AGENTS[self.table.to_act]
        outcome = self.table.apply(int(action_dict[agent]))  # IllegalActionError before any change
        self._acted.add(agent)
        rewards = {agent: 0.0}
        if outcome.hand_result is not None:
            self._hands.append(outcome.hand_result.to_info())
            rewards = {a: float(outcome.rewards[seat_of(a) % 2]) for a in AGENTS}
        if outcome.episode_over:
            info = {
                "episode": {
                    "hands": self._hands,
                    "match": None if outcome.match_result is None else outcome.match_result.to_info(),
                }
            }
            obs = {a: self._observe(seat_of(a)) for a in AGENTS if a in self._acted}
            infos = {a: info for a in obs}
            done = {a: True for a in obs} | {"__all__": True}
            return obs, rewards, done, {"__all__": False}, infos
        seat = self.table.to_act
        return {AGENTS[seat]: self._observe(seat)}, rewards, {"__all__": False}, {"__all__": False}, {}
