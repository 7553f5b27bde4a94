"""The one game loop (``baloot_env.loop.play``): every turn's view, action and outcome; stops."""

from __future__ import annotations

import random

import pytest

from baloot_env.driver import DealSource, Table
from baloot_env.errors import IllegalActionError
from baloot_env.hand import HandState
from baloot_env.loop import play
from baloot_env.phases import BIDDING, PLAY


def _table(seed: int, episode: str = "hand") -> Table:
    table = Table(None, episode, DealSource(random.Random(seed)))
    table.reset()
    return table


def test_play_runs_the_episode_and_each_turn_is_what_the_seat_saw_and_did():
    table = _table(1)
    rng = random.Random(2)
    turns = list(play(table, lambda view: rng.choice(view.legal_actions)))
    assert table.over and turns[-1].outcome.episode_over and turns[-1].outcome.hand_result is not None
    assert [t.action for t in turns] == list(table.hand.history)  # every action, in order
    replay = HandState.replay(table.hand.deal, [t.action for t in turns[:-1]], table.hand.rules)
    assert replay.to_act == turns[-1].view.seat  # the last view was of the seat to act then
    assert all(t.action in t.view.legal_actions for t in turns)


def test_until_stops_before_the_turn_it_accepts_and_nothing_is_chosen_there():
    table = _table(3)
    asked = []

    def choose(view):
        asked.append(view.phase)
        return view.legal_actions[0] if view.phase != BIDDING else 32  # pass every call (R3)

    turns = list(play(table, choose, until=lambda view: view.phase == PLAY))
    assert all(p != PLAY for p in asked)
    assert table.over or table.hand.phase == PLAY  # stopped at the first card, or all passed
    assert len(turns) == len(asked) == len(table.hand.history)


def test_a_refused_action_raises_and_changes_nothing():
    table = _table(4)
    before = table.hand.to_json()
    seat = table.to_act
    with pytest.raises(IllegalActionError):
        next(play(table, lambda view: 0))  # card 0 during the bidding (R9)
    assert table.hand.to_json() == before and table.to_act == seat
