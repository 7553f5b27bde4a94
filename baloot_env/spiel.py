"""Baloot as an OpenSpiel game, ``python_baloot``: one hand, four players, chance deals the cards.

``import baloot_env.spiel`` registers the game (it needs ``open-spiel``, the ``openspiel`` extra), then
``pyspiel.load_game("python_baloot")`` gives it to OpenSpiel's tools and algorithms (random
simulation tests, IS-MCTS, the evaluators, bots) like any of its games. Every rule is the
engine's: a state holds a ``HandState`` and only forwards to it.

The game:

- **Chance**: 32 chance nodes shuffle the deck, each drawing the next card (0-31, uniform over
  those left); the deck then deals as ``deal.deal_of_deck`` does (5 cards each from the dealer's
  right, the 21st card turned, the rest the stock, R2). The dealer is the ``dealer`` parameter.
- **Players** 0-3 are seats 0-3; teams {0, 2} and {1, 3} (R1.1). Their actions are R9's 42 ids,
  the legal ones sorted (``HandState.legal_actions``); an illegal action raises the engine's
  ``IllegalActionError``.
- **Returns** at the end: each player's team's hand score minus the other team's, in game points
  (R7; reward mode ``"points"``): zero-sum, 0 for a thrown-in deal (R3.5).
- **Observations** (``observation_tensor``, 697 floats): the seat's own view, exactly the
  PettingZoo env's ``observation`` (``observation.encode``, R11.3); ``observation_string``: the
  seat's view as text. **Information state** (``information_state_string``): the seat's whole
  ``PlayerView`` as JSON (``PlayerView.to_struct``): its cards and every public action in order
  (the calls, the cards of every trick), never another seat's hand. Which five of its cards the
  seat was dealt first is left out: no rule or choice depends on it once the stock is dealt, and
  so every world a search samples for the seat has the same information state.
- **Saved hands**: a state's hand is the engine's ``HandState`` (``state.hand``), so
  ``state.hand.to_json()`` saves it in our format (``baloot-hand-2``, ``docs/schemas/hand.schema.json``),
  and ``state_of_json(game, data)`` makes the OpenSpiel state of a saved hand: the deck that
  deals it (``deal.deck_of_deal``) as the chance outcomes, then its actions. OpenSpiel's own
  ``serialize_state`` / ``deserialize_state`` work too (its history of actions).
- **Worlds**: ``world_state`` builds the state of given hands with a view's public actions
  replayed (``deck_of_hands``: a deck that deals them). ``sampled_world`` draws the hidden cards
  of a seat's view (in the card play by the engine's exact sampler, ``baloot_env.worlds``; before
  it, uniform over the unseen cards), and ``draw_world`` keeps drawing until the world has the
  seat's information state (``MAX_DRAWS``; the sampler meets public projects by rejection and
  can, rarely, return a world whose seat would declare other ones). So
  ``state.resample_from_infostate(player, sampler)`` works as OpenSpiel's algorithms expect
  (IS-MCTS calls it), seeded from OpenSpiel's probability sampler; ``agents/ismcts.py`` draws
  with its own seeded generator through ``state.world_for(player, rng)``.
- **Parameters**: ``dealer`` (0-3) and every switch of ``RuleConfig`` by its field name
  (``sun_double``, ``projects``, ``doubling``, ...), as OpenSpiel game parameters:
  ``pyspiel.load_game("python_baloot", {"projects": False})``.

Tested against the engine by ``tests/baloot_env/test_spiel.py`` (random games through OpenSpiel:
legal actions, returns and observations equal the engine's and the PettingZoo env's; OpenSpiel's
own ``random_sim_test``).
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import numpy as np
import pyspiel

from baloot_env.actions import NUM_ACTIONS, action_name
from baloot_env.cards import ALL_CARDS_MASK, NUM_CARDS, card_name, cards_of, mask_of
from baloot_env.config import from_mapping
from baloot_env.deal import FIRST_HAND_SIZE, SECOND_SHARE, deal_of_deck, deck_of_deal
from baloot_env.hand import BIDDING, PLAY, HandState
from baloot_env.observation import OBS_SIZE, encode
from baloot_env.rewards import Reward, hand_rewards
from baloot_env.rules import RuleConfig
from baloot_env.seats import NUM_SEATS, next_seat
from baloot_env.view import PlayerView
from baloot_env.worlds import WorldSampler

GAME_NAME = "python_baloot"
POINTS = Reward("points")
FULL_HAND = 8  # cards a seat holds once the stock is dealt (R2.3)
MAX_DRAWS = 100  # worlds drawn for one information state before giving up (module docstring)
MAX_RETURN = 2_000.0  # game points: above any hand's score difference (a gahwa is scored as its level's)
_RULE_PARAMS = {
    f.name: getattr(RuleConfig(), f.name)
    for f in dataclasses.fields(RuleConfig)
    if isinstance(getattr(RuleConfig(), f.name), (bool, int, str))
}
GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Baloot (one hand)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=NUM_SEATS,
    min_num_players=NUM_SEATS,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"dealer": 0, **_RULE_PARAMS},
)
# the longest hand: 8 bids and 4 doubling calls at most twice over is far below this bound
GAME_INFO = pyspiel.GameInfo(
    num_distinct_actions=NUM_ACTIONS,
    max_chance_outcomes=NUM_CARDS,
    num_players=NUM_SEATS,
    min_utility=-MAX_RETURN,
    max_utility=MAX_RETURN,
    utility_sum=0.0,
    max_game_length=NUM_CARDS + 64,
)


class BalootGame(pyspiel.Game):
    """``python_baloot`` (module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None):
        super().__init__(GAME_TYPE, GAME_INFO, params or {})
        given = self.get_parameters()
        self.dealer = int(given["dealer"])
        if not 0 <= self.dealer < NUM_SEATS:
            raise ValueError(f"dealer must be a seat 0-3, got {self.dealer}")
        self.rules = from_mapping(RuleConfig, {k: given[k] for k in _RULE_PARAMS}, "rule")

    def new_initial_state(self) -> BalootState:
        return BalootState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> BalootObserver:
        if params:
            raise ValueError(f"python_baloot's observer takes no parameters, got {params}")
        return BalootObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class BalootState(pyspiel.State):
    """A hand being dealt (the deck's order so far) or played (a ``HandState``)."""

    def __init__(self, game: BalootGame):
        super().__init__(game)
        self.deck: list[int] = []
        self.rules, self.dealer = game.rules, game.dealer
        self.hand: HandState | None = None
        self.played: list[tuple[int, int]] = []  # (seat, action) of every player move, in order

    def current_player(self) -> int:
        if self.hand is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.hand.result is not None:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.hand.to_act)

    def _legal_actions(self, player: int) -> list[int]:
        assert self.hand is not None and player == self.hand.to_act
        return sorted(self.hand.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sorted(set(range(NUM_CARDS)) - set(self.deck))
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        if self.hand is None:
            self.deck.append(int(action))
            if len(self.deck) == NUM_CARDS:
                self.hand = HandState(deal_of_deck(self.deck, self.dealer), self.rules)
            return
        seat = self.hand.to_act
        self.hand.apply(int(action))  # the engine checks it (IllegalActionError)
        self.played.append((seat, int(action)))

    def world_for(self, player: int, rng: random.Random) -> BalootState | None:
        """Another world with ``player``'s information state, drawn with ``rng`` (module
        docstring), or None when ``draw_world`` finds none (or the cards are not dealt yet)."""
        if self.hand is None:
            return None
        view = PlayerView.from_state(self.hand, player)
        return draw_world(self.get_game(), view, rng)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> BalootState:
        """OpenSpiel's resampling (what IS-MCTS calls): a world with ``player_id``'s information
        state, from a generator seeded by ``probability_sampler`` (a callable giving numbers in
        [0, 1)); this state's own copy where none is found."""
        world = self.world_for(player_id, random.Random(int(probability_sampler() * 2**53)))
        if world is None:
            same: BalootState = self.clone()
            return same
        return world

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_name(action)}"
        return f"seat {player}: {action_name(action)}"

    def is_terminal(self) -> bool:
        return self.hand is not None and self.hand.result is not None

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * NUM_SEATS
        assert self.hand is not None and self.hand.result is not None
        team = hand_rewards(POINTS, self.hand.result, match_episode=False)
        return [team[seat % 2] for seat in range(NUM_SEATS)]

    def __str__(self) -> str:
        if self.hand is None:
            return f"dealing: {' '.join(card_name(c) for c in self.deck)}"
        return f"{self.hand.phase}: " + " ".join(f"{s}:{action_name(a)}" for s, a in self.played)


class BalootObserver:
    """OpenSpiel's observer of ``python_baloot`` (module docstring): the seat's own view."""

    def __init__(self, iig_obs_type: Any):
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(0 if self.perfect_recall else OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor} if not self.perfect_recall else {}

    def set_from(self, state: BalootState, player: int) -> None:
        if self.perfect_recall:
            return  # the information state is a string only
        self.tensor[:] = encode(state.hand, player) if state.hand is not None else 0.0

    def string_from(self, state: BalootState, player: int) -> str:
        if state.hand is None:
            return f"seat {player}: dealing"
        if self.perfect_recall:  # the seat's whole view, in order (module docstring)
            return json.dumps(PlayerView.from_state(state.hand, player).to_struct(), sort_keys=True)
        hand = " ".join(card_name(c) for c in cards_of(state.hand.hands[player]))
        return f"seat {player} {state.hand.phase} hand {hand} | " + " ".join(
            f"{s}:{action_name(a)}" for s, a in state.played
        )


def public_actions(view: PlayerView) -> list[int]:
    """Every player action of the hand so far, in order: the bids (R3), the doubling calls (R4),
    then the cards of each trick and of the trick on the table (R5)."""
    out = [a for _, _, a in view.bids] + [a for _, a in view.doubling_calls]
    for _, cards, _ in view.tricks:
        out += cards
    return out + list(view.trick_cards)


def deck_of_hands(dealer: int, turned: int, caller: int, full_hands: list[int]) -> list[int]:
    """A deck (``deal_of_deck``'s order) that deals each seat its 8 cards ``full_hands`` once
    ``caller`` holds the contract (R2.3): each seat's first five, the turned card, then the stock
    in its dealing order (the caller's two besides the turned card, three to each other seat).
    Which of a seat's cards came first is this function's choice (module docstring)."""
    first: list[list[int]] = []
    shares: list[list[int]] = []
    for seat in range(NUM_SEATS):
        cards = [c for c in cards_of(full_hands[seat]) if c != turned]
        k = SECOND_SHARE - 1 if seat == caller else SECOND_SHARE
        first.append(cards[: len(cards) - k])
        shares.append(cards[len(cards) - k :])
    stock = [c for i in range(1, NUM_SEATS + 1) for c in shares[next_seat(dealer, i)]]
    return [c for hand in first for c in hand] + [turned] + stock


def sampled_world(view: PlayerView, rng: random.Random) -> tuple[list[int], list[int]]:
    """A deck consistent with ``view``, and the view's public actions (module docstring)."""
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


def draw_world(game: BalootGame, view: PlayerView, rng: random.Random) -> BalootState | None:
    """A world of ``game`` whose information state for ``view.seat`` is the view's (module
    docstring), or None after ``MAX_DRAWS`` draws. ``view`` is a view of this game: one hand at
    a match score of 0."""
    key = json.dumps(view.to_struct(), sort_keys=True)
    for _ in range(MAX_DRAWS):
        world = world_state(game, *sampled_world(view, rng))
        if world.information_state_string(view.seat) == key:
            return world
    return None


def world_state(game: BalootGame, deck: list[int], actions: list[int]) -> BalootState:
    """The state of ``game`` dealt from ``deck`` with ``actions`` played (each checked by the engine)."""
    state = game.new_initial_state()
    for card in deck:
        state.apply_action(card)
    for action in actions:
        state.apply_action(action)
    return state


def state_of_json(game: BalootGame, data: object) -> BalootState:
    """The state of ``game`` holding the hand that ``HandState.to_json`` saved (module docstring).

    Raises:
        StateError: ``data`` is not a saved hand (``HandState.from_json`` says what is wrong).
        ValueError: the hand was played under other rules, by another dealer or at a match score
            (the game is one hand on its own, dealt by its ``dealer`` parameter).
    """
    hand = HandState.from_json(data)
    if hand.rules != game.rules or hand.dealer != game.dealer or hand.match_score != (0, 0):
        raise ValueError(
            f"the saved hand (dealer {hand.dealer}, {hand.rules.describe()}, match score {hand.match_score}) "
            f"is not a hand of this game (dealer {game.dealer}, {game.rules.describe()}, match score (0, 0))"
        )
    return world_state(game, deck_of_deal(hand.deal), hand.history)


pyspiel.register_game(GAME_TYPE, BalootGame)

__all__ = [
    "GAME_NAME",
    "BalootGame",
    "BalootState",
    "deck_of_hands",
    "draw_world",
    "public_actions",
    "sampled_world",
    "state_of_json",
    "world_state",
]
