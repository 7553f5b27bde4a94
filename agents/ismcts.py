"""``ismcts``: OpenSpiel's information-set Monte Carlo tree search playing Baloot (issue 47).

An external search, written by others, to measure ours against. At each decision the seat's
view becomes an OpenSpiel state of ``python_baloot`` (``baloot_env.spiel``) in a world drawn for
it, and OpenSpiel's ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``, UCT over information
sets, random rollouts) searches from there. Every simulation starts from a fresh world with the
seat's information state, drawn by the game (``spiel.draw_world``: our exact sampler
``baloot_env.worlds``, then the deal and the public actions replayed) with this agent's seeded
generator, so evaluations reproduce. Where no such world is found (rare: public projects met by
rejection), the search keeps the world it has, counted in ``fallbacks``.

Params: ``simulations`` (default 100), ``uct_c`` (default 2.0), ``rollouts`` (random rollouts
per leaf, default 1). It needs ``open-spiel`` (the ``openspiel`` extra). Inside a match it
searches the hand alone: the game has no match score, which changes only a gahwa's score (R8.3).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from agents.base import Agent
from baloot_env.config import from_mapping
from baloot_env.match import MatchContext
from baloot_env.spiel import GAME_NAME, BalootState, draw_world, sampled_world, world_state
from baloot_env.view import PlayerView


@dataclass(frozen=True)
class IsmctsConfig:
    """Parameters of ``ismcts`` (module docstring)."""

    simulations: int = 100
    uct_c: float = 2.0
    rollouts: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.simulations <= 100_000 or not 1 <= self.rollouts <= 100:
            raise ValueError(f"ismcts params simulations (1-100,000) and rollouts (1-100), got {self}")
        if not 0 <= self.uct_c < 1e6:
            raise ValueError(f"ismcts param uct_c must be >= 0, got {self.uct_c!r}")


def _hand_alone() -> dict[str, Any]:
    """The match fields of a view of a hand played on its own (``MatchContext()``)."""
    alone = MatchContext()
    return {
        "match_mode": alone.mode,
        "match_score": alone.score,
        "deals_played": alone.deals_played,
        "hands_left": alone.hands_left,
    }


class IsmctsAgent(Agent):
    """OpenSpiel's IS-MCTS as an agent (module docstring)."""

    name = "ismcts"

    def __init__(self, seed: int = 0, config: IsmctsConfig | None = None):
        super().__init__(seed)
        self.config = config or IsmctsConfig()
        self.fallbacks = 0  # searches that kept a world for want of one with the information state

    def _bot(self, game: Any) -> Any:
        state = np.random.RandomState(self.rng.getrandbits(32))
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.config.rollouts, random_state=state)
        bot = ismcts.ISMCTSBot(game, evaluator, self.config.uct_c, self.config.simulations, random_state=state)
        bot.set_resampler(self.resample)  # OpenSpiel's hook for a game's own resampling
        return bot

    def resample(self, state: BalootState, player: int) -> BalootState:
        """A fresh world for ``player`` with its information state, drawn with this agent's
        generator (``BalootState.resample_from_infostate`` draws from OpenSpiel's unseeded
        sampler; ours keeps a duplicate evaluation reproducible), else the root."""
        world = state.world_for(player, self.rng)
        if world is None:
            self.fallbacks += 1
            root: BalootState = state.clone()
            return root
        return world

    def act(self, view: PlayerView) -> int:
        if len(view.legal_actions) == 1:
            return view.legal_actions[0]
        game = pyspiel.load_game(GAME_NAME, {"dealer": view.dealer, **view.rules.to_dict()})
        # The game is one hand at a match score of 0 (spiel): the view as that game shows it.
        alone = dataclasses.replace(view, **_hand_alone())
        root = draw_world(game, alone, self.rng)
        if root is None:  # no world with the seat's information state: one with its own cards and actions
            self.fallbacks += 1
            root = world_state(game, *sampled_world(alone, self.rng))
        return int(self._bot(game).step(root))

    def describe(self) -> dict[str, Any]:
        return {"agent": self.name, "params": {**self.config.__dict__}}


def make_ismcts(seed: int, params: dict[str, Any]) -> IsmctsAgent:
    """The registry's factory: params ``simulations``, ``uct_c``, ``rollouts``."""
    return IsmctsAgent(seed, from_mapping(IsmctsConfig, params, "ismcts param"))


__all__ = ["IsmctsAgent", "IsmctsConfig", "make_ismcts"]
