"""Teachers (``agents.teacher``): the contract labelling relies on, and the rollout network
given when a guided teacher is made."""

from __future__ import annotations

import json

import pytest

from agents import HeuristicAgent, PlayerView
from agents.judgement import Judgement
from agents.neural.bundle import load_policy
from agents.registry import AgentSpecError
from agents.search_player.netsearch import NetSearchAgent
from agents.search_player.player import SearchAgent
from agents.teacher import Acting, Teacher, guided, make_teacher
from baloot_env.rules import RuleConfig
from tests.helpers import card_decisions

CHAMPION = "policies/champion"


def _spec(tmp_path, **params) -> str:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"agent": "netsearch", "params": {"worlds": 4, "calls": "heuristic", **params}}))
    return str(path)


def test_a_search_decides_and_any_other_agent_acts_without_values():
    state, seat = next(card_decisions(RuleConfig(), 1, seed=2))
    view = PlayerView.from_state(state, seat)
    search = make_teacher("search", 0)
    assert isinstance(search, SearchAgent) and isinstance(search, Teacher)
    judged = search.judge(view)
    values, errors = judged.values, judged.errors
    assert values is not None and set(values) == set(view.legal_actions) and judged.action in values
    assert errors is not None and set(errors) == set(values) and errors[judged.action] == 0
    heuristic = make_teacher("heuristic", 0)
    assert isinstance(heuristic, Acting) and heuristic.name == "heuristic"
    assert heuristic.judge(view) == Judgement(HeuristicAgent(0).act(view))


def test_the_rollout_network_is_given_when_the_teacher_is_made(tmp_path):
    rollout = load_policy("policies/strong")
    t = make_teacher(_spec(tmp_path, leaves="policy"), 0, rollout)
    assert isinstance(t, NetSearchAgent)
    assert t.rollout is rollout and t.search.leaf_values is not None and t.search.leaf_values.args == (rollout.net,)
    own = make_teacher(_spec(tmp_path, leaves="policy"), 0)  # no rollout: the policy plays the playouts
    assert isinstance(own, NetSearchAgent) and own.rollout is own.policy


def test_only_a_netsearch_with_network_playouts_takes_a_rollout(tmp_path):
    rollout = load_policy(CHAMPION)
    assert guided(_spec(tmp_path, leaves="policy"))
    for spec in ("search", "heuristic", _spec(tmp_path), _spec(tmp_path, leaves="critic")):
        assert not guided(spec)
        with pytest.raises(AgentSpecError, match="guided teacher"):
            make_teacher(spec, 0, rollout)
