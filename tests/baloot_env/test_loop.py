"""The one game loop (``baloot_env.loop.play``): every turn's view, action and outcome; stops."""

from __future__ import annotations

import random

import pytest

from baloot_env.driver import DealSource, Table
from baloot_env.errors import IllegalActionError
from baloot_env.hand import HandState
from baloot_env.loop import play, play_hands
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


def test_play_hands_deals_a_hand_while_not_enough_and_each_ends_with_its_result():
    """``play_hands``: ``enough`` is asked before each hand, ``new_hand`` after its deal; every
    hand played to its end carries its result on its last turn; ``until`` cuts a hand short."""
    table = Table(None, "hand", DealSource(random.Random(3)))
    rng = random.Random(4)
    deals, ends, turns = [], 0, 0

    def new_hand():
        deals.append(table.hand.deal)  # dealt already: new_hand comes after reset
        return lambda view: rng.choice(view.legal_actions)

    for turn in play_hands(table, new_hand, lambda: len(deals) >= 3):
        turns += 1
        ends += turn.outcome.hand_result is not None
    assert len(deals) == 3 and len(set(map(repr, deals))) == 3 and ends == 3 and turns > 3 * 4

    deals.clear()
    bids = list(play_hands(table, new_hand, lambda: len(deals) >= 2, until=lambda view: view.phase != BIDDING))
    assert len(deals) == 2 and bids and all(t.view.phase == BIDDING for t in bids)
