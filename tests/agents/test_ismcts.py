"""``ismcts``: OpenSpiel's IS-MCTS as an agent (issue 47, goal 2). Its worlds keep the seat's
information state in every phase; it plays legal moves in the evaluator; it beats ``random``."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("pyspiel", reason="ismcts needs open-spiel (the openspiel extra)")

from agents import HeuristicAgent, PlayerView  # noqa: E402
from agents.ismcts import IsmctsAgent, IsmctsConfig, sampled_world  # noqa: E402
from agents.registry import AgentSpecError, make_agent  # noqa: E402
from baloot_env import HandState, random_deal  # noqa: E402
from eval.deals import load_named  # noqa: E402
from eval.runner import run_duplicate  # noqa: E402


def test_every_sampled_world_gives_the_seat_its_own_view():
    """In the bidding, after the contract and in the play: a world drawn for the seat, dealt and
    replayed, shows the seat exactly its view (its cards, every public action, what play showed),
    and the other seats hold what the seat cannot see."""
    import pyspiel

    from baloot_env.spiel import GAME_NAME, world_state

    rng = random.Random(4)
    heuristic = [HeuristicAgent(s) for s in range(4)]
    phases = set()
    for _ in range(30):
        state = HandState(random_deal(rng))
        game = pyspiel.load_game(GAME_NAME, {"dealer": state.dealer})
        while state.result is None:
            view = PlayerView.from_state(state, state.to_act)
            for _ in range(2):
                deck, actions = sampled_world(view, rng)
                world = world_state(game, deck, actions)
                back = PlayerView.from_state(world.hand, view.seat)
                assert json.dumps(back.to_struct(), sort_keys=True) == json.dumps(view.to_struct(), sort_keys=True)
            phases.add(view.phase)
            state.apply(heuristic[state.to_act].act(view))
    assert phases == {"bidding", "doubling", "play"}


def test_ismcts_plays_in_the_evaluator_and_beats_random(tmp_path):
    agent = make_agent("ismcts", seed=1)
    assert isinstance(agent, IsmctsAgent) and agent.config == IsmctsConfig()
    spec = tmp_path / "ismcts16.json"
    spec.write_text(json.dumps({"agent": "ismcts", "params": {"simulations": 16}}))
    run = run_duplicate(str(spec), "random", load_named("dev960").head(6), matches=False)
    assert sum(r.d for r in run.records) / len(run.records) > 0  # every move legal, and better than chance
    spec.write_text(json.dumps({"agent": "ismcts", "params": {"simulations": 0}}))
    with pytest.raises(AgentSpecError, match="simulations"):
        make_agent(str(spec))
