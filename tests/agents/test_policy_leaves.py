"""Playouts continued by a network's policy (``agents.search_player.policy_leaves``) against the
engine: for decisions of real hands, with the true holdings as the one world, each legal card's
value must be the hand played on through ``HandState`` with every seat choosing the network's
best legal card from its own ``PlayerView`` (a ``PolicyAgent``'s greedy move), then the exact
endgame and the hand's score (R7), as ``SearchAgent._finish`` finishes a heuristic playout."""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pytest
import torch

from agents import PlayerView
from agents.neural.network import BalootNet, NetSpec
from agents.neural.policy import PolicyAgent
from agents.registry import make_agent
from agents.search_player.endgame import solve
from agents.search_player.netsearch import NetSearchConfig
from agents.search_player.player import cards_left, leaf_function, world_row
from agents.search_player.policy_leaves import playout_net, policy_values
from baloot_env.batch.state import rule_switches
from baloot_env.cards import cards_of
from baloot_env.errors import ConfigError
from baloot_env.hand import PLAY, HandState
from baloot_env.rules import RuleConfig
from baloot_env.seats import team_of
from tests.helpers import card_decisions, playout_values


def _engine_value(
    state: HandState, seat: int, card: int, pick: Callable[[PlayerView], int], endgame_cards: int
) -> float:
    """The reference: ``card``, then every seat's greedy network card on the engine (``pick``),
    then the exact last tricks; game points for the deciding seat's team."""
    team = team_of(seat)
    leaf = leaf_function(state, team)
    s = state.clone()
    s.apply(card)
    while s.phase == PLAY and cards_left(s) > endgame_cards:
        view = PlayerView.from_state(s, s.to_act)
        s.apply(pick(view))
    if s.phase != PLAY:
        return float(leaf(s.raw[0], s.tricks_won[0]))
    trick = list(zip(s.trick_seats, s.trick_cards, strict=True))
    return float(solve(s.hands, s.to_act, trick, s.trump, s.raw[0], s.tricks_won[0], len(s.tricks), team, leaf))


def _bf16_pick(net: BalootNet) -> Callable[[PlayerView], int]:
    """The greedy legal card of ``net`` (a bf16 network) for a view: its card logits on the
    observation rounded to bf16, the lowest card of equal logits."""

    def pick(view: PlayerView) -> int:
        with torch.inference_mode():
            logits = net.card_logits(torch.from_numpy(view.observation()[None]).bfloat16()).float()[0]
        legal = torch.tensor([(view.legal_mask >> c) & 1 for c in range(32)], dtype=torch.bool)
        return int(torch.where(legal, logits, torch.tensor(-torch.inf)).argmax())

    return pick


@pytest.mark.parametrize(
    "rules,endgame_cards,precision",
    [
        (RuleConfig(), 12, "fp32"),
        (RuleConfig(), 0, "fp32"),
        (RuleConfig(projects=False, sun_double=True), 8, "fp32"),
        (RuleConfig(), 12, "bf16"),
    ],
    ids=["rules", "no-endgame", "variant", "bf16"],
)
def test_policy_playouts_are_the_engine_played_by_the_network(rules, endgame_cards, precision):
    """Also with the playouts' network in bf16 (``playout_net``), against a reference that asks the
    same bf16 network one view at a time."""
    sw = rule_switches(rules, "hand")
    torch.manual_seed(4)
    net = BalootNet(NetSpec(trunk=(48,), head_hidden=16, value_hidden=(8,))).eval()
    if precision == "fp32":
        player = PolicyAgent(net, {"name": "random-net"}, deterministic=True)

        def pick(view: PlayerView) -> int:
            return player.act_arrays(view.observation()[None], view.action_mask()[None])[0]
    else:
        net = playout_net(net, precision)
        pick = _bf16_pick(net)
    checked = 0
    for state, seat in card_decisions(rules, 6, seed=9):
        view = PlayerView.from_state(state, seat)
        legal = cards_of(view.legal_mask)
        worlds = np.array([state.hands, state.hands], dtype=np.int64)  # the same world twice: its value twice
        got = policy_values(
            net, world_row(view, list(state.hands), rules), worlds, np.array(legal), sw, team_of(seat), endgame_cards
        )
        for i, card in enumerate(legal):
            want = _engine_value(state, seat, card, pick, endgame_cards)
            assert got[0, i] == got[1, i] == want, (card, got[:, i])
            checked += 1
    assert checked > 60


def test_a_network_that_plays_as_the_heuristic_would_not_change_the_endgame_values():
    """With the endgame reached at once (every card left solved exactly), the policy does not
    matter: the values are the heuristic playout search's, to the bit."""
    rules = RuleConfig()
    sw = rule_switches(rules, "hand")
    net = BalootNet(NetSpec(trunk=(8,), head_hidden=8, value_hidden=(8,))).eval()
    seen = 0
    for state, seat in card_decisions(rules, 8, seed=2):
        if cards_left(state) > 13:
            continue
        view = PlayerView.from_state(state, seat)
        cards = np.array(cards_of(view.legal_mask), dtype=np.int64)
        template, worlds = world_row(view, list(state.hands), rules), np.array([state.hands], dtype=np.int64)
        values = playout_values(template, worlds, cards, sw, team_of(seat), 12)
        assert policy_values(net, template, worlds, cards, sw, team_of(seat), 12).tolist() == values.tolist()
        seen += 1
    assert seen > 10


def test_netsearch_takes_policy_leaves_and_a_rollout_bundle_only_with_them(tmp_path):
    spec = tmp_path / "ns.json"
    spec.write_text(
        json.dumps({"agent": "netsearch", "params": {"leaves": "policy", "worlds": 8, "rollout": "policies/champion"}})
    )
    agent = make_agent(str(spec))
    assert agent.rollout.net is not agent.policy.net  # the rollout bundle loaded on its own
    state = next(card_decisions(RuleConfig(), 1, seed=1))[0]
    view = PlayerView.from_state(state, state.to_act)
    assert agent.act(view) in cards_of(view.legal_mask)
    with pytest.raises(ConfigError, match="rollout"):
        NetSearchConfig.from_dict({"rollout": "policies/champion"})  # playout leaves: no rollout bundle
    with pytest.raises(ConfigError, match="backend 'core'"):
        NetSearchConfig.from_dict({"leaves": "policy", "backend": "python"})


def test_the_playouts_network_in_bf16_is_a_copy_and_auto_follows_the_processor(monkeypatch):
    """``playout_net``: fp32 is the network itself; bf16 a bf16 copy that leaves the network as it
    was; ``auto`` is bf16 only on a processor with bf16 in hardware (``agents.neural.precision``)."""
    from agents.neural import precision

    torch.manual_seed(1)
    net = BalootNet(NetSpec(trunk=(16,), head_hidden=8, value_hidden=(8,))).eval()
    before = {k: v.clone() for k, v in net.state_dict().items()}
    assert playout_net(net, "fp32") is net
    half = playout_net(net, "bf16")
    assert half is not net and {p.dtype for p in half.parameters()} == {torch.bfloat16}
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())
    for flags, dtype in ((frozenset({"avx2"}), torch.float32), (frozenset({"amx_bf16"}), torch.bfloat16)):
        monkeypatch.setattr(precision, "cpu_flags", lambda flags=flags: flags)
        assert next(playout_net(net, "auto").parameters()).dtype == dtype
    with pytest.raises(ConfigError, match="precision"):
        NetSearchConfig.from_dict({"leaves": "playout", "precision": "bf16"})  # heuristic playouts have no network
    with pytest.raises(ConfigError, match="precision"):
        NetSearchConfig.from_dict({"leaves": "policy", "precision": "fp16"})
    cfg = NetSearchConfig.from_dict({"leaves": "policy", "precision": "auto"})
    assert NetSearchConfig.from_dict(cfg.to_dict()) == cfg and "precision" not in NetSearchConfig().to_dict()
