"""The public vector env: ``baloot_env.vector.BalootVecEnv``, an SB3 ``VecEnv`` with
``action_masks()`` and a working ``seed()``; the other seats played by any agent or policy, in
batches; on the batched core by default. (Its games equal the PettingZoo env's:
tests/baloot_env/test_driver.py; its two backends' games each other's: tests/baloot_env/test_lockstep_core.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from agents import HeuristicAgent, RandomAgent
from baloot_env import IllegalActionError, RuleConfig
from baloot_env.observation import OBS_SIZE, action_mask, encode
from baloot_env.vector import BalootVecEnv


def _play(venv: BalootVecEnv, steps: int, seed: int = 0) -> list:
    """Random legal learner actions; the log of what the env returned."""
    rng = np.random.default_rng(seed)
    log = []
    for _ in range(steps):
        masks = venv.action_masks()
        seats = [g.hand.to_act for g in venv.games]
        obs, rewards, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        log.append((seats, obs.copy(), rewards.copy(), dones.copy(), infos))
    return log


def _key(log: list) -> list:
    return [(s, o.tobytes(), r.tolist(), d.tolist()) for s, o, r, d, _ in log]


@pytest.mark.parametrize("backend", ["core", "python"])
def test_seed_then_reset_replays_the_same_games_and_other_seeds_differ(backend):
    """SB3 calls seed(s) then reset(): the games (and the agents it made) start over from s, as a
    new env built with seed s would (on either backend; tests/baloot_env/test_lockstep_core.py holds the two
    to the same games)."""
    a = BalootVecEnv(4, opponents="random", seed=3, backend=backend)
    first = (a.reset().tobytes(), _key(_play(a, 120)))
    assert a.seed(3) == [3, 3, 3, 3]
    again = (a.reset().tobytes(), _key(_play(a, 120)))
    b = BalootVecEnv(4, opponents="random", seed=99, backend=backend)
    b.seed(3)
    fresh = (b.reset().tobytes(), _key(_play(b, 120)))
    assert first == again == fresh
    a.seed(4)
    other = (a.reset().tobytes(), _key(_play(a, 120)))
    assert other != first
    c = BalootVecEnv(4, opponents="random", seed=3, backend=backend)  # no seed() call: the constructor's seed
    assert (c.reset().tobytes(), _key(_play(c, 120))) == first


@pytest.mark.parametrize("backend", ["core", "python"])
def test_learner_team_or_seat_acts_only_at_its_places_and_sees_its_own_view(backend):
    for learner, places in (("team", 2), ("seat", 4)):
        venv = BalootVecEnv(6, learner=learner, opponents="heuristic", seed=1, backend=backend)
        obs = venv.reset()
        seen = set()
        for _ in range(150):
            masks = venv.action_masks()
            for i, g in enumerate(venv.games):
                seat = g.hand.to_act
                assert seat in venv.learner_seats(g)
                assert np.array_equal(obs[i], encode(g.hand, seat, g.table.context))  # the acting seat's view
                assert np.array_equal(masks[i], action_mask(g.hand, seat).astype(bool))
                seen.add(g.learner_team if learner == "team" else g.learner_seat)
            obs, *_ = venv.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        assert seen == set(range(places))  # the place is drawn per episode


def test_fixed_position_and_a_partner_of_its_own():
    calls = []

    def partner(obs, masks):  # the learner's partner, on arrays
        calls.append(len(obs))
        return [int(np.flatnonzero(m)[-1]) for m in masks]

    venv = BalootVecEnv(4, learner="seat", position=2, opponents="heuristic", partner=partner, seed=0)
    venv.reset()
    log = _play(venv, 80)
    assert all(s == [2, 2, 2, 2] for s, *_ in log)
    assert calls and max(calls) > 1  # batched across games


def test_opponents_by_name_agent_callable_bundle_or_one_per_game():
    """Every kind of player: its decisions are batched across the games (one call per round)."""

    class Counting(RandomAgent):
        batches: list[int] = []

        def act_batch(self, views):
            self.batches.append(len(views))
            assert all(v.seat in (1, 3) for v in views)  # the learner is team 0
            return super().act_batch(views)

    counting = Counting()
    venv = BalootVecEnv(8, opponents=counting, position=0, seed=0)
    venv.reset()
    _play(venv, 20)
    assert max(counting.batches) == 8  # all games' opponents asked at once

    arrays = []

    def first_legal(obs, masks):
        arrays.append((obs.shape, masks.shape, masks.dtype))
        return np.array([np.flatnonzero(m)[0] for m in masks])

    venv = BalootVecEnv(5, opponents=first_legal, seed=0)
    venv.reset()
    _play(venv, 20)
    assert (5, OBS_SIZE) in [a[0] for a in arrays] and all(a[1][1] == 42 and a[2] == np.int8 for a in arrays)

    venv = BalootVecEnv(4, opponents=["heuristic", "random", "heuristic", "policies/champion"], seed=0)
    venv.reset()
    log = _play(venv, 60)
    labels = {(i, inf["episode_summary"]["opponent"]) for *_, infos in log for i, inf in enumerate(infos) if inf}
    assert {label for i, label in labels if i == 1} <= {"random"} and {label for i, label in labels if i == 0} <= {
        "heuristic"
    }
    assert len({id(g.opponent) for g in venv.games}) == 3  # equal specs share one (batched) agent


def test_episode_ends_carry_what_sb3_and_loggers_read():
    venv = BalootVecEnv(4, episode="match", opponents="random", rules=RuleConfig(match="hands", hands=5), seed=2)
    venv.reset()
    ends = [(r[i], inf[i]) for *_, r, d, inf in _play(venv, 200) for i in range(4) if d[i]]
    assert ends
    for reward, info in ends:
        assert info["terminal_observation"].shape == (OBS_SIZE,)
        assert info["episode"]["l"] >= 1 and info["episode"]["r"] == pytest.approx(info["episode_summary"]["reward"])
        assert "match_result" in info and "hand_result" in info
        assert reward != 0  # the match bonus lands on the last decision


def test_privileged_hands_are_appended_and_illegal_actions_raise():
    venv = BalootVecEnv(3, privileged=True, opponents=HeuristicAgent(), seed=5)
    obs = venv.reset()
    assert obs.shape == (3, OBS_SIZE + 128) == (3, *venv.observation_space.shape)
    for i, g in enumerate(venv.games):
        seat = g.hand.to_act
        assert obs[i, OBS_SIZE : OBS_SIZE + 32].nonzero()[0].tolist() == [
            c for c in range(32) if g.hand.hands[seat] >> c & 1
        ]
    masks = venv.action_masks()
    bad = [int(np.flatnonzero(~m)[0]) for m in masks]
    with pytest.raises(IllegalActionError):
        venv.step(np.array(bad))


def test_bad_arguments_are_refused():
    for kwargs in (
        {"learner": "both"},
        {"position": 2},
        {"episode": "game"},
        {"opponents": 3},
        {"opponents": ["random"]},
    ):
        with pytest.raises((ValueError, TypeError)):
            BalootVecEnv(2, **kwargs)
    with pytest.raises(ValueError, match="unknown agent"):
        BalootVecEnv(2, opponents="nobody")


def test_maskable_ppo_trains_on_it_with_a_plain_mlp_policy():
    from sb3_contrib import MaskablePPO

    venv = BalootVecEnv(8, opponents="random", seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(512)
    assert model.num_timesteps >= 512
    assert len(model.ep_info_buffer) > 10  # episode infos reach SB3 (rollout/ep_rew_mean)
    actions, _ = model.predict(venv.reset(), action_masks=venv.action_masks(), deterministic=True)
    assert all(venv.action_masks()[i, a] for i, a in enumerate(actions))
