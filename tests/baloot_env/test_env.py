"""The PettingZoo environment baloot_v0 (R11): API, seeding, observations, rewards, infos."""

from __future__ import annotations

import copy
import importlib
import json
import pickle
import random

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from baloot_env import IllegalActionError, RuleConfig, env, raw_env
from baloot_env.cards import KING, QUEEN, mask_of
from baloot_env.deal import parse_deal, random_deal
from baloot_env.hand import BIDDING, HandState
from baloot_env.observation import (
    OBS_SIZE,
    PIECES,
    STATE_PIECES,
    STATE_SIZE,
    action_mask,
    encode,
    match_context,
    piece_slice,
    state_slice,
)

# The module, not the function of the same name that pettingzoo.test exports.
pz_state_test = importlib.import_module("pettingzoo.test.state_test")

SUN_DEAL = {  # seat 1 (dealer's right) says sun at once
    "dealer": 0,
    "hands": [
        ["7S", "8S", "9S", "7H", "8H"],
        ["AS", "AH", "AD", "AC", "TS"],
        ["9H", "7D", "8D", "9D", "7C"],
        ["8C", "9C", "JS", "QS", "KS"],
    ],
    "turned": "TH",
    "stock": ["TD", "TC", "JH", "JD", "JC", "QH", "QD", "QC", "KH", "KD", "KC"],
}


def play_out(e, rng: random.Random, max_steps: int = 100_000):
    """Drive an env with random legal actions; returns the last infos seen per agent."""
    infos = {}
    for agent in e.agent_iter(max_steps):
        obs, reward, term, trunc, info = e.last()
        if info:
            infos[agent] = info
        if term or trunc:
            e.step(None)
            continue
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return infos


@pytest.mark.parametrize("episode", ["hand", "match"])
def test_pettingzoo_api_test(episode):
    api_test(env(episode=episode), num_cycles=300)


@pytest.mark.parametrize("episode", ["hand", "match"])
def test_pettingzoo_seed_test(episode):
    seed_test(lambda: env(episode=episode), num_cycles=300)


def test_metadata_and_spaces():
    e = env()
    assert e.metadata["name"] == "baloot_v0"
    e.reset(seed=0)
    for a in e.possible_agents:
        assert e.action_space(a).n == 42
        assert e.observation_space(a)["observation"].shape == (OBS_SIZE,)
    assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]  # R1.1


def test_same_seed_same_games():
    def trace(seed):
        e = env(episode="match")
        e.reset(seed=seed)
        rng = random.Random(seed)
        out = []
        for agent in e.agent_iter(3000):
            obs, r, term, trunc, _ = e.last()
            out.append((agent, float(r), obs["observation"].sum()))
            e.step(None if term else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        return out

    assert trace(7) == trace(7)
    assert trace(7) != trace(8)


def test_pickle_round_trip_mid_hand():
    e = env(episode="match")
    e.reset(seed=5)
    rng = random.Random(0)
    for _ in range(23):
        obs, *_ = e.last()
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    e2 = pickle.loads(pickle.dumps(e))
    assert e2.agent_selection == e.agent_selection
    o1, o2 = e.observe(e.agent_selection), e2.observe(e2.agent_selection)
    np.testing.assert_array_equal(o1["observation"], o2["observation"])
    np.testing.assert_array_equal(o1["action_mask"], o2["action_mask"])
    # both continue identically
    r1, r2 = random.Random(1), random.Random(1)
    assert play_out(e, r1) == play_out(e2, r2)


def test_mask_is_exact_and_zero_for_others():
    """R9, R11.3: the acting seat's mask equals the engine's legal actions; others are zeros."""
    e = env(episode="match")
    e.reset(seed=11)
    rng = random.Random(11)
    checked = 0
    for agent in e.agent_iter(2000):
        obs, _, term, _, _ = e.last()
        if term:
            e.step(None)
            continue
        hand = e.unwrapped.hand
        assert sorted(np.flatnonzero(obs["action_mask"]).tolist()) == hand.legal_actions()
        for other in e.possible_agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        checked += 1
        e.step(rng.choice(hand.legal_actions()))
    assert checked > 100


def test_illegal_action_raises_with_seat_and_legal_list():
    e = env()
    e.reset(options={"deal": SUN_DEAL})
    assert e.agent_selection == "player_1"
    with pytest.raises(IllegalActionError, match=r"seat 1 may not play double .*legal: \['pass', 'hokum_H', 'sun'\]"):
        e.step(38)
    with pytest.raises(IllegalActionError):
        e.step(0)  # a card during bidding


def test_fixed_deal_is_played_and_hand_result_info():
    """R11.2, R11.4: the given deal is played; every agent gets hand_result at the end."""
    e = env()
    e.reset(options={"deal": SUN_DEAL})
    obs = e.observe("player_1")["observation"]
    hand = obs[piece_slice("hand")]
    assert sorted(np.flatnonzero(hand).tolist()) == sorted([31, 15, 23, 7, 3])  # AS AH AD AC TS ids
    e.step(37)  # seat 1 says sun: R3.2 ends calling at once
    infos = play_out(e, random.Random(3))
    assert set(infos) == set(e.possible_agents)
    res = infos["player_0"]["hand_result"]
    assert res["contract"] == "sun" and res["caller"] == 1 and res["trump"] is None
    assert sum(res["raw"]) == 130 and sum(res["tricks"]) == 8
    assert set(res) >= {
        "contract",
        "trump",
        "caller",
        "level",
        "raw",
        "tricks",
        "projects",
        "baloot",
        "kaboot",
        "callers_won",
        "score",
        "gahwa_winner",
    }


def test_rewards_partners_equal_opponents_negative():
    for seed in range(30):
        e = env()
        e.reset(seed=seed)
        totals = dict.fromkeys(e.possible_agents, 0.0)
        rng = random.Random(seed)
        result = None
        for agent in e.agent_iter():
            obs, r, term, _, info = e.last()
            totals[agent] += r
            result = info.get("hand_result", result)
            e.step(None if term else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        diff = (result["score"][0] - result["score"][1]) / 44.0
        assert totals["player_0"] == pytest.approx(diff) == totals["player_2"]
        assert totals["player_1"] == pytest.approx(-diff) == totals["player_3"]


def test_losing_team_receives_its_negative_reward():
    """The last decision of a lost hand still reaches the losers through last()."""
    seen_negative = False
    for seed in range(40):
        e = env()
        e.reset(seed=seed)
        rng = random.Random(seed)
        final = {}
        for agent in e.agent_iter():
            obs, r, term, _, info = e.last()
            if term:
                final[agent] = r
                e.step(None)
                continue
            e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        if "hand_result" in info and info["hand_result"]["contract"] is not None:
            assert len(final) == 4
            seen_negative |= min(final.values()) < 0
    assert seen_negative


def test_match_episode_ends_with_match_result_and_bonus():
    e = env(episode="match", reward="points", match_bonus=10.0)
    e.reset(seed=2)
    rng = random.Random(2)
    total0 = 0.0
    info_end = None
    for agent in e.agent_iter():
        obs, r, term, _, info = e.last()
        if agent == "player_0":
            total0 += r
        if term:
            info_end = info
            e.step(None)
            continue
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    mres = info_end["match_result"]
    score = mres["score"]
    bonus = 0 if mres["winner"] is None else (10.0 if mres["winner"] == 0 else -10.0)
    assert total0 == pytest.approx(score[0] - score[1] + bonus)


def test_match_deals_option_and_dealer_rotation():
    """R11.2: the supplied deals come first with their dealers; then R2.1 rotation from the seed."""
    rng = random.Random(0)
    deals = [random_deal(rng, dealer=2).to_dict(), random_deal(rng, dealer=2).to_dict()]
    e = env(episode="match")
    e.reset(seed=1, options={"deals": deals})
    dealers = []
    prng = random.Random(1)
    last_hand = None
    for _agent in e.agent_iter(5000):
        hand = e.unwrapped.hand
        if hand is not last_hand:
            dealers.append(hand.dealer)
            last_hand = hand
        obs, _, term, _, _ = e.last()
        e.step(None if term else prng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert dealers[:2] == [2, 2]
    if len(dealers) > 2:
        assert dealers[2] == (2 + 3) % 4  # R2.1: the deal moves left
        for a, b in zip(dealers[2:], dealers[3:], strict=False):
            assert b == (a + 3) % 4


def _states(n_states: int, seed: int):
    rng = random.Random(seed)
    out = []
    while len(out) < n_states:
        s = HandState(random_deal(rng))
        steps = rng.randrange(45)
        while not s.done and len(s.history) < steps:
            s.apply(rng.choice(s.legal_actions()))
        if not s.done:
            out.append(s)
    return out


def _swapped_deal(deal, x: int, y: int):
    """``deal`` with cards ``x`` and ``y`` exchanged wherever they lie (hands or stock, R2.4)."""
    swap = {x: y, y: x}
    d = deal.to_dict()
    d["hands"] = [[swap.get(c, c) for c in h] for h in d["hands"]]
    d["stock"] = [swap.get(c, c) for c in d["stock"]]
    return parse_deal(d)


def test_hidden_cards_never_leak():
    """Two games that differ only in cards a seat cannot see give it the same observation.

    The second game is the first one's history replayed on a deal with two hidden cards
    exchanged (in the other seats' hands or the undealt stock, R2.2), so everything that follows
    from the deal differs with it: the hands, the stock, the projects each seat declares (R6.1)
    and who holds the baloot (R6.5). Only public facts must agree: projects once public (R6.2)
    and an announced baloot. Every comparison is counted, and so are those where hidden
    projects or a hidden baloot really differed.
    """
    rng = random.Random(99)
    checked = projects_differ = baloot_differs = stock_differs = 0
    for s in _states(1000, 4):
        seat = s.to_act
        played = 0
        for m in s.played_by:
            played |= m
        own = s.hands[seat] | mask_of(s.deal.hands[seat])
        hidden = [c for c in range(32) if not (own | played | 1 << s.deal.turned) >> c & 1]
        if len(hidden) < 2:
            continue  # the last trick: nothing hidden is left to exchange
        x, y = rng.sample(hidden, 2)
        baloot_cards = [8 * s.trump + r for r in (KING, QUEEN) if s.trump >= 0 and 8 * s.trump + r in hidden]
        if baloot_cards and rng.random() < 0.5:  # move a hidden trump K or Q: the baloot may change hands
            x = rng.choice(baloot_cards)
            y = rng.choice([c for c in hidden if c != x])
        try:
            t = HandState.replay(_swapped_deal(s.deal, x, y), s.history, s.rules)
        except IllegalActionError:
            continue  # the swap contradicts a card played (a seat would have had to follow)
        public = [o for o in range(4) if o != seat and s.contract is not None and s.projects_public(o)]
        if any(s.projects[o] != t.projects[o] for o in public):
            continue  # a public project changed: the seat may see that, it is no leak
        assert t.deal != s.deal and t.baloot_announced == s.baloot_announced
        np.testing.assert_array_equal(encode(s, seat), encode(t, seat))
        checked += 1
        stock_differs += s.phase == BIDDING and t.deal.stock != s.deal.stock
        projects_differ += t.projects != s.projects
        baloot_differs += t.baloot_seat != s.baloot_seat
    assert checked > 500
    assert stock_differs > 20 and projects_differ > 10 and baloot_differs > 3, (
        stock_differs,
        projects_differ,
        baloot_differs,
    )


def test_observation_is_relative_per_seat():
    """Every seat sees itself as 'me': dealer, caller and played cards rotate with the seat."""
    for s in _states(200, 5):
        for seat in range(4):
            o = encode(s, seat)
            assert o[piece_slice("dealer")].tolist().index(1.0) == (s.dealer - seat) % 4
            assert np.flatnonzero(o[piece_slice("hand")]).tolist() == [c for c in range(32) if s.hands[seat] >> c & 1]
            for rel, name in enumerate(["played_me", "played_next", "played_partner", "played_previous"]):
                want = [c for c in range(32) if s.played_by[(seat + rel) % 4] >> c & 1]
                assert np.flatnonzero(o[piece_slice(name)]).tolist() == want
            if s.contract is not None:
                assert o[piece_slice("caller")].tolist().index(1.0) == (s.caller - seat) % 4
            assert o.min() >= 0.0 and o.max() <= 1.0


def test_observation_pieces_cover_vector():
    assert sum(p.size for p in PIECES) == OBS_SIZE
    assert len({p.name for p in PIECES}) == len(PIECES)


def test_action_mask_all_zero_when_done():
    s = _states(1, 0)[0]
    while not s.done:
        s.apply(s.legal_actions()[0])
    assert not action_mask(s, 0).any()


def test_render_ansi_shows_contract_and_scores():
    e = raw_env(render_mode="ansi")
    e.reset(options={"deal": SUN_DEAL})
    e.step(37)
    text = e.render()
    assert "SUN by seat 1" in text and "dealer 0" in text and "AS" in text


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="episode"):
        raw_env(episode="set")
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="elo")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    bad = dict(SUN_DEAL, turned="AS")
    with pytest.raises(ValueError, match="appears twice"):
        raw_env().reset(options={"deal": bad})


def test_rule_config_is_used():
    e = env(rules=RuleConfig(doubling=False))
    e.reset(seed=0)
    assert e.unwrapped.rules.doubling is False


def test_numpy_integer_actions_are_accepted_and_bools_refused():
    s = HandState(random_deal(random.Random(0)))
    a = s.legal_actions()[0]
    t = s.clone()
    t.apply(np.int64(a))
    s.apply(a)
    assert s == t
    with pytest.raises(IllegalActionError):
        s.apply(np.bool_(True))
    with pytest.raises(IllegalActionError):
        s.apply(True)


# ---------------------------------------------------------------- refused actions change nothing
MALFORMED_ACTIONS = [-1, 42, 1000, True, False, np.bool_(True), None, "pass", 32.0, np.float64(1.0), [32], 1.5]


def env_snapshot(e) -> dict:
    """Everything a step may change: rewards, infos, flags, the turn, the hand and the match."""
    u = e.unwrapped
    m = u.match
    return {
        "agents": list(u.agents),
        "rewards": dict(u.rewards),
        "cumulative": dict(u._cumulative_rewards),
        "infos": copy.deepcopy(u.infos),
        "terminations": dict(u.terminations),
        "truncations": dict(u.truncations),
        "agent_selection": u.agent_selection,
        "hand": json.dumps(u.hand.to_json()),
        "hand_id": id(u.hand),
        "match": None
        if m is None
        else (
            list(m.score),
            m.deals_played,
            m.hands_scored,
            [r.to_info() for r in m.results],
            m.result,
            id(m.hand),
        ),
        "pending_deals": list(u._pending_deals),
        "rng": copy.deepcopy(u._rng.bit_generator.state),
    }


def refuse_everything_bad(e) -> int:
    """Try one illegal action id and every malformed action; each must raise and change nothing."""
    before = env_snapshot(e)
    obs = e.observe(e.agent_selection)
    u = e.unwrapped
    dead = u.terminations[e.agent_selection] or u.truncations[e.agent_selection]
    bad: list = [int(a) for a in np.flatnonzero(obs["action_mask"] == 0)[:3]] + MALFORMED_ACTIONS
    if dead:
        bad = [a for a in bad if a is not None]  # None is the dead agent's one valid action
    tried = 0
    for a in bad:
        with pytest.raises(ValueError):  # IllegalActionError; a dead agent's ValueError
            e.step(a)
        after = env_snapshot(e)
        assert after == before, (a, {k for k in before if before[k] != after[k]})
        tried += 1
    return tried


@pytest.mark.parametrize(("episode", "reward"), [("match", "diff"), ("match", "win"), ("hand", "points")])
def test_refused_actions_leave_the_env_exactly_as_it_was(episode, reward):
    """R9, R11: an illegal action id, a wrong type, a bool, an out-of-range id... raises before
    anything changes: rewards, pending cumulative rewards, infos (hand_result right after a hand
    ends in a match), terminations, the turn, the hand and the match."""
    after_hand_end = with_pending_reward = checks = 0
    for seed in range(3 if episode == "match" else 8):
        e = env(episode=episode, reward=reward)
        e.reset(seed=seed)
        rng = random.Random(seed)
        hand = e.unwrapped.hand
        for agent in e.agent_iter(5000):
            obs, _, term, trunc, _ = e.last()
            new_hand = e.unwrapped.hand is not hand
            hand = e.unwrapped.hand
            if new_hand or term or rng.random() < 0.15:
                refuse_everything_bad(e)
                checks += 1
                after_hand_end += new_hand
                with_pending_reward += e.unwrapped._cumulative_rewards[agent] != 0.0
            e.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert checks > 50
    if episode == "match":
        assert after_hand_end >= 6 and with_pending_reward >= 3, (after_hand_end, with_pending_reward)


# ---------------------------------------------------------------- PettingZoo conventions
def test_pettingzoo_render_test(capsys):
    """PettingZoo's render_test: "ansi" returns the text, "human" prints it and returns None."""
    render_test(env)
    assert "contract:" in capsys.readouterr().out  # human mode printed the table


def test_human_render_prints_after_reset_and_each_step_and_returns_none(capsys):
    e = env(render_mode="human")
    e.reset(options={"deal": SUN_DEAL})
    assert "contract: not settled" in capsys.readouterr().out
    e.step(37)
    assert "SUN by seat 1" in capsys.readouterr().out
    assert e.render() is None
    assert "SUN by seat 1" in capsys.readouterr().out


@pytest.mark.parametrize("episode", ["hand", "match"])
def test_pettingzoo_parallel_conversion(episode):
    """The turn-based conversion (one agent acts per parallel step) passes PettingZoo's tests.

    (Not ``parallel_seed_test``: it samples actions without the mask, and an illegal action
    raises here, R9.)"""
    parallel_api_test(turn_based_aec_to_parallel(env(episode=episode)), num_cycles=300)
    par = turn_based_aec_to_parallel(env(episode=episode))
    pz_state_test.test_parallel_env(par)
    assert par.state_space == env().state_space


def _state_trajectory(episode: str, seed: int):
    """(env, state) after reset and after each live step of one random episode."""
    e = env(episode=episode)
    e.reset(seed=seed)
    rng = random.Random(seed)
    yield e, e.state()
    for _agent in e.agent_iter(3000):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        yield e, e.state()


def test_state_space_shape_dtype_bounds():
    e = env()
    pz_state_test.test_state_space(e)
    assert e.state_space.shape == (STATE_SIZE,) and e.state_space.dtype == np.float32
    assert sum(p.size for p in STATE_PIECES) == STATE_SIZE == OBS_SIZE + 4 * 32 + 32 + 4
    checked = 0
    for episode, seed in [("hand", 0), ("hand", 1), ("match", 2)]:
        for _e, state in _state_trajectory(episode, seed):
            assert state.dtype == np.float32 and state.shape == (STATE_SIZE,)
            assert e.state_space.contains(state)
            checked += 1
    assert checked > 100


def test_state_reveals_every_hand_and_the_stock():
    """state() = seat 0's observation + every hand + the undealt stock's order + the seat to act."""
    seen_bidding = seen_dealt = 0
    for episode, seed in [("hand", 3), ("match", 4)]:
        for e, state in _state_trajectory(episode, seed):
            hand = e.unwrapped.hand
            np.testing.assert_array_equal(
                state[state_slice("observation")], encode(hand, 0, match_context(e.unwrapped.match))
            )
            for seat in range(4):
                want = [c for c in range(32) if hand.hands[seat] >> c & 1]
                assert np.flatnonzero(state[state_slice(f"hand_seat_{seat}")]).tolist() == want
            stock = state[state_slice("stock_order")]
            if hand.phase == BIDDING:
                order = [int(c) for c in np.argsort(np.where(stock > 0, stock, 2.0))[: len(hand.deal.stock)]]
                assert order == list(hand.deal.stock)
                assert stock[list(hand.deal.stock)] == pytest.approx([(i + 1) / 11 for i in range(11)])
                seen_bidding += 1
            else:
                assert not stock.any()
                seen_dealt += 1
            to_act = state[state_slice("to_act")]
            assert to_act.tolist() == ([0.0] * 4 if hand.done else [float(s == hand.to_act) for s in range(4)])
    assert seen_bidding > 5 and seen_dealt > 50


def test_state_differs_where_observations_do_not():
    """Seats 0 and 2 swap a hidden card: the observations of seats 1 and 3 stay the same (nothing
    leaks), while state() shows the difference."""
    e = env()
    e.reset(options={"deal": SUN_DEAL})
    e.step(37)  # seat 1 says sun; the stock is dealt (R2.3)
    u = e.unwrapped
    before = e.state()
    observations = [e.observe(a)["observation"] for a in e.possible_agents]
    # seat 0 and seat 2 exchange one card each; seat 1 and seat 3 cannot tell
    x = next(c for c in range(32) if u.hand.hands[0] >> c & 1)
    y = next(c for c in range(32) if u.hand.hands[2] >> c & 1)
    u.hand.hands[0] ^= (1 << x) | (1 << y)
    u.hand.hands[2] ^= (1 << x) | (1 << y)
    after = e.state()
    for seat in (1, 3):
        np.testing.assert_array_equal(e.observe(f"player_{seat}")["observation"], observations[seat])
    assert not np.array_equal(before[state_slice("hand_seat_2")], after[state_slice("hand_seat_2")])
    np.testing.assert_array_equal(before[state_slice("hand_seat_1")], after[state_slice("hand_seat_1")])


def test_np_random_is_the_seeded_generator_of_the_deals():
    e1, e2 = env(), env()
    e1.reset(seed=5)
    e2.reset(seed=5)
    assert isinstance(e1.np_random, np.random.Generator)
    assert e1.np_random.bit_generator.state == e2.np_random.bit_generator.state
    assert e1.np_random.integers(1 << 30, size=8).tolist() == e2.np_random.integers(1 << 30, size=8).tolist()
    e3 = env()
    e3.reset(seed=6)
    assert e3.np_random.bit_generator.state != np.random.default_rng(5).bit_generator.state
    # every random deal is drawn from np_random: a generator set by hand deals what the seed deals
    first_deal = random_deal(np.random.default_rng(5))
    e4 = raw_env()
    e4.np_random = np.random.default_rng(5)
    e4.reset()
    assert e4.hand.deal == first_deal
    e4.reset(seed=5)
    assert e4.hand.deal == first_deal
    with pytest.raises(TypeError, match="np_random"):
        e4.np_random = random.Random(5)


def test_unknown_reset_options_are_ignored_with_a_warning():
    """As PettingZoo's classic envs, foreign options do not stop a reset; unlike them, a warning
    names the ignored keys, since a misspelt "deal" would otherwise play a random deal."""
    e = env()
    with pytest.warns(UserWarning, match=r"ignoring unknown reset options \['dael'\]"):
        e.reset(seed=0, options={"dael": SUN_DEAL})
    assert e.unwrapped.hand.deal != parse_deal(SUN_DEAL)
