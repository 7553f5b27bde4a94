"""PettingZoo AEC environment ``baloot_v0`` (docs/RULES.md R11).

Spec sheet
----------
Agents: ``player_0`` ... ``player_3`` (seats 0-3, R1.1); teams are seats {0, 2} and {1, 3}.
Turn order follows the rules (bidding from the dealer's right, doubling by entitlement, tricks
led by the last winner); ``agent_selection`` is always the seat the rules ask to act.

Actions: ``Discrete(42)``, R9: 0-31 play that card, 32 pass, 33-36 hokum S/H/D/C, 37 sun,
38-41 double/three/four/gahwa. An illegal action raises ``IllegalActionError`` naming the seat,
the action and the legal ones (no silent penalty), before anything changes: rewards, infos and
the turn stay exactly as they were.

Observations: ``{"observation": float32[OBS_SIZE], "action_mask": int8[42]}`` from the observing
seat's point of view (``baloot_env.observation.PIECES``; the table of docs/environment.md is generated from
it). The mask is exact (R9) and all zeros for a seat not to act (R11.3). Nothing another seat
holds, nor the stock, is ever in it. With ``observation="json"`` the dict also holds ``"json"``:
the seat's whole view as JSON text (``PlayerView.to_struct``, by names: cards, calls, the tricks
in order, the legal actions; its schema is ``docs/schemas/view.schema.json``), for language-model
and scripted agents; its space is a ``Text`` of printable ASCII up to ``JSON_MAX_LENGTH``
characters. ``"observation"`` stays the vector, so PettingZoo's tools (``api_test`` reads its
dtype) work in both forms.

State (``state()``, ``state_space``): the full-information vector a centralised critic reads,
never an agent: ``Box(0, 1, (STATE_SIZE,), float32)`` laid out by
``baloot_env.observation.STATE_PIECES``:
  - ``observation`` (OBS_SIZE): seat 0's observation, whose relative seats are the absolute ones;
  - ``hand_seat_0`` ... ``hand_seat_3`` (4 x 32): every seat's current cards (R1.2 ids);
  - ``stock_order`` (32): while the contract is being called, (position + 1) / 11 of each card
    still in the stock, in the order it will be dealt (R2.3); zeros once dealt;
  - ``to_act`` (4): one-hot absolute seat to act, zeros when the hand is over.

Rewards (partners equal, opponents the negative):
  - ``reward="diff"`` (default): when a hand ends, (my team's hand score - theirs) / 44, where 44
    is a Sun kaboot, so ordinary hands fall in [-1, 1]; doubled hands and a gahwa exceed it.
  - ``reward="points"``: the same difference unscaled, in game points.
  - ``reward="win"``: only at the episode's end, +1 / -1 / 0 for the hand (hand episode, by
    the hand's score) or the match (match episode).
  In match episodes ``match_bonus`` (default 1.0) is added (+ winner, - loser) when the match
  ends, for the "diff" and "points" modes.

Episodes: ``episode="hand"`` ends after one deal (a thrown-in deal ends it with all scores 0);
``episode="match"`` plays R8 (target 152 or fixed hands, gahwa, the 99-deal cap). Every agent
terminates together; nothing is truncated.

Arguments: ``env(episode="hand"|"match", rules=RuleConfig(), render_mode=None|"ansi"|"human",
reward="diff"|"points"|"win", match_bonus=1.0, observation="vector"|"json")``. Reset: ``reset(seed=..., options={"deal": d})``
plays deal ``d`` (R2.4); ``options={"deals": [d, ...]}`` supplies a match's deals in order, then
deals come from the seed (R11.2). Other option keys are ignored, as PettingZoo's classic envs
ignore ``options`` (its ``api_test`` passes ``{"options": 1}``), but with a warning, because a
misspelt ``"deal"`` would otherwise silently play a random deal. ``np_random`` is the env's
``numpy.random.Generator``, reseeded by ``reset(seed=...)``; every random deal comes from it.
Infos: ``hand_result`` (R11.4) when a hand ends and ``match_result`` (R11.5) when a match ends;
an agent's info is cleared when that agent acts.

The game itself (deals, dealer rotation, hands, matches, rewards) is played by the game driver
``baloot_env.driver.Table``, the same one that self-play training and evaluation use; this
class only translates it to the AEC API (agents, spaces, rewards per agent, infos, rendering).

Rendering: ``render_mode="ansi"``: ``render()`` returns the table as text (every hand shown).
``render_mode="human"``: the table is printed after ``reset`` and after every step, and
``render()`` prints it too and returns None (PettingZoo's contract).

Version history: v0, first release (OBS_VERSION 1, ACTION_VERSION 1); ``state()`` (STATE_VERSION
1), ``np_random`` and the human render mode added without a version bump, since rules,
observations and rewards are unchanged (the golden playthroughs hold them).
"""

from __future__ import annotations

import json
import string
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from baloot_env import ENV_NAME  # defined in the package, so that bundles need no gymnasium
from baloot_env.actions import NUM_ACTIONS
from baloot_env.cards import NUM_SEATS
from baloot_env.deal import Deal
from baloot_env.driver import EPISODES, DealSource, Outcome, Table, reset_arguments
from baloot_env.hand import HandState
from baloot_env.match import MatchState
from baloot_env.observation import OBS_SIZE, STATE_SIZE, action_mask, encode, encode_state
from baloot_env.render import render_hand
from baloot_env.rewards import REWARD_MODES, REWARD_SCALE, Reward
from baloot_env.rules import RuleConfig
from baloot_env.view import PlayerView

OBSERVATION_FORMS = ("vector", "json")
# The longest view as JSON text: views of random games stay under about 1,500 characters; the
# bound leaves room for every project and call a hand can hold (tests/baloot_env/test_schema.py).
JSON_MAX_LENGTH = 16_384

__all__ = ["EPISODES", "JSON_MAX_LENGTH", "OBSERVATION_FORMS", "REWARD_MODES", "REWARD_SCALE", "env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` wrapped in PettingZoo's order enforcement (the usual classic-env factory)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):  # type: ignore[misc]  # noqa: N801 (PettingZoo naming; pettingzoo has no type stubs)
    """Baloot for four agents; see the module docstring for the full spec."""

    metadata = {"render_modes": ["ansi", "human"], "name": ENV_NAME, "is_parallelizable": False}

    def __init__(
        self,
        episode: str = "hand",
        rules: RuleConfig | None = None,
        render_mode: str | None = None,
        reward: str = "diff",
        match_bonus: float = 1.0,
        observation: str = "vector",
    ):
        super().__init__()
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if rules is not None and not isinstance(rules, RuleConfig):
            raise TypeError(f"rules must be a RuleConfig, got {type(rules).__name__}")
        if observation not in OBSERVATION_FORMS:
            raise ValueError(f"observation must be one of {OBSERVATION_FORMS}, got {observation!r}")
        self.observation_form = observation
        self.episode = episode
        self.rules = rules or RuleConfig()
        self.render_mode = render_mode
        self.reward_mode = reward
        self.match_bonus = float(match_bonus)
        self.table = Table(self.rules, episode, reward=Reward(reward, REWARD_SCALE, self.match_bonus))
        self.possible_agents = [f"player_{i}" for i in range(NUM_SEATS)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        pieces: dict[str, spaces.Space[Any]] = {
            "observation": spaces.Box(0.0, 1.0, shape=(OBS_SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
        }
        if observation == "json":
            pieces["json"] = spaces.Text(JSON_MAX_LENGTH, charset=string.printable)
        obs_space = spaces.Dict(pieces)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space[Any]] = {
            a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents
        }
        self.state_space = spaces.Box(0.0, 1.0, shape=(STATE_SIZE,), dtype=np.float32)
        self._rng = np.random.default_rng()

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def np_random(self) -> np.random.Generator:
        """The env's random generator: every random deal is drawn from it; ``reset(seed=s)``
        replaces it with ``numpy.random.default_rng(s)``."""
        return self._rng

    @np_random.setter
    def np_random(self, rng: np.random.Generator) -> None:
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"np_random must be a numpy.random.Generator, got {type(rng).__name__}")
        self._rng = rng
        self.table.deals.rng = rng  # the deals still to come in this episode are drawn from it too

    # ------------------------------------------------------------------ the driver's game
    @property
    def hand(self) -> HandState | None:
        """The hand being played (the driver's)."""
        return self.table.hand

    @property
    def match(self) -> MatchState | None:
        """The match in match episodes (the driver's), else None."""
        return self.table.match

    @property
    def _pending_deals(self) -> list[Deal]:
        """Deals from ``options`` not yet played."""
        return self.table.deals.pending

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode (R11.2). ``options``: ``deal`` or ``deals`` (R2.4)."""
        seed, deals, unknown = reset_arguments(seed, options)  # refused before anything changes
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if unknown:
            # PettingZoo's classic envs ignore options and its api_test passes foreign ones, so
            # accept them; but warn, since a misspelt "deal" would quietly play a random deal.
            gymnasium.logger.warn(f"ignoring unknown reset options {unknown}; known: 'deal', 'deals'")
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        # R11.2: the given deals in order, dealers as written; then deals from the seed (R2.1).
        self.table.reset(DealSource(self._rng, deals, dealers="given"))
        self.agent_selection = self.possible_agents[self.table.to_act]
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ observing
    def observe(self, agent: str) -> dict[str, Any]:
        seat = self._seat[agent]
        hand = self.table.current_hand
        out: dict[str, Any] = {
            "observation": encode(hand, seat, self.table.context),
            "action_mask": action_mask(hand, seat),
        }
        if self.observation_form == "json":
            out["json"] = json.dumps(PlayerView.from_state(hand, seat, self.table.context).to_struct())
        return out

    def state(self) -> np.ndarray:
        """The full-information state for a centralised critic (``state_space``; the layout is in
        the module docstring). It reveals every hand and the stock: never give it to an agent."""
        return encode_state(self.table.current_hand, self.table.context)

    # ------------------------------------------------------------------ stepping
    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        # Refuse before anything changes: a bad action must leave rewards, the pending
        # cumulative reward and the infos (hand_result) of this seat exactly as they were.
        action = self.table.verify(action)  # raises IllegalActionError naming seat, action and legal ones
        self._cumulative_rewards[agent] = 0.0
        self.infos[agent] = {}
        for a in self.agents:
            self.rewards[a] = 0.0
        outcome = self.table.apply(action)
        if outcome.hand_result is not None:
            self._end_hand(outcome)
        else:
            self.agent_selection = self.possible_agents[self.table.to_act]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_hand(self, outcome: Outcome) -> None:
        """A hand ended: rewards by team, ``hand_result`` / ``match_result`` infos (R11.4, R11.5),
        then the next hand's first bidder or the end of the episode."""
        assert outcome.hand_result is not None  # the caller's test
        info = outcome.hand_result.to_info()
        for a in self.agents:
            self.rewards[a] += outcome.rewards[self._seat[a] % 2]
            self.infos[a]["hand_result"] = info
        if outcome.match_result is not None:
            for a in self.agents:
                self.infos[a]["match_result"] = outcome.match_result.to_info()
        if outcome.episode_over:
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[self.table.to_act]

    # ------------------------------------------------------------------ rendering
    def render(self) -> str | None:
        """Mode "ansi": the table as text; "human": the table printed and None returned (PettingZoo)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use 'ansi' or 'human'")
            return None
        match = self.table.match
        score = (match.score[0], match.score[1]) if match is not None else None
        text = render_hand(self.table.current_hand, score)
        if self.render_mode == "human":
            print(text, end="\n\n")
            return None
        return text

    def close(self) -> None:
        pass
