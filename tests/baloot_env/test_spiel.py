"""``python_baloot``, the OpenSpiel game (issue 47): checked against the PettingZoo env on the same
deals and actions, by OpenSpiel's own random simulation test, and through OpenSpiel's RL
environment."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel game needs open-spiel (the openspiel extra)")

import baloot_env.spiel  # noqa: E402,F401  (registers python_baloot)
from baloot_env import env  # noqa: E402
from baloot_env.deal import deal_of_deck, deck_of_deal  # noqa: E402


def _play_both(seed: int, params: dict | None = None, rules=None) -> int:
    """One hand through OpenSpiel (chance and moves drawn from ``seed``) and the same deal and
    moves through the PettingZoo env (``reward="points"``); every legal set, observation and the
    returns must agree. Returns the number of moves compared."""
    rng = random.Random(seed)
    game = pyspiel.load_game("python_baloot", params or {})
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        assert abs(sum(probs) - 1) < 1e-9 and len(set(outcomes)) == len(outcomes)
        state.apply_action(rng.choice(outcomes))
    deck = [int(a) for a in state.history()]
    e = env(episode="hand", reward="points", **({"rules": rules} if rules else {}))
    e.reset(options={"deal": deal_of_deck(deck, (params or {}).get("dealer", 0))})
    totals = dict.fromkeys(e.possible_agents, 0.0)
    moves = 0
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        seat = int(agent.split("_")[1])
        assert state.current_player() == seat
        assert state.legal_actions() == [int(a) for a in np.flatnonzero(obs["action_mask"])]
        assert np.array_equal(np.asarray(state.observation_tensor(seat), dtype=np.float32), obs["observation"])
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        e.step(action)
        for a, r in e.rewards.items():  # every seat's reward of this step (the hand's, at its end)
            totals[a] += r
        moves += 1
    assert state.is_terminal()
    returns = state.returns()
    assert returns == [totals[f"player_{s}"] for s in range(4)]
    assert sum(returns) == 0 and returns[0] == returns[2] and returns[1] == returns[3]
    return moves


def _decisions(game, rng: random.Random, hands: int, choose):
    """Every player decision of ``hands`` random deals (chance drawn from ``rng``), each yielded
    before ``choose(state)`` picks its action, then each hand's terminal state."""
    for _ in range(hands):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                continue
            yield state
            state.apply_action(choose(state))
        yield state


def test_the_openspiel_game_is_the_environments_game():
    moves = sum(_play_both(seed) for seed in range(12))
    assert moves > 12 * 20


def test_rule_parameters_and_the_dealer_reach_the_engine():
    from baloot_env.rules import RuleConfig

    game = pyspiel.load_game("python_baloot", {"projects": False, "dealer": 2})
    assert game.rules == RuleConfig(projects=False) and game.dealer == 2
    assert _play_both(3, {"projects": False, "dealer": 2}, RuleConfig(projects=False)) > 0
    with pytest.raises(Exception, match="dealer"):
        pyspiel.load_game("python_baloot", {"dealer": 7})


def test_openspiels_random_simulation_test_passes_with_serialization():
    pyspiel.random_sim_test(pyspiel.load_game("python_baloot"), num_sims=10, serialize=True, verbose=False)


def test_deck_of_deal_is_the_inverse_of_deal_of_deck():
    rng = random.Random(5)
    for dealer in range(4):
        deck = list(range(32))
        rng.shuffle(deck)
        assert deck_of_deal(deal_of_deck(deck, dealer)) == deck


def test_a_saved_hand_goes_to_openspiel_and_back():
    """Random states at every point of a hand: saved by the engine (``state.hand.to_json``), read
    back by ``state_of_json`` into a state with the same history, strings and legal actions."""
    from baloot_env.hand import HandState
    from baloot_env.rules import RuleConfig
    from baloot_env.spiel import state_of_json

    rng = random.Random(8)
    game = pyspiel.load_game("python_baloot", {"dealer": 1, "sun_double": True})
    checked = 0
    for state in _decisions(game, rng, hands=6, choose=lambda s: rng.choice(s.legal_actions())):
        if state.is_terminal():
            done = state_of_json(game, state.hand.to_json())
            assert done.returns() == state.returns() and done.is_terminal()
            continue
        back = state_of_json(game, state.hand.to_json())
        assert back.history() == state.history() and str(back) == str(state)
        assert back.legal_actions() == state.legal_actions()
        for seat in range(4):
            assert back.information_state_string(seat) == state.information_state_string(seat)
        checked += 1
    assert checked > 6 * 20
    other = HandState(deal_of_deck(list(range(32)), 0), RuleConfig(sun_double=True))
    with pytest.raises(ValueError, match="not a hand of this game"):
        state_of_json(game, other.to_json())  # dealt by seat 0, the game's dealer is 1


def test_openspiels_rl_environment_plays_it_from_the_seats_observations():
    from open_spiel.python import rl_environment

    environment = rl_environment.Environment(
        "python_baloot",
        observation_type=rl_environment.ObservationType.OBSERVATION,
        chance_event_sampler=rl_environment.ChanceEventSampler(seed=1),
    )
    assert environment.observation_spec()["info_state"] == (697,)
    rng = np.random.default_rng(0)
    for _ in range(3):
        step = environment.reset()
        while not step.last():
            player = step.observations["current_player"]
            step = environment.step([int(rng.choice(step.observations["legal_actions"][player]))])
        assert sum(step.rewards) == 0 and step.rewards[0] == step.rewards[2]


def test_openspiels_own_ismcts_runs_on_the_game_through_resample_from_infostate():
    """OpenSpiel's IS-MCTS as anyone would run it on the game (no hook of ours): it resamples
    through ``state.resample_from_infostate``, whose worlds keep the player's information state
    (the bot asserts it), and it plays whole hands."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_baloot")
    rs = np.random.RandomState(3)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, 10, random_state=rs)
    rng = random.Random(6)
    resampled = 0
    for state in _decisions(game, rng, hands=2, choose=bot.step):
        if state.is_terminal():
            continue
        player = state.current_player()
        world = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert world.information_state_string(player) == state.information_state_string(player)
        resampled += 1
    assert resampled > 2 * 20
