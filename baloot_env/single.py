"""``BalootEnv``: Baloot for one learner seat as a Gymnasium ``Env``, registered as ``baloot/Baloot-v0``.

Spec sheet
----------
Make it: ``import baloot_env.single`` registers the id, then
``gymnasium.make("baloot/Baloot-v0", opponents="heuristic")``; or, without the import,
``gymnasium.make("baloot_env.single:baloot/Baloot-v0", ...)`` (Gymnasium's "module:id" form:
Gymnasium 1.x loads no plugin entry points, so the module that registers must be imported).
``BalootEnv(...)`` directly works too.

Learner: one seat (``learner="seat"``, default; its partner is played like the opponents or by
``partner``) or both seats of a team (``learner="team"``). ``position`` fixes the seat (0-3) or
team (0, 1); None (default) draws it per episode from ``np_random``.

Other seats: ``opponents`` is an agent spec (``"heuristic"`` default, ``"random"``,
``"search"``, a policy bundle folder, an agent file), an ``agents.Agent``, or a callable
``f(observations, masks) -> actions`` on arrays (``baloot_env.lockstep``).

Actions: ``Discrete(42)``, R9: 0-31 play that card, 32 pass, 33-36 hokum S/H/D/C, 37 sun,
38-41 double/three/four/gahwa. ``action_masks()`` (what sb3-contrib's ``MaskablePPO`` reads)
and ``obs["action_mask"]`` give the legal ones; sample with
``env.action_space.sample(mask=obs["action_mask"])``.

Illegal actions: Gymnasium's action space cannot say which of the 42 ids are legal now, and
``gymnasium.utils.env_checker.check_env`` steps random ids, so by default (``illegal="penalty"``)
an illegal action changes nothing in the game, pays ``illegal_reward`` (default -1.0, a Sun
kaboot's worth in "diff" units) and the learner acts again; the info says
``{"illegal_action": True}``. This is how Gymnasium's own Taxi treats an impossible action.
``illegal="raise"`` raises ``IllegalActionError`` instead, as the PettingZoo env does.

Observations: ``Dict({"observation": Box(0, 1, (OBS_SIZE,), float32), "action_mask": Box(0, 1,
(42,), int8)})``, the PettingZoo env's space: the acting learner seat's own view
(``baloot_env.observation.PIECES``). After the episode ends: the last acting seat's view, mask
all zeros.

Rewards (``reward="diff"|"points"|"win"``, ``match_bonus``): ``baloot_env.rewards``, from the
learner's team's side; a hand's reward lands on the learner's last decision of that hand, even
when another seat's card ended it.

Episodes: ``episode="hand"`` (one deal; a thrown-in deal ends it with reward 0) or ``"match"``
(R8). ``terminated`` at the end; nothing is truncated. Infos: ``hand_result`` (R11.4) on the
step that ended a hand, ``match_result`` (R11.5) at a match's end, and at the end
``episode_summary``.

Seeding and reset: ``reset(seed=s)`` plays the deals of ``default_rng(s)`` (``np_random``; with
``position`` fixed, the very deals of the PettingZoo env's ``reset(seed=s)``) and re-seeds the
agents; ``options={"deal": d}`` or ``{"deals": [d, ...]}`` play given deals first (R2.4, R11.2).

Rendering: ``render_mode="ansi"`` returns the table as text (every hand shown), ``"human"``
prints it.

Version history: v0, first release (OBS_VERSION 1, ACTION_VERSION 1).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from baloot_env.actions import NUM_ACTIONS
from baloot_env.driver import DealSource, reset_arguments
from baloot_env.errors import BalootError
from baloot_env.lockstep import Game, LockstepGames
from baloot_env.observation import OBS_SIZE, action_mask, encode
from baloot_env.render import render_hand
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig

ENV_ID = "baloot/Baloot-v0"
ILLEGAL = ("penalty", "raise")

__all__ = ["ENV_ID", "BalootEnv"]


class BalootEnv(gymnasium.Env[Any, Any]):
    """One learner seat (or team) against agents, as a Gymnasium ``Env`` (module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "name": ENV_ID, "render_fps": 1}

    def __init__(
        self,
        opponents: Any = "heuristic",
        learner: str = "seat",
        position: int | None = None,
        partner: Any = None,
        episode: str = "hand",
        rules: RuleConfig | None = None,
        reward: str | Reward = "diff",
        match_bonus: float = 1.0,
        illegal: str = "penalty",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ):
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be one of {ILLEGAL}, got {illegal!r}")
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        self.games = LockstepGames(
            1,
            learner=learner,
            position=position,
            opponents=opponents,
            partner=partner,
            episode=episode,
            rules=rules,
            reward=reward,
            match_bonus=match_bonus,
            autoreset=False,
        )
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, shape=(OBS_SIZE,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._over = True
        self._terminal: dict[str, np.ndarray] | None = None

    @property
    def game(self) -> Game:
        """The one game (``baloot_env.lockstep.Game``: its ``table``, learner seats, players)."""
        return self.games.games[0]

    # ------------------------------------------------------------------ Gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        seed, deals, unknown = reset_arguments(seed, options)  # refused before anything changes
        if unknown:
            raise BalootError(f"unknown reset options {unknown}; known: 'deal', 'deals'")
        super().reset(seed=seed)
        if seed is not None:
            self.games._seed_players(seed)
        g = self.game
        g.rng = self.np_random  # positions and deals come from the env's generator
        g.table.deals = DealSource(self.np_random, deals, dealers="given")
        self.games.new_episode(0)
        self.games.advance(np.zeros(1, np.float32), np.zeros(1, bool), [{}])
        self._over = False
        self._terminal = None
        if self.render_mode == "human":
            self.render()
        return self._observation(), {}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self._over:
            raise BalootError("the episode is over: call reset() first")
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()  # what a policy's predict() returns for one observation
        hand = self.game.hand
        if not (_is_action(action) and hand.legal_mask() >> int(action) & 1):
            if self.illegal == "raise":
                hand.verify(action)  # raises IllegalActionError naming the seat, the action and the legal ones
            return self._observation(), self.illegal_reward, False, False, {"illegal_action": True}
        rewards, dones, infos = self.games.learner_step([int(action)])
        info = infos[0]
        if dones[0]:
            self._over = True
            terminal = info.pop("terminal_observation")
            info.pop("episode", None)
            self._terminal = {"observation": terminal, "action_mask": np.zeros(NUM_ACTIONS, np.int8)}
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(rewards[0]), bool(dones[0]), False, info

    def action_masks(self) -> np.ndarray:
        """The legal actions now (bool[42]; all False once the episode is over)."""
        if self._over:
            return np.zeros(NUM_ACTIONS, bool)
        hand = self.game.hand
        return action_mask(hand, hand.to_act).astype(bool)

    def _observation(self) -> dict[str, np.ndarray]:
        if self._over:
            if self._terminal is None:
                raise BalootError("the episode has not started: call reset() first")
            return {k: v.copy() for k, v in self._terminal.items()}
        hand, context = self.game.hand, self.game.table.context
        return {"observation": encode(hand, hand.to_act, context), "action_mask": action_mask(hand, hand.to_act)}

    def render(self) -> str | None:  # type: ignore[override]  # the ANSI text, a RenderFrame of gymnasium's "ansi" mode
        """Mode "ansi": the table as text; "human": printed, None returned."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use 'ansi' or 'human'")
            return None
        table = self.game.table
        if table.hand is None:
            text = "(no hand yet: call reset())"
        else:
            score = (table.match.score[0], table.match.score[1]) if table.match is not None else None
            text = render_hand(table.hand, score)
        if self.render_mode == "human":
            print(text, end="\n\n")
            return None
        return text

    def close(self) -> None:
        pass


def _is_action(action: Any) -> bool:
    """An action id of the right type (R9: an int in 0-41, numpy integers included)."""
    return isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= int(action) < NUM_ACTIONS


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="baloot_env.single:BalootEnv")
