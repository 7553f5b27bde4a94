"""A search that stops drawing worlds once its choice is settled (``SearchConfig.stop_z``,
``CardValues.settled``): hand-worked cases of the rule, and real decisions where the stopped
search is the full search cut at the first settled look."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents import PlayerView
from agents.search_player.card_values import CardValues
from agents.search_player.player import SearchAgent, SearchConfig
from baloot_env.errors import ConfigError
from baloot_env.rules import RuleConfig
from tests.helpers import card_decisions


def _values(per_world: list[list[float]]) -> CardValues:
    x = np.array(per_world, dtype=np.float64)
    return CardValues((3, 7, 12), x.sum(axis=0), x, 1)


def test_settled_by_hand():
    # card 3 ahead of 7 by 2 in every world (no spread: settled), of 12 by a mean 2, se 1/sqrt(2)
    clear = _values([[4, 2, 1], [5, 3, 3], [6, 4, 4], [5, 3, 0]])
    assert clear.settled(2.0)  # gaps to 12: 3, 2, 2, 5: mean 3, sd 1.41, se 0.71: 4.2 se
    assert not clear.settled(5.0)
    # card 7 plays as 3 in every world (equivalent): only 12 is tested
    alike = _values([[4, 4, 1], [5, 5, 3], [6, 6, 4], [5, 5, 0]])
    assert alike.settled(2.0)
    # two best cards level on the mean but not alike in every world: never settled
    level = _values([[4, 6, 0], [6, 4, 0], [5, 5, 0], [5, 5, 0]])
    assert not level.settled(0.0)
    # one world: no error to measure
    assert not _values([[9, 0, 0]]).settled(0.0)


@pytest.mark.parametrize("z", [1.0, 3.0])
def test_a_stopped_search_is_the_full_search_cut_at_its_first_settled_look(z):
    """Worlds are drawn ``stop_worlds`` at a time from the same stream, so a search that stops
    after n worlds has the first n worlds of the full search, and its choice is settled there and
    at no earlier look."""
    full = SearchAgent(0, SearchConfig(worlds=96))
    stopping = SearchAgent(0, SearchConfig(worlds=96, stop_z=z, stop_worlds=16))
    used = []
    for n_decision, (state, seat) in enumerate(card_decisions(RuleConfig(), 3, seed=8)):
        view = PlayerView.from_state(state, seat)
        a = full.card_values(view, random.Random(n_decision))
        b = stopping.card_values(view, random.Random(n_decision))
        n = b.worlds
        assert n % 16 == 0 and 16 <= n <= 96
        np.testing.assert_array_equal(b.per_world, a.per_world[:n])
        assert stopping.last_stats["worlds"] == n
        cut = [CardValues(a.cards, a.per_world[:m].sum(axis=0), a.per_world[:m], 1) for m in range(16, n + 1, 16)]
        assert [c.settled(z) for c in cut[:-1]] == [False] * (len(cut) - 1)
        assert n == 96 or cut[-1].settled(z)
        if n < 96:
            assert b.values() == pytest.approx(cut[-1].values())
        used.append(n)
    assert min(used) < 96 and len(used) > 30  # some decisions stop early
    if z == 1.0:
        assert np.mean(used) < 64


def test_stop_config():
    assert SearchConfig.from_dict({"stop_z": 2.0}).to_dict()["stop_z"] == 2.0
    assert "stop_z" not in SearchConfig().to_dict()  # descriptions without it stay as they were
    for bad in ({"stop_z": -1.0}, {"stop_z": float("nan")}, {"stop_worlds": 1}, {"stop_worlds": True}):
        with pytest.raises(ConfigError, match="stop_"):
            SearchConfig.from_dict(bad)
    for other in ({"backend": "python"}, {"time_budget": 0.1}):
        with pytest.raises(ConfigError, match="stop_z"):
            SearchConfig.from_dict({"stop_z": 2.0, **other})
