"""The information barrier: a ``PlayerView`` carries exactly what its seat may know,
the rules and the match context included, and no handle to the full state; its observation is
computed from its own fields and equals the environment's encoding bit for bit, so evaluation
and training show a policy the same vector for the same situation.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from agents import HeuristicAgent, PlayerView
from agents.base import Agent
from baloot_env import DealSource, HandState, MatchContext, RuleConfig, Table, env, match_context, random_deal
from baloot_env.driver import Outcome
from baloot_env.hand import PLAY
from baloot_env.observation import encode, piece_slice
from baloot_env.worlds import WorldSampler

ROOT = Path(__file__).resolve().parents[2]
RULES = [
    RuleConfig(),
    RuleConfig(match="hands", hands=5, sun_double=True),
    RuleConfig(projects=False, doubling=False, match="hands", hands=9),
    RuleConfig(win_above=True, four_aces_hokum="hundred", baloot_kept=True),
]


def _random_positions(rules: RuleConfig, episode: str, seed: int, episodes: int):
    """Every position of ``episodes`` random episodes at a driver's table (their ends included)."""
    rng = random.Random(seed)
    table = Table(rules, episode, DealSource(np.random.default_rng(seed)))
    for _ in range(episodes):
        table.reset()
        while True:
            yield table
            if table.over:
                break
            table.apply(rng.choice(table.hand.legal_actions()))


@pytest.mark.parametrize("rules", RULES, ids=["default", "hands5-sun-double", "plain-hands9", "v5-v8"])
@pytest.mark.parametrize("episode", ["hand", "match"])
def test_view_observation_equals_the_environments_encoding(rules, episode):
    """Many random positions, every seat (to act or not), hand and match episodes: the view's own
    observation is ``encode(state, seat, match_context(match))`` bit for bit."""
    checked, match_pieces = 0, set()
    for seed in range(3):
        for table in _random_positions(rules, episode, seed, 12 if episode == "hand" else 1):
            hand = table.hand
            for seat in range(4):
                view = PlayerView.from_table(table, seat)
                want = encode(hand, seat, match_context(table.match))
                got = view.observation()
                assert got.dtype == np.float32 and np.array_equal(got, want), (seat, hand.to_json())
                assert np.array_equal(view.action_mask(), [view.legal_mask >> a & 1 for a in range(42)])
                checked += 1
            match_pieces.add(tuple(want[piece_slice("match_score")]) + tuple(want[piece_slice("deals_played")]))
    assert checked > 2000, checked
    if episode == "match":
        assert len(match_pieces) > 5, match_pieces  # the match pieces move (score, deals played), so they are compared


def test_view_carries_rules_and_match_context_and_no_state():
    table = Table(RuleConfig(match="hands", hands=5), "match", DealSource(np.random.default_rng(2)))
    table.reset()
    rng = random.Random(2)
    while table.match.deals_played < 2:
        table.apply(rng.choice(table.hand.legal_actions()))
    view = PlayerView.from_table(table, 1)
    assert view.rules == table.rules
    assert view.context == table.context == MatchContext("hands", tuple(table.match.score), 2, view.hands_left)
    assert view.match_mode == "hands" and view.deals_played == 2 and view.match_score == tuple(table.match.score)
    assert "_state" not in PlayerView.__dataclass_fields__ and not hasattr(view, "_state")
    fields = [getattr(view, name) for name in PlayerView.__dataclass_fields__]
    assert not any(isinstance(v, (HandState, Table)) for v in fields)  # no handle to the full state


def test_nothing_reads_a_state_from_a_view():
    """grep: no agent, evaluation or training code reaches for a view's ``_state`` any more."""
    pattern = re.compile(r"\._state\b|['\"]_state['\"]")  # an attribute read, or getattr(view, "_state")
    hits = [
        f"{path.relative_to(ROOT)}:{i}"
        for folder in ("agents", "eval", "train", "baloot_env")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert hits == []


def test_env_observations_equal_the_views_of_every_seat():
    """Through the PettingZoo env (match episode): each agent's observation and mask equal its
    seat's ``PlayerView`` at the env's table."""
    e = env(episode="match")
    e.reset(seed=11)
    rng = random.Random(11)
    checked = 0
    for _ in e.agent_iter(1500):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        for seat in range(4):
            view = PlayerView.from_table(e.unwrapped.table, seat)
            o = e.observe(f"player_{seat}")
            assert np.array_equal(view.observation(), o["observation"])
            assert np.array_equal(view.action_mask(), o["action_mask"])
            checked += 1
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert checked > 1000


def test_search_reads_the_rules_from_the_view():
    """``search`` samples worlds by the view's rule variants (R6.6: projects off, nobody's
    projects constrain a world), with no state to read them from."""
    rng = random.Random(5)
    seen = {True: 0, False: 0}
    for projects in (True, False):
        for _ in range(20):
            state = HandState(random_deal(rng), RuleConfig(projects=projects))
            h = HeuristicAgent()
            while not state.done and not (state.phase == PLAY and state.tricks):
                state.apply(h.act(PlayerView.from_state(state, state.to_act)))
            if state.done:
                continue
            view = PlayerView.from_state(state, state.to_act)
            sampler = WorldSampler(view)
            assert view.rules.projects is projects
            assert bool(sampler.project_seats) is projects
            seen[projects] += 1
    assert seen[True] >= 5 and seen[False] >= 5


# ---------------------------------------------------------------------- evaluation vs training
class _Recorder(Agent):
    """Plays like ``heuristic`` and records every view it is shown."""

    name = "recorder"
    deterministic = True

    def __init__(self, log: list):
        super().__init__(0)
        self.log = log
        self.inner = HeuristicAgent()

    def act(self, view: PlayerView) -> int:
        action = self.inner.act(view)
        self.log.append((view.seat, view.observation(), action))
        return action


def test_evaluation_and_training_encode_the_same_observation_in_a_match_chain():
    """The same match (same deals, dealer rotation and actions) through evaluation's match chain
    (``eval.duplicate.play_match_chain``, agents on ``PlayerView``s) and through self-play
    (``train.selfplay.SelfPlayVecEnv``, batch-encoded observations): every learner decision
    shows the same vector, match_mode / match_score / deals_played pieces included."""
    from agents.neural.network import NetSpec
    from eval.duplicate import play_match_chain
    from train.config import EnvConfig, OpponentConfig
    from train.opponents import OpponentPool
    from train.selfplay import SelfPlayVecEnv

    deal_rng = np.random.default_rng(17)
    deals = [random_deal(deal_rng) for _ in range(60)]
    log: list = []
    matches, _ = play_match_chain(deals, _Recorder(log), _Recorder(log), 0, seed=0)
    first = matches[0]
    assert first.deals >= 3

    weights = OpponentConfig(self_weight=0.0, champion_weight=0.0, heuristic_weight=1.0, random_weight=0.0)
    pool = OpponentPool(weights, NetSpec(trunk=(8,), head_hidden=8, value_hidden=(8,)), 0)
    venv = SelfPlayVecEnv(1, EnvConfig(episode="match"), pool, 0)
    game = venv.games[0]
    game.table.deals = DealSource(deals=deals, dealers="rotate")  # the chain's deals, dealt as it deals them
    obs = venv.reset()
    team = game.learner_team
    learner = [(seat, o, a) for seat, o, a in log if seat % 2 == team]  # in play order
    modes, scores, deals_played = set(), set(), set()
    for seat, o, action in learner:
        assert game.table.to_act == seat
        assert np.array_equal(obs[0], o)  # training's observation == evaluation's, bit for bit
        modes.add(tuple(o[piece_slice("match_mode")]))
        scores.add(tuple(o[piece_slice("match_score")]))
        deals_played.add(float(o[piece_slice("deals_played")][0]))
        venv.step_async(np.array([action]))
        obs, _, dones, infos = venv.step_wait()
        if dones[0]:
            summary = infos[0]["episode_summary"]
            break
    else:
        raise AssertionError("self-play's match did not end where the chain's first match ended")
    assert len(summary["hands"]) == first.deals
    assert modes == {(0.0, 1.0, 0.0)}  # target 152 (R8.1): not "single hand"
    assert len(scores) >= 3 and len(deals_played) >= 3


def test_chain_hands_are_dealt_by_the_driver_as_before():
    """play_match_chain's rotation (README choice 11) is the driver's "rotate" deal source."""
    deals = [random_deal(random.Random(i)) for i in range(40)]
    table = Table(RuleConfig(), "match", DealSource(deals=deals, dealers="rotate"))
    table.reset()
    h = HeuristicAgent()
    outcome = Outcome()
    dealt = [table.hand.deal]
    while not outcome.episode_over:
        outcome = table.apply(h.act(PlayerView.from_table(table, table.to_act)))
        if outcome.hand_result is not None and not outcome.episode_over:
            dealt.append(table.hand.deal)
    assert dealt[0] == deals[0]
    for k in range(1, len(dealt)):
        assert dealt[k].hands == deals[k].hands and dealt[k].dealer == RuleConfig().next_dealer(dealt[k - 1].dealer)
