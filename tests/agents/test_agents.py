"""Agents: the view hides what a seat may not know, legality (R9), seeding, the registry."""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pytest

from agents import AgentSpecError, HeuristicAgent, HeuristicConfig, PlayerView, RandomAgent, make_agent
from agents.rule_based.heuristic import hokum_strength, sun_strength
from baloot_env import DONE, PLAY, HandState, parse_deal, random_deal
from baloot_env.actions import HOKUM_BASE, PASS, SUN_ACTION
from baloot_env.cards import cards_of, mask_of, parse_card
from baloot_env.errors import ConfigError


def _cards(*names: str) -> list[int]:
    return [parse_card(n) for n in names]


def _play_until(state: HandState, agents, stop) -> HandState:
    while state.phase != DONE and not stop(state):
        seat = state.to_act
        state.apply(agents[seat % 2].act(PlayerView.from_state(state, seat)))
    return state


# ---------------------------------------------------------------------- the view
def test_view_copies_only_own_cards_and_public_facts():
    rng = random.Random(5)
    agents = (RandomAgent(1), RandomAgent(2))
    checked = 0
    for _ in range(30):
        state = HandState(random_deal(rng))
        while state.phase != DONE:
            seat = state.to_act
            for s in range(4):
                v = PlayerView.from_state(state, s)
                assert v.hand == state.hands[s]
                assert v.legal_mask == (state.legal_mask() if s == seat else 0)
                played = 0
                for m in state.played_by:
                    played |= m
                for other in range(4):
                    if other != s and not state.projects_public(other):
                        assert v.projects[other] == ()  # R6.2: not yet public
                if v.baloot_seat not in (-1, s):
                    assert state.baloot_announced  # R6.5
                checked += 1
            state.apply(agents[seat % 2].act(PlayerView.from_state(state, seat)))
    assert checked > 1000


def test_view_is_the_same_when_only_hidden_cards_differ():
    """Swapping unplayed cards between two other seats changes nothing a seat sees."""
    rng = random.Random(11)
    agents = (HeuristicAgent(), HeuristicAgent())
    tested = 0
    for _ in range(40):
        state = _play_until(HandState(random_deal(rng)), agents, lambda s: s.phase == PLAY and len(s.tricks) == 3)
        if state.phase != PLAY:
            continue
        seat = state.to_act
        a, b = (seat + 1) % 4, (seat + 2) % 4
        ca, cb = cards_of(state.hands[a])[0], cards_of(state.hands[b])[0]
        other = state.clone()
        other.hands[a] ^= 1 << ca | 1 << cb
        other.hands[b] ^= 1 << ca | 1 << cb
        assert other.hands != state.hands
        assert PlayerView.from_state(state, seat).public_fields() == PlayerView.from_state(other, seat).public_fields()
        tested += 1
    assert tested >= 20


def test_bidding_view_equal_for_deals_that_differ_in_other_hands():
    base = random_deal(random.Random(3)).to_dict()
    swapped = json.loads(json.dumps(base))
    swapped["hands"][2], swapped["stock"][:5] = swapped["stock"][:5], swapped["hands"][2]
    s1, s2 = HandState(parse_deal(base)), HandState(parse_deal(swapped))
    for seat in (0, 1, 3):
        assert PlayerView.from_state(s1, seat).public_fields() == PlayerView.from_state(s2, seat).public_fields()


def test_action_mask_matches_legal_actions_and_a_view_is_a_snapshot():
    """The view holds no handle to the state: after the hand moves on, it still shows (and
    encodes) the moment it was built (no reading of the state)."""
    from baloot_env.observation import encode

    state = HandState(random_deal(random.Random(0)))
    seat = state.to_act
    view = PlayerView.from_state(state, seat)
    mask = view.action_mask()
    assert mask.shape == (42,) and [a for a in range(42) if mask[a]] == state.legal_actions()
    before = encode(state, seat)
    state.apply(PASS)
    assert np.array_equal(view.observation(), before) and not np.array_equal(encode(state, seat), before)
    assert not any(isinstance(v, HandState) for v in view.public_fields().values())


# ---------------------------------------------------------------------- agents
def test_random_agent_same_seed_same_actions():
    def actions(seed):
        state, agent, out = HandState(random_deal(random.Random(9))), RandomAgent(seed), []
        while state.phase != DONE:
            a = agent.act(PlayerView.from_state(state, state.to_act))
            out.append(a)
            state.apply(a)
        return out

    assert actions(4) == actions(4)
    assert any(actions(4) != actions(s) for s in (5, 6, 7))


def test_heuristic_never_plays_an_illegal_action():
    """Thousands of random deals, heuristic on all seats and against random in both seatings (R9)."""
    rng = random.Random(2024)
    h, r = HeuristicAgent(), RandomAgent(0)
    decisions = 0
    for i in range(1200):
        deal = random_deal(rng)
        for agents in ((h, h), (h, r), (r, h)):
            r.reset(i)
            state = HandState(deal)
            while state.phase != DONE:
                seat = state.to_act
                view = PlayerView.from_state(state, seat)
                action = agents[seat % 2].act(view)
                assert state.legal_mask() >> action & 1, (state.to_json(), action)
                state.apply(action)
                decisions += 1
    assert decisions > 100_000


def test_heuristic_batch_equals_single():
    state = HandState(random_deal(random.Random(1)))
    views = [PlayerView.from_state(state, state.to_act)] * 3
    h = HeuristicAgent()
    assert h.act_batch(views) == [h.act(views[0])] * 3


def _view_at(contract_trump: int, **fields) -> PlayerView:
    """A play-phase view with hand-picked public facts (for hand-worked cases)."""
    state = HandState(random_deal(random.Random(0)))
    base = PlayerView.from_state(state, 0)
    defaults = dict(phase="play", contract="hokum" if contract_trump >= 0 else "sun", trump=contract_trump, level=1)
    return dataclasses.replace(base, **{**defaults, **fields})


def test_heuristic_does_not_trump_over_a_winning_partner_and_gives_points():
    """R5.4: out of hearts with the partner winning, it may discard: it gives the ten, no trump."""
    hand = mask_of(_cards("JS", "9S", "TD", "7D"))
    view = _view_at(
        0,
        seat=3,
        to_act=3,
        caller=3,
        hand=hand,
        legal_mask=hand,
        trick_seats=(0, 1, 2),
        trick_cards=tuple(_cards("7H", "AH", "8H")),
        trick_winner=1,
        played_by=(mask_of(_cards("7H")), mask_of(_cards("AH")), mask_of(_cards("8H")), 0),
        voids=(0, 0, 0, 0),
        no_trumps=(0, 0, 0, 0),
    )
    assert HeuristicAgent().act(view) == parse_card("TD")


def test_heuristic_cashes_a_sure_winner_in_sun():
    hand = mask_of(_cards("AC", "7D", "8H"))
    view = _view_at(
        -1,
        seat=0,
        to_act=0,
        caller=1,
        hand=hand,
        legal_mask=hand,
        trick_seats=(),
        trick_cards=(),
        trick_winner=-1,
        played_by=(0, 0, 0, 0),
        voids=(0, 0, 0, 0),
        no_trumps=(0, 0, 0, 0),
    )
    assert HeuristicAgent().act(view) == parse_card("AC")


def test_heuristic_bids_from_hand_strength():
    """R3.1: hokum in the turned suit with J and 9; sun with aces; pass with nothing."""
    deal = {
        "dealer": 3,
        "hands": [
            ["JH", "9H", "AS", "7C", "8D"],
            ["7S", "8S", "9S", "TS", "KS"],
            ["QS", "JS", "7H", "8H", "QH"],
            ["AD", "TD", "AC", "TC", "KD"],
        ],
        "turned": "KH",
        "stock": ["AH", "TH", "7D", "9D", "JD", "QD", "8C", "9C", "JC", "QC", "KC"],
    }
    state = HandState(parse_deal(deal))
    h = HeuristicAgent()
    assert hokum_strength(mask_of(_cards("JH", "9H", "AS", "7C", "8D", "KH")), 1) >= HeuristicConfig().hokum_bar
    assert h.act(PlayerView.from_state(state, 0)) == HOKUM_BASE + 1  # seat 0 speaks first
    state.apply(HOKUM_BASE + 1)
    assert h.act(PlayerView.from_state(state, 1)) == PASS  # no aces: no sun over the hokum
    state.apply(PASS)
    assert h.act(PlayerView.from_state(state, 2)) == PASS
    state.apply(PASS)
    assert sun_strength(mask_of(_cards("AD", "TD", "AC", "TC", "KD", "KH"))) >= HeuristicConfig().sun_bar
    assert h.act(PlayerView.from_state(state, 3)) == SUN_ACTION  # R3.3: sun outranks the hokum


# ---------------------------------------------------------------------- registry
def test_make_agent_names_and_errors(tmp_path):
    assert isinstance(make_agent("random", 1), RandomAgent)
    assert isinstance(make_agent("heuristic"), HeuristicAgent)
    with pytest.raises(
        AgentSpecError,
        match=r"unknown agent 'alphabaloot'; known agents: \[.*'heuristic', 'ismcts', 'netsearch', 'random'",
    ):
        make_agent("alphabaloot")
    with pytest.raises(AgentSpecError, match="does not exist"):
        make_agent(str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"agent": "heuristic", "params": {', encoding="utf-8")
    with pytest.raises(AgentSpecError, match="not valid JSON"):
        make_agent(str(bad))
    bad.write_text('{"agent": "heuristic", "params": {"bogus": 1}}', encoding="utf-8")
    with pytest.raises(AgentSpecError, match="unknown heuristic params \\['bogus'\\]"):
        make_agent(str(bad))
    bad.write_text('{"agent": "alphazero"}', encoding="utf-8")
    with pytest.raises(AgentSpecError, match="unknown agent 'alphazero'"):
        make_agent(str(bad))
    good = tmp_path / "bold.json"
    good.write_text('{"agent": "heuristic", "params": {"hokum_bar": 6}}', encoding="utf-8")
    agent = make_agent(str(good))
    assert isinstance(agent, HeuristicAgent) and agent.config.hokum_bar == 6.0 and agent.name == "bold"


def test_heuristic_config_rejects_unknown_keys():
    with pytest.raises(ConfigError):
        HeuristicConfig.from_dict({"sun_bar": 8, "agression": 2})
    with pytest.raises(ConfigError):
        HeuristicConfig.from_dict({"sun_bar": "high"})


def test_observation_is_the_environments_encoding():
    observation = pytest.importorskip("baloot_env.observation")
    state = HandState(random_deal(random.Random(8)))
    view = PlayerView.from_state(state, state.to_act)
    assert (view.observation() == observation.encode(state, state.to_act)).all()


def test_split_agent_bids_with_one_agent_and_plays_with_the_other(tmp_path):
    """{"agent": "split"}: calls (R3, R4) come from ``bidding``, card plays (R5) from ``play``."""
    spec = tmp_path / "split.json"
    spec.write_text(json.dumps({"agent": "split", "params": {"bidding": "heuristic", "play": "random"}}))
    split, heur, rand = make_agent(str(spec), 7), HeuristicAgent(7), RandomAgent(7)
    rng = random.Random(5)
    phases = set()
    for _ in range(30):
        state = HandState(random_deal(rng))
        while state.phase != DONE:
            view = PlayerView.from_state(state, state.to_act)
            expected = (rand if view.phase == PLAY else heur).act(view)
            assert split.act(view) == expected
            phases.add(view.phase)
            state.apply(expected)
    assert PLAY in phases and "bidding" in phases
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"agent": "split", "params": {"bidding": "heuristic"}}))
    with pytest.raises(AgentSpecError, match="'bidding' and 'play'"):
        make_agent(str(bad))


def test_agent_files_that_name_each_other_are_refused_in_one_line(tmp_path, capsys):
    """Issue 46, goal 5: a split file naming itself, or two naming each other, is an
    AgentSpecError (not a RecursionError), and the evaluator says so in one line."""
    from agents.registry import AgentSpecError, make_agent
    from eval.__main__ import main

    me = tmp_path / "me.json"
    me.write_text(json.dumps({"agent": "split", "params": {"bidding": str(me), "play": "heuristic"}}))
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"agent": "split", "params": {"bidding": "heuristic", "play": str(b)}}))
    b.write_text(json.dumps({"agent": "split", "params": {"bidding": str(a), "play": "heuristic"}}))
    for spec in (me, a):
        with pytest.raises(AgentSpecError, match="nests agent files"):
            make_agent(str(spec))
    assert main(["--a", str(me), "--b", "heuristic", "--deals", "2", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "\n" not in err
    deep = tmp_path / "ok.json"  # nesting within the bound still works
    deep.write_text(json.dumps({"agent": "split", "params": {"bidding": "heuristic", "play": "heuristic"}}))
    assert make_agent(str(deep)).name
