"""Critic leaves (``agents.search_player.critic_leaves``) against the engine.

For decisions of real hands, with the true holdings as the one world: after each legal card the
kernel's network input must be the engine's observation of the seat to act (``PlayerView``)
followed by ``observation.seat_hidden_hands`` of the four hands from that seat, with the sign of that
seat's team; a card that ends the hand must have the engine's score. Then ``critic_values`` must
equal those values put together by hand with the network's value head.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import PlayerView
from agents.neural.network import BalootNet, NetSpec
from agents.search_player.batch_endgame import claim_stamps
from agents.search_player.critic_leaves import REWARD_SCALE, critic_values, leaf_rows
from agents.search_player.player import world_row
from baloot_env.batch.state import rule_switches
from baloot_env.cards import cards_of
from baloot_env.hand import PLAY, HandState
from baloot_env.observation import OBS_SIZE, seat_hidden_hands
from baloot_env.rules import RuleConfig
from baloot_env.seats import team_of
from tests.helpers import card_decisions, playout_values


def _expected(state: HandState, seat: int, card: int) -> tuple[str, object]:
    """What the leaf after ``card`` must be: ("exact", value) or ("row", (input, sign))."""
    after = state.clone()
    after.apply(card)
    if after.phase != PLAY:
        score = after.result.score
        team = team_of(seat)
        return "exact", float(score[team] - score[1 - team])
    to_act = after.to_act
    obs = PlayerView.from_state(after, to_act).observation()
    priv = seat_hidden_hands(after.hands, to_act)
    return "row", (np.concatenate([obs, priv]), 1 if team_of(to_act) == team_of(seat) else -1)


@pytest.mark.parametrize("rules", [RuleConfig(), RuleConfig(projects=False, sun_double=True)], ids=["rules", "variant"])
def test_leaf_rows_are_the_engines_observations_and_scores(rules):
    sw = rule_switches(rules, "hand")
    checked = {"row": 0, "exact": 0}
    for state, seat in card_decisions(rules, 12, seed=5):
        view = PlayerView.from_state(state, seat)
        legal = cards_of(view.legal_mask)
        worlds = np.array([state.hands], dtype=np.int64)
        cards = np.array(legal, dtype=np.int64)
        exact = np.zeros((1, len(legal)))
        sign = np.zeros((1, len(legal)), dtype=np.int64)
        rows = np.zeros((len(legal), OBS_SIZE + 128), dtype=np.float32)
        template = world_row(view, list(state.hands), rules)
        leaf_rows(template, worlds, cards, sw, team_of(seat), 0, exact, rows, sign, *claim_stamps(1))
        for i, card in enumerate(legal):
            kind, want = _expected(state, seat, card)
            checked[kind] += 1
            if kind == "exact":
                assert sign[0, i] == 0 and exact[0, i] == want, (card, exact[0, i], want)
            else:
                row, s = want
                k = int(exact[0, i])
                assert sign[0, i] == s
                np.testing.assert_array_equal(rows[k], row.astype(np.float32))
    assert checked["row"] > 100, checked


def test_endgame_leaves_are_the_playout_searchs_exact_values():
    """With at most ``endgame_cards`` left after the card, a leaf is the exact endgame value, the
    very number ``batch_search.search_values`` gives for that world."""
    rules = RuleConfig()
    sw = rule_switches(rules, "hand")
    endgame = 12
    seen = 0
    for state, seat in card_decisions(rules, 12, seed=7):
        left = sum(bin(h).count("1") for h in state.hands)
        if left > endgame:
            continue
        view = PlayerView.from_state(state, seat)
        cards = np.array(cards_of(view.legal_mask), dtype=np.int64)
        template, worlds = world_row(view, list(state.hands), rules), np.array([state.hands], dtype=np.int64)
        exact = np.zeros((1, len(cards)))
        sign = np.zeros((1, len(cards)), dtype=np.int64)
        rows = np.zeros((len(cards), OBS_SIZE + 128), dtype=np.float32)
        assert leaf_rows(template, worlds, cards, sw, team_of(seat), endgame, exact, rows, sign, *claim_stamps(1)) == 0
        values = playout_values(template, worlds, cards, sw, team_of(seat), endgame)
        assert (sign == 0).all() and exact[0].tolist() == values[0].tolist()
        seen += 1
    assert seen > 10


def test_critic_values_are_the_value_heads_estimates_and_the_exact_leaves():
    rules = RuleConfig()
    sw = rule_switches(rules, "hand")
    torch.manual_seed(3)
    net = BalootNet(NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,), privileged_critic=True)).eval()
    seen = 0
    for state, seat in card_decisions(rules, 4, seed=11):
        view = PlayerView.from_state(state, seat)
        legal = cards_of(view.legal_mask)
        worlds = np.array([state.hands, state.hands], dtype=np.int64)  # the same world twice: its value twice
        got = critic_values(
            net, world_row(view, list(state.hands), rules), worlds, np.array(legal), sw, team_of(seat), 0
        )
        for i, card in enumerate(legal):
            kind, want = _expected(state, seat, card)
            if kind == "row":
                row, s = want
                with torch.no_grad():
                    v = float(net.value(torch.from_numpy(row.astype(np.float32))[None])[0])
                want = s * v * REWARD_SCALE
            assert got.shape == (2, len(legal))  # a batched forward pass may round the two rows apart
            assert got[0, i] == pytest.approx(want, rel=1e-5, abs=1e-6)
            assert got[1, i] == pytest.approx(want, rel=1e-5, abs=1e-6)
            seen += 1
    assert seen > 20


def test_critic_leaves_refuse_a_network_without_a_privileged_critic():
    net = BalootNet(NetSpec(trunk=(8,), head_hidden=8, value_hidden=(8,)))
    with pytest.raises(ValueError, match="privileged critic"):
        critic_values(
            net, np.zeros(1), np.zeros((1, 4), dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1), 0, 0
        )
