"""The JSON view (issue 47, goal 3): a seat's ``PlayerView`` by names, read back whole.

The completeness test: over 2,000 deals, the heuristic acting on a view that went through
``to_struct``, ``json.dumps``, ``json.loads`` and ``from_struct`` plays exactly as on the original
view, and the view read back has every public field equal. So nothing a seat may know is
missing from the JSON, and no hidden card is in it (it is built from the view alone).
"""

from __future__ import annotations

import json
import random

import pytest

from agents import HeuristicAgent, PlayerView
from baloot_env import HandState, random_deal
from baloot_env.actions import NUM_ACTIONS, action_name, parse_action
from baloot_env.cards import card_name
from baloot_env.rules import RuleConfig


def test_action_names_go_both_ways():
    assert [parse_action(action_name(a)) for a in range(NUM_ACTIONS)] == list(range(NUM_ACTIONS))
    assert parse_action("sun") == 37 and parse_action("TH") == 8 * 1 + 3 and action_name(40) == "four"
    for bad in ("hokum", "ZZ", "", "double!"):
        with pytest.raises(ValueError, match="not an action's name"):
            parse_action(bad)


@pytest.mark.slow
@pytest.mark.parametrize("rules", [RuleConfig(), RuleConfig(projects=False, sun_double=True, doubling=True)])
def test_the_heuristic_plays_the_same_from_the_json_view(rules):
    rng = random.Random(11)
    agents = [HeuristicAgent(s) for s in range(4)]
    decisions = 0
    for _ in range(1000):
        state = HandState(random_deal(rng), rules)
        while state.result is None:
            view = PlayerView.from_state(state, state.to_act)
            back = PlayerView.from_struct(json.loads(json.dumps(view.to_struct())))
            assert back.public_fields() == view.public_fields()
            action = agents[state.to_act].act(view)
            assert agents[state.to_act].act(back) == action
            state.apply(action)
            decisions += 1
    assert decisions > 1000 * 20


def test_the_json_names_cards_calls_and_the_legal_actions():
    state = HandState(random_deal(random.Random(5)))
    view = PlayerView.from_state(state, state.to_act)
    data = view.to_struct()
    assert data["hand"] == [card_name(c) for c in view.hand_cards]
    assert data["legal_actions"] == [action_name(a) for a in view.legal_actions] and "pass" in data["legal_actions"]
    assert data["turned"] == card_name(state.deal.turned) and data["phase"] == "bidding"
    with pytest.raises(ValueError, match="format"):
        PlayerView.from_struct({**data, "format": "other"})
