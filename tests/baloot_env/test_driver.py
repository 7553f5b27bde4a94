"""The game driver: one ``Table`` for deals, dealer rotation, hands, matches and
rewards, under the PettingZoo env, self-play training and evaluation alike.

The last section plays the same seeded games through the PettingZoo env, the training vector env,
the public vector env (each on the batched core and on the Python driver) and the Gymnasium env,
and asserts identical observations, masks and rewards; it is written as recorders of a learner's trajectory, so that any env built on the
driver can add its own recorder and be held to the same games.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import numpy as np
import pytest
from test_imports import run_without

from agents import HeuristicAgent, PlayerView
from baloot_env import (
    REWARD_MODES,
    REWARD_SCALE,
    DealSource,
    HandResult,
    IllegalActionError,
    MatchResult,
    MatchState,
    Reward,
    RuleConfig,
    Table,
    env,
    hand_rewards,
    match_context,
    random_deal,
)
from baloot_env.actions import PASS


def _result(score: tuple[int, int], thrown: bool = False) -> HandResult:
    if thrown:
        return HandResult.thrown_in(0)
    return HandResult("sun", None, 0, 1, (80, 50), (5, 3), ((), ()), (0, 0), False, True, score, None, 0)


def _play_randomly(table: Table, rng: random.Random, limit: int = 100_000) -> list:
    """Random legal actions until the episode is over; the outcomes that ended hands."""
    ends = []
    for _ in range(limit):
        if table.over:
            return ends
        outcome = table.apply(rng.choice(table.hand.legal_actions()))
        if outcome.hand_result is not None:
            ends.append(outcome)
    raise AssertionError("the episode did not end")


# ---------------------------------------------------------------------- rewards: one definition
def test_reward_modes_known_answers():
    """README / env docstring: diff = difference / 44, points = unscaled, win = sign at the end;
    match_bonus for the match's winner; partners equal, opponents the negative."""
    res = _result((26, 4))
    assert hand_rewards(Reward("diff"), res, match_episode=False) == (22 / 44, -22 / 44)
    assert hand_rewards(Reward("diff", scale=11.0), res, match_episode=False) == (2.0, -2.0)
    assert hand_rewards(Reward("points"), res, match_episode=False) == (22.0, -22.0)
    assert hand_rewards(Reward("win"), res, match_episode=False) == (1.0, -1.0)
    assert hand_rewards(Reward("win"), res, match_episode=True) == (0.0, 0.0)  # only at the match's end
    won = MatchResult(1, (140, 160), "target")
    assert hand_rewards(Reward("diff", match_bonus=2.0), res, match_episode=True, match=won) == (
        22 / 44 - 2.0,
        -22 / 44 + 2.0,
    )
    assert hand_rewards(Reward("points"), res, match_episode=True, match=won) == (21.0, -21.0)
    assert hand_rewards(Reward("win"), res, match_episode=True, match=won) == (-1.0, 1.0)
    draw = MatchResult(None, (150, 150), "cap")  # R8.4: no bonus for a draw
    assert hand_rewards(Reward("diff"), res, match_episode=True, match=draw) == (0.5, -0.5)
    assert hand_rewards(Reward("win"), res, match_episode=True, match=draw) == (0.0, 0.0)
    thrown = _result((0, 0), thrown=True)
    for mode in REWARD_MODES:
        assert hand_rewards(Reward(mode), thrown, match_episode=False) == (0.0, 0.0)  # R3.5


def test_reward_spec_is_checked():
    for bad in (
        {"mode": "score"},
        {"scale": 0.0},
        {"scale": float("nan")},
        {"match_bonus": float("inf")},
        {"scale": True},
    ):
        with pytest.raises(ValueError):
            Reward(**bad)


def test_one_reward_scale_and_one_list_of_modes():
    """The training config's default scale and its modes are the environment's, not a second copy."""
    import dataclasses

    import train.config
    from baloot_env.aec import raw_env
    from train.config import ConfigError, EnvConfig, TrainConfig, validate

    assert EnvConfig().reward_scale == REWARD_SCALE == 44.0
    assert train.config.REWARD_MODES is REWARD_MODES
    for mode in REWARD_MODES:
        validate(dataclasses.replace(TrainConfig(), env=EnvConfig(reward=mode)), fresh=False)
    with pytest.raises(ConfigError, match="env.reward"):
        validate(dataclasses.replace(TrainConfig(), env=EnvConfig(reward="score")), fresh=False)
    e = raw_env(reward="points", match_bonus=3.0)
    assert e.table.reward == Reward("points", REWARD_SCALE, 3.0)


# ---------------------------------------------------------------------- the table
def test_hand_episode_plays_the_given_deal_and_pays_the_hand():
    deal = random_deal(random.Random(4))
    table = Table(RuleConfig(), "hand", DealSource(deals=[deal]))
    table.reset()
    assert table.hand.deal == deal and table.to_act == (deal.dealer + 1) % 4  # R3.1
    assert table.context == match_context(None)
    ends = _play_randomly(table, random.Random(0))
    assert len(ends) == 1 and ends[0].episode_over and ends[0].match_result is None
    s = ends[0].hand_result.score
    assert ends[0].rewards == ((s[0] - s[1]) / 44, (s[1] - s[0]) / 44)
    assert table.over and table.to_act == -1 and not table.out_of_deals
    with pytest.raises(IllegalActionError, match="over"):
        table.apply(PASS)
    with pytest.raises(Exception, match="no deal"):
        table.reset()  # the given deal is used up and there is no generator


def test_refused_actions_change_nothing():
    """R9: a refused action raises before the hand, the match or the deals change."""
    rng = random.Random(3)
    table = Table(RuleConfig(), "match", DealSource(np.random.default_rng(3)))
    table.reset()
    for _ in range(400):
        before = (json.dumps(table.to_data()), table.deals.rng.bit_generator.state)
        illegal = [a for a in range(42) if not table.hand.legal_mask() >> a & 1][:2]
        for bad in [*illegal, -1, 42, True, None, "pass", 1.0]:
            with pytest.raises(IllegalActionError):
                table.apply(bad)
            assert (json.dumps(table.to_data()), table.deals.rng.bit_generator.state) == before
        table.apply(rng.choice(table.hand.legal_actions()))
        if table.over:
            break


@pytest.mark.parametrize("rotation", ["left", "right"])
def test_match_rotates_the_dealer_and_ends_by_r8(rotation):
    """R2.1 / V9: after each deal (thrown-in ones too) the deal moves on; the first dealer comes
    from the seed; the match ends by R8 and its result is the Outcome's."""
    rules = RuleConfig(deal_rotation=rotation)
    for seed in range(3):
        table = Table(rules, "match", DealSource(np.random.default_rng(seed)))
        table.reset()
        assert table.hand.deal == random_deal(np.random.default_rng(seed))  # the env's first deal
        dealers = [table.hand.dealer]
        rng = random.Random(seed)
        last = None
        while not table.over:
            last = table.apply(rng.choice(table.hand.legal_actions()))
            if last.hand_result is not None and not last.episode_over:
                dealers.append(table.hand.dealer)
                assert table.hand.match_score == tuple(table.match.score)  # the next hand knows the score
        assert all(b == rules.next_dealer(a) for a, b in zip(dealers, dealers[1:], strict=False))
        assert last.match_result is table.match.result is not None
        assert len(dealers) == table.match.deals_played == table.context.deals_played


def test_given_deals_keep_or_rotate_their_dealers_and_can_run_out():
    """R11.2: the env's given deals keep their dealers; evaluation's chains rotate from the
    second deal on (README choice 11); without a generator a match can run out of deals."""
    deals = [random_deal(random.Random(i), dealer=0) for i in range(3)]
    for dealers, want in (("given", [0, 0, 0]), ("rotate", [0, 3, 2])):
        table = Table(RuleConfig(), "match", DealSource(deals=deals, dealers=dealers))
        table.reset()
        seen = [table.hand.dealer]
        rng = random.Random(1)
        while not table.over:
            outcome = table.apply(rng.choice(table.hand.legal_actions()))
            if outcome.hand_result is not None and not outcome.episode_over:
                seen.append(table.hand.dealer)
        assert seen == want[: len(seen)]
        if table.out_of_deals:
            assert len(seen) == 3 and outcome.episode_over and outcome.match_result is None
            assert table.match.result is None and table.deals.pending == []


def test_table_matches_a_hand_written_match_loop():
    """The readable reference: MatchState with deals drawn as R2.1 says gives the same hands,
    results and scores as the table, action for action."""
    for seed in range(4):
        table = Table(RuleConfig(), "match", DealSource(np.random.default_rng(seed)))
        table.reset()
        deal_rng = np.random.default_rng(seed)
        match = MatchState(RuleConfig())
        hand = match.start_hand(random_deal(deal_rng))
        rng = random.Random(seed)
        while True:
            a = rng.choice(hand.legal_actions())
            outcome = table.apply(a)
            hand.apply(a)
            if hand.done:
                match.end_hand()
                assert outcome.hand_result == hand.result and outcome.match_result == match.result
                if match.result is not None:
                    break
                hand = match.start_hand(random_deal(deal_rng, match.next_dealer()))
            assert table.hand == hand and table.match.score == match.score
        assert table.over


@pytest.mark.parametrize("episode", ["hand", "match"])
def test_saved_table_plays_on_exactly(episode):
    rules = RuleConfig(match="hands", hands=5)
    a = Table(rules, episode, DealSource(np.random.default_rng(9)))
    a.reset()
    rng = random.Random(9)
    for _ in range(150 if episode == "match" else 20):
        a.apply(rng.choice(a.hand.legal_actions()))
    data = json.loads(json.dumps(a.to_data()))
    b = Table(rules, episode, DealSource(np.random.default_rng(9)))
    b.deals.rng.bit_generator.state = a.deals.rng.bit_generator.state
    b.load_data(data)
    assert b.hand == a.hand and b.context == a.context
    if episode == "match":
        assert b.match.hand is b.hand and b.match.results == a.match.results
    while not a.over:
        act = rng.choice(a.hand.legal_actions())
        assert a.apply(act) == b.apply(act)
    with pytest.raises(ValueError, match="rules"):
        Table(RuleConfig(), episode).load_data(data)


def test_driver_and_rewards_need_only_the_standard_library():
    """Like the engine: the driver imports and plays with numpy, gymnasium and pettingzoo blocked."""
    code = """
    import random
    from baloot_env.driver import DealSource, Table
    from baloot_env.rewards import REWARD_SCALE

    t = Table(episode="match", deals=DealSource(random.Random(0)))
    t.reset()
    rng = random.Random(1)
    while not t.over:
        t.apply(rng.choice(t.hand.legal_actions()))
    assert t.match.result is not None and REWARD_SCALE == 44.0
    print("OK")
    """
    run_without(("numpy", "gymnasium", "pettingzoo", "torch"), code)


# ---------------------------------------------------------------------- env and vector env: the same games
# A learner team's trajectory: at each of its decisions the observation and mask, then the reward
# its team earned until its next decision, and whether the episode ended there. Recorders play
# ``episodes`` seeded episodes with the learner's actions from ``policy(obs, mask)`` and
# ``heuristic`` on the other team; deals come from ``numpy.random.default_rng(seed)``, as the env's
# ``reset(seed=seed)`` draws them, and later episodes continue that generator.

Step = tuple  # (observation, mask, reward, done)


def _policy(obs: np.ndarray, mask: np.ndarray) -> int:
    """A deterministic learner that depends on what it sees."""
    legal = np.flatnonzero(mask)
    return int(legal[int(obs.sum() * 7919) % len(legal)])


def record_pettingzoo(
    seed: int, episode: str, reward: str, teams: list[int], policy: Callable, seats: list[int] | None = None
) -> list[list[Step]]:
    """The learner plays team ``teams[k]`` in episode k (or, with ``seats``, only seat ``seats[k]``,
    its partner played by ``heuristic`` like the other team)."""
    e = env(episode=episode, reward=reward)
    u = e.unwrapped
    heuristic = HeuristicAgent()
    out = []
    for k, team in enumerate(teams):
        mine = (team, team + 2) if seats is None else (seats[k],)
        e.reset(seed=seed if k == 0 else None)  # later episodes continue the seeded generator
        steps: list[list] = []
        last_seat = -1
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            seat = int(agent[-1])
            if term or trunc:
                e.step(None)
                continue
            if seat in mine:
                steps.append([obs["observation"], obs["action_mask"].astype(bool), 0.0, False])
                action, last_seat = policy(obs["observation"], obs["action_mask"]), seat
            else:
                action = heuristic.act(PlayerView.from_table(u.table, seat))
            e.step(action)
            if steps:  # the team's reward this step (no hand ends before the learner's first decision)
                steps[-1][2] += u.rewards[f"player_{team}"]
        steps[-1][3] = True
        steps.append([e.observe(f"player_{last_seat}")["observation"]])  # the terminal observation
        out.append(steps)
    return out


def seeded_deals(seed: int, episode: str) -> DealSource:
    """The deals ``env.reset(seed=seed)`` and its later resets draw, given as a list: a match's
    first deal (and a hand episode's) draws its dealer, later hands take the rotation's (R2.1)."""
    rng = np.random.default_rng(seed)
    if episode == "hand":
        return DealSource(deals=[random_deal(rng) for _ in range(12)])
    return DealSource(deals=[random_deal(rng)] + [random_deal(rng, 0) for _ in range(60)], dealers="rotate")


def _deal_source(seed: int, episode: str, deals: str) -> DealSource:
    if deals == "given":
        return seeded_deals(seed, episode)
    return DealSource(np.random.default_rng(seed))  # deal as env.reset(seed=seed) does


def record_selfplay(
    seed: int, episode: str, reward: str, count: int, policy: Callable, backend: str = "core", deals: str = "seeded"
) -> tuple[list, list[int]]:
    """Self-play training's vector env, heuristic opponents, on ``backend``; ``deals="given"``
    hands it the seeded deals as a list (the core then plays queued deals only)."""
    from agents.neural.network import NetSpec
    from train.config import EnvConfig, OpponentConfig
    from train.opponents import OpponentPool
    from train.selfplay import SelfPlayVecEnv

    weights = OpponentConfig(self_weight=0.0, champion_weight=0.0, heuristic_weight=1.0, random_weight=0.0)
    pool = OpponentPool(weights, NetSpec(trunk=(8,), head_hidden=8, value_hidden=(8,)), 0)
    venv = SelfPlayVecEnv(1, EnvConfig(episode=episode, reward=reward), pool, seed, backend=backend)
    game = venv.games[0]
    game.table.deals = _deal_source(seed, episode, deals)
    obs = venv.reset()
    out, teams, steps = [], [game.learner_team], []
    while len(out) < count:
        mask = venv.action_masks()[0]
        steps.append([obs[0], mask, 0.0, False])
        venv.step_async(np.array([policy(obs[0], mask)]))
        obs, rewards, dones, infos = venv.step_wait()
        steps[-1][2], steps[-1][3] = float(rewards[0]), bool(dones[0])
        if dones[0]:
            steps.append([infos[0]["terminal_observation"]])
            out.append(steps)
            steps = []
            teams.append(game.learner_team)
    return out, teams[:count]


def record_vector(
    seed: int,
    episode: str,
    reward: str,
    count: int,
    policy: Callable,
    learner: str = "team",
    backend: str = "core",
    deals: str = "seeded",
) -> tuple[list, list[int]]:
    """The public vector env (``baloot_env.vector``) on ``backend``, heuristic on the other seats;
    the learner's team or seat is drawn per episode. Returns the trajectories and the drawn positions."""
    from baloot_env.vector import BalootVecEnv

    venv = BalootVecEnv(
        1, learner=learner, opponents=HeuristicAgent(), episode=episode, reward=reward, seed=seed, backend=backend
    )
    game = venv.games[0]
    game.table.deals = _deal_source(seed, episode, deals)
    obs = venv.reset()
    place = lambda: game.learner_team if learner == "team" else game.learner_seat  # noqa: E731
    out, places, steps = [], [place()], []
    while len(out) < count:
        mask = venv.action_masks()[0]
        steps.append([obs[0], mask, 0.0, False])
        obs, rewards, dones, infos = venv.step(np.array([policy(obs[0], mask)]))
        steps[-1][2], steps[-1][3] = float(rewards[0]), bool(dones[0])
        if dones[0]:
            steps.append([infos[0]["terminal_observation"]])
            out.append(steps)
            steps = []
            places.append(place())
    return out, places[:count]


def record_gym(
    seed: int, episode: str, reward: str, count: int, policy: Callable, learner: str = "seat"
) -> tuple[list, list[int]]:
    """The Gymnasium env (``baloot_env.single``) at a fixed place: ``reset(seed=seed)`` deals as the
    PettingZoo env's ``reset(seed=seed)``, and later resets continue its generator."""
    from baloot_env.single import BalootEnv

    place = seed % (2 if learner == "team" else 4)
    e = BalootEnv(opponents=HeuristicAgent(), learner=learner, position=place, episode=episode, reward=reward)
    out = []
    for k in range(count):
        obs, _ = e.reset(seed=seed if k == 0 else None)
        steps, done = [], False
        while not done:
            mask = e.action_masks()
            assert np.array_equal(mask, obs["action_mask"].astype(bool))
            steps.append([obs["observation"], mask, 0.0, False])
            obs, r, done, truncated, info = e.step(policy(obs["observation"], obs["action_mask"]))
            assert not truncated and "illegal_action" not in info
            steps[-1][2], steps[-1][3] = r, done
        steps.append([obs["observation"]])
        out.append(steps)
    return out, [place] * count


def _record(way: str, seed: int, episode: str, reward: str, count: int) -> tuple[list, list[int], bool]:
    """A recorder's trajectories, the learner's places and whether a place is a seat. ``way`` is
    the env, then for the vector envs ``core`` or ``python`` (the backend) and ``seeded`` or
    ``given`` (the deals: drawn from the seeded generator, or that generator's deals as a list)."""
    kind, *rest = way.split("_")
    if kind == "selfplay":
        backend, deals = rest
        return (*record_selfplay(seed, episode, reward, count, _policy, backend, deals), False)
    if kind == "vector":
        learner, backend, deals = rest
        return (*record_vector(seed, episode, reward, count, _policy, learner, backend, deals), learner == "seat")
    (learner,) = rest
    return (*record_gym(seed, episode, reward, count, _policy, learner), learner == "seat")


WAYS = [
    "selfplay_core_seeded",
    "selfplay_python_seeded",
    "selfplay_core_given",
    "vector_team_core_seeded",
    "vector_team_python_seeded",
    "vector_team_core_given",
    "vector_seat_core_seeded",
    "vector_seat_python_seeded",
    "vector_seat_core_given",
    "gym_seat",
    "gym_team",
]


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize(
    ("episode", "reward", "seed", "count"),
    [
        ("hand", "diff", 0, 6),
        ("hand", "points", 1, 6),
        ("hand", "win", 2, 6),
        ("match", "diff", 3, 1),
        ("match", "win", 4, 1),
    ],
)
def test_pettingzoo_env_and_the_vector_envs_play_the_same_games(way, episode, reward, seed, count):
    """The same seeded deals and the same actions (a deterministic learner; heuristic on the other
    seats) give the learner identical observations, masks, rewards and episode ends (and terminal
    observations) through the PettingZoo env and through the self-play vector env, the public
    vector env (learner team or seat), both on the batched core and on the Python driver, with
    the deals drawn or given, and the Gymnasium env (seat or team)."""
    sp, places, seat_mode = _record(way, seed, episode, reward, count)
    teams = [p % 2 for p in places]
    pz = record_pettingzoo(seed, episode, reward, teams, _policy, seats=places if seat_mode else None)
    assert len(pz) == len(sp) == count
    decisions = rewarded = 0
    for a, b in zip(pz, sp, strict=True):
        assert len(a) == len(b)
        for sa, sb in zip(a[:-1], b[:-1], strict=True):
            assert np.array_equal(sa[0], sb[0]) and np.array_equal(sa[1], sb[1])
            assert np.float32(sa[2]) == np.float32(sb[2]) and sa[3] == sb[3]
            decisions += 1
            rewarded += sa[2] != 0
        assert np.array_equal(a[-1][0], b[-1][0])  # the terminal observation
    assert decisions > (20 if seat_mode else 50) and rewarded >= 1
    if episode == "match":
        assert rewarded >= (3 if reward == "diff" else 1)  # every hand pays in diff mode


@pytest.mark.parametrize(
    "seed, options, words",
    [
        (-1, None, "seed must be"),
        ("abc", None, "seed must be"),
        (True, None, "seed must be"),
        (0, [1], "options must be a dict"),
        (0, {"deals": []}, "non-empty list"),
        (0, {"deals": "x"}, "non-empty list"),
        (0, {"deal": "x", "deals": ["y"]}, "not both"),
    ],
)
def test_bad_reset_arguments_are_one_line_and_change_nothing(seed, options, words):
    """Issue 46, goal 5: the PettingZoo and Gymnasium envs refuse them with a BalootError before
    anything changes (the next reset plays as if the bad one had not been asked)."""
    from baloot_env import BalootError
    from baloot_env.aec import raw_env
    from baloot_env.single import BalootEnv

    env = raw_env()
    env.reset(seed=3)
    first = env.observe(env.agent_selection)["observation"].copy()
    with pytest.raises(BalootError, match=words):
        env.reset(seed=seed, options=options)
    env.reset(seed=3)
    assert (env.observe(env.agent_selection)["observation"] == first).all()
    single = BalootEnv()
    with pytest.raises(BalootError, match=words):
        single.reset(seed=seed, options=options)
    import numpy as np

    single.reset(seed=np.int64(5))  # numpy's integers are seeds too
