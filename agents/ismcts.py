"""``ismcts``: OpenSpiel's information-set Monte Carlo tree search playing Baloot (issue 47).

An external search, written by others, to measure ours against. At each decision the seat's
view becomes an OpenSpiel state of ``python_baloot`` (``baloot_env.spiel``) in a world drawn for
it, and OpenSpiel's ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``, UCT over information
sets, random rollouts) searches from there. Every simulation starts from a fresh world drawn for
the seat to act (``resample``):

- in the card play, by our exact sampler (``agents.search_player.sampling.WorldSampler``: the
  cards every seat has shown it lacks, the public projects and the baloot respected);
- after the contract, before a card is played: the other seats' 8 cards uniform over the unseen
  ones, the turned card with the caller;
- in the bidding: the other seats' first five cards and the stock uniform over the unseen ones.

The world's cards are dealt by ``spiel.deck_of_hands`` and the view's public actions replayed
(``spiel.world_state``). OpenSpiel's IS-MCTS requires that every world has the seat's own
information state, and a drawn world can miss it: the sampler meets the public projects by
rejection and, after its ``max_tries``, returns a world anyway, whose seat may then declare other
projects. So a world is drawn again until its information state is the seat's (``MAX_DRAWS``);
where none is found, the search keeps the world it has (the root, whose information state is
the seat's), counted in ``fallbacks``. Params:
``simulations`` (default 100), ``uct_c`` (default 2.0), ``rollouts`` (random rollouts per leaf,
default 1). It needs ``open-spiel`` (the ``openspiel`` extra); hand episodes only (a match's
score is not in OpenSpiel's game).
"""

from __future__ import annotations

import dataclasses
import json
import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from agents.base import Agent
from agents.search_player.sampling import WorldSampler
from baloot_env.cards import ALL_CARDS_MASK, NUM_SEATS, cards_of, mask_of
from baloot_env.config import from_mapping
from baloot_env.deal import FIRST_HAND_SIZE
from baloot_env.hand import BIDDING, PLAY
from baloot_env.match import MatchContext
from baloot_env.spiel import GAME_NAME, BalootState, deck_of_hands, public_actions, world_state
from baloot_env.view import PlayerView

FULL_HAND = 8  # cards a seat holds once the stock is dealt (R2.3)
MAX_DRAWS = 100  # worlds drawn for one information state before the search keeps the one it has


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


def sampled_world(view: PlayerView, rng: random.Random) -> tuple[list[int], list[int]]:
    """A deck consistent with ``view`` and the view's public actions (module docstring)."""
    actions = public_actions(view)
    if view.phase == BIDDING:
        unseen = cards_of(ALL_CARDS_MASK & ~view.hand & ~(1 << view.turned))
        rng.shuffle(unseen)
        first = [cards_of(view.hand) if s == view.seat else [] for s in range(NUM_SEATS)]
        for s in range(NUM_SEATS):
            if s != view.seat:
                first[s], unseen = unseen[:FIRST_HAND_SIZE], unseen[FIRST_HAND_SIZE:]
        return [c for hand in first for c in hand] + [view.turned] + unseen, actions
    if view.phase == PLAY and (view.tricks or view.trick_cards):
        holdings = WorldSampler(view, view.rules.projects, view.rules.four_aces_hokum).sample(rng)
        full = [holdings[s] | view.played_by[s] for s in range(NUM_SEATS)]
    else:  # the contract is settled, no card played yet
        full = [view.full_hand if s == view.seat else 0 for s in range(NUM_SEATS)]
        if view.caller != view.seat:
            full[view.caller] = 1 << view.turned
        unseen = cards_of(ALL_CARDS_MASK & ~view.full_hand & ~(1 << view.turned))
        rng.shuffle(unseen)
        for s in range(NUM_SEATS):
            if s != view.seat:
                need = FULL_HAND - full[s].bit_count()
                full[s] |= mask_of(unseen[:need])
                unseen = unseen[need:]
    full[view.seat] = view.full_hand
    return deck_of_hands(view.dealer, view.turned, view.caller, full), actions


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
        bot._resampler_cb = self.resample  # OpenSpiel's hook for a game's own resampling
        return bot

    def _draw(self, game: Any, view: PlayerView, key: str) -> BalootState | None:
        """A world of ``game`` whose information state for ``view.seat`` is ``key``, or None
        after ``MAX_DRAWS`` draws (module docstring)."""
        for _ in range(MAX_DRAWS):
            world = world_state(game, *sampled_world(view, self.rng))
            if world.information_state_string(view.seat) == key:
                return world
        return None

    def resample(self, state: BalootState, player: int) -> BalootState:
        """A fresh world for ``player`` with its information state, else the root (module docstring)."""
        assert state.hand is not None
        view = PlayerView.from_state(state.hand, player)
        world = self._draw(state.get_game(), view, state.information_state_string(player))
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
        root = self._draw(game, alone, json.dumps(alone.to_struct(), sort_keys=True))
        if root is None:  # no world with the seat's information state: one with its own cards and actions
            self.fallbacks += 1
            root = world_state(game, *sampled_world(view, self.rng))
        return int(self._bot(game).step(root))

    def describe(self) -> dict[str, Any]:
        return {"agent": self.name, "params": {**self.config.__dict__}}


def make_ismcts(seed: int, params: dict[str, Any]) -> IsmctsAgent:
    """The registry's factory: params ``simulations``, ``uct_c``, ``rollouts``."""
    return IsmctsAgent(seed, from_mapping(IsmctsConfig, params, "ismcts param"))


__all__ = ["IsmctsAgent", "IsmctsConfig", "make_ismcts", "sampled_world"]
