"""``netsearch``'s ``prune``: the searched cards are the network's likely ones, searched in the
same worlds as without pruning, and a card the network alone finds likely is played unsearched."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from agents import HeuristicAgent, PlayerView
from agents.registry import make_agent
from agents.search_player.netsearch import NetSearchConfig
from baloot_env.cards import cards_of
from baloot_env.deal import random_deal
from baloot_env.errors import ConfigError
from baloot_env.hand import PLAY, HandState
from baloot_env.rules import RuleConfig


def _card_decisions(hands: int, seed: int):
    """Every card decision with two legal cards or more in seeded ``heuristic`` hands."""
    rng = random.Random(seed)
    agents = [HeuristicAgent(s) for s in range(4)]
    for _ in range(hands):
        state = HandState(random_deal(rng), RuleConfig())
        while state.result is None:
            view = PlayerView.from_state(state, state.to_act)
            if state.phase == PLAY and len(cards_of(view.legal_mask)) > 1:
                yield view
            state.apply(agents[state.to_act].act(view))


def _agents(tmp_path, prune: float, leaves: str = "playout"):
    spec = {"worlds": 12, "calls": "heuristic", "leaves": leaves}
    (tmp_path / "full.json").write_text(json.dumps({"agent": "netsearch", "params": spec}))
    (tmp_path / "pruned.json").write_text(json.dumps({"agent": "netsearch", "params": {**spec, "prune": prune}}))
    return make_agent(str(tmp_path / "full.json"), 3), make_agent(str(tmp_path / "pruned.json"), 3)


def test_pruned_search_values_the_likely_cards_as_the_full_search_does(tmp_path):
    """Heuristic playouts (a world's value of a card does not depend on the other cards): the
    pruned search's values are the full search's values of the cards the network gives at least
    ``prune`` (and of its favourite), world for world; no other card is valued."""
    full, pruned = _agents(tmp_path, 0.1)
    assert pruned.describe()["params"]["prune"] == 0.1
    narrowed = searched = 0
    for view in _card_decisions(4, seed=2):
        legal = cards_of(view.legal_mask)
        probs = np.exp(full.log_policy(view))
        favourite = max(legal, key=lambda c: (probs[c], -c))
        expected = [c for c in legal if c == favourite or probs[c] >= 0.1]
        assert pruned.candidates(view) == expected
        assert favourite in expected and all(probs[c] >= 0.1 for c in expected if c != favourite)
        if len(expected) == 1:
            continue
        a = full.search.card_values(view, random.Random(9))
        b = pruned.search.card_values(view, random.Random(9), expected)
        assert b.cards == tuple(expected)
        columns = [a.cards.index(c) for c in expected]
        np.testing.assert_array_equal(b.per_world, a.per_world[:, columns])
        judged = pruned.judge(view)
        assert set(judged.values) == set(expected) and judged.action in expected
        narrowed += len(expected) < len(legal)
        searched += 1
    assert searched > 10 and narrowed > 5  # the network rules cards out in many decisions


def test_a_card_alone_above_the_bar_is_played_without_search(tmp_path, monkeypatch):
    _, pruned = _agents(tmp_path, 0.9)

    def no_search(*args, **kwargs):
        raise AssertionError("searched a decision the network settles alone")

    alone = 0
    for view in _card_decisions(3, seed=4):
        if len(pruned.candidates(view)) == 1:
            probs = np.exp(pruned.log_policy(view))
            monkeypatch.setattr(pruned.search, "card_values", no_search)
            judged = pruned.judge(view)
            monkeypatch.undo()
            assert judged.values is None
            assert probs[judged.action] == max(probs[c] for c in cards_of(view.legal_mask))
            alone += 1
    assert alone > 5


def test_network_playouts_with_pruning_search_only_the_candidates(tmp_path):
    _, pruned = _agents(tmp_path, 0.2, leaves="policy")
    checked = 0
    for view in _card_decisions(2, seed=6):
        judged = pruned.judge(view)
        candidates = pruned.candidates(view)
        assert judged.action in candidates
        if len(candidates) > 1:
            assert sorted(judged.values) == candidates
            checked += 1
    assert checked > 5


@pytest.mark.parametrize("bad", [-0.1, 1.0, 2, float("nan")])
def test_netsearch_refuses_a_prune_it_cannot_use(bad):
    with pytest.raises(ConfigError, match="prune"):
        NetSearchConfig.from_dict({"prune": bad})


def test_netsearch_refuses_prune_on_the_python_backend():
    with pytest.raises(ConfigError, match="prune"):
        NetSearchConfig.from_dict({"prune": 0.1, "backend": "python"})
