"""The single-seat Gymnasium env: ``baloot_env.single.BalootEnv``, registered as
``baloot/Baloot-v0``; it passes Gymnasium's ``check_env`` and trains with sb3-contrib as it is.
(Its games equal the PettingZoo env's: tests/baloot_env/test_driver.py.)"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import baloot_env.single  # noqa: F401 (registers baloot/Baloot-v0)
from baloot_env import IllegalActionError, env, random_deal
from baloot_env.observation import OBS_SIZE
from baloot_env.single import ENV_ID, BalootEnv


def test_check_env_passes_on_the_registered_env():
    e = gymnasium.make(ENV_ID, opponents="heuristic")
    assert e.spec.id == "baloot/Baloot-v0" and isinstance(e.unwrapped, BalootEnv)
    check_env(e.unwrapped)  # random actions, seeded determinism, fresh data, both render modes
    for kwargs in ({"learner": "team", "episode": "match"}, {"opponents": "random", "position": 3}):
        check_env(gymnasium.make(ENV_ID, **kwargs).unwrapped, skip_render_check=True)


def test_make_by_name_with_or_without_the_import():
    """Gymnasium 1.x loads no plugin entry points: "module:id" imports the registering module."""
    e = gymnasium.make("baloot_env.single:baloot/Baloot-v0", opponents="random", episode="match")
    assert e.unwrapped.games.episode == "match"
    obs, info = e.reset(seed=0)
    assert obs["observation"].shape == (OBS_SIZE,) and obs["action_mask"].dtype == np.int8 and info == {}
    assert e.observation_space["observation"].contains(obs["observation"])


def test_illegal_actions_change_nothing_and_pay_the_penalty_or_raise():
    e = BalootEnv(opponents="heuristic")
    obs, _ = e.reset(seed=4)
    before = e.game.table.to_data()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    for bad in (illegal, 42, -1, "pass", 1.5, True):
        again, reward, term, trunc, info = e.step(bad)
        assert reward == -1.0 and not term and not trunc and info == {"illegal_action": True}
        assert np.array_equal(again["observation"], obs["observation"]) and e.game.table.to_data() == before
    strict = BalootEnv(opponents="heuristic", illegal="raise")
    strict.reset(seed=4)
    with pytest.raises(IllegalActionError, match="legal"):
        strict.step(illegal)


def test_an_episode_ends_once_and_then_asks_for_reset():
    e = BalootEnv(opponents="random", learner="team")
    obs, _ = e.reset(seed=1)
    rng = np.random.default_rng(1)
    total, done = 0.0, False
    while not done:
        assert e.action_masks().any() and np.array_equal(e.action_masks(), obs["action_mask"].astype(bool))
        obs, r, done, _, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        total += r
    assert not obs["action_mask"].any() and not e.action_masks().any()
    assert "hand_result" in info and info["episode_summary"]["reward"] == pytest.approx(total)
    with pytest.raises(Exception, match="reset"):
        e.step(0)


def test_reset_options_play_given_deals_like_the_pettingzoo_env():
    deal = random_deal(np.random.default_rng(8))
    e = BalootEnv(opponents="heuristic", position=0)
    e.reset(options={"deal": deal.to_dict()})
    assert e.game.table.hand.deal == deal
    e.reset(seed=11)  # a fixed seat: the deal of the PettingZoo env's reset(seed=11)
    pz = env()
    pz.reset(seed=11)
    assert e.game.table.hand.deal == pz.unwrapped.table.hand.deal
    with pytest.raises(Exception, match="unknown reset options"):
        e.reset(options={"dael": deal.to_dict()})


def test_render_modes():
    e = BalootEnv(render_mode="ansi")
    e.reset(seed=0)
    assert "dealer" in e.render()
    with pytest.raises(ValueError):
        BalootEnv(render_mode="rgb_array")


def _train(steps: int) -> tuple[object, int]:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    class CountIllegal(BaseCallback):
        illegal = 0

        def _on_step(self) -> bool:
            CountIllegal.illegal += sum("illegal_action" in info for info in self.locals["infos"])
            return True

    e = gymnasium.make(ENV_ID, opponents="heuristic")
    model = MaskablePPO("MultiInputPolicy", e, n_steps=256, batch_size=64, n_epochs=2, seed=0, device="cpu")
    model.learn(steps, callback=CountIllegal())
    return model, CountIllegal.illegal


def test_maskable_ppo_runs_out_of_the_box():
    model, illegal = _train(256)
    assert model.num_timesteps >= 256 and illegal == 0


@pytest.mark.slow
def test_maskable_ppo_trains_a_few_thousand_steps():
    model, illegal = _train(4096)
    assert model.num_timesteps >= 4096 and illegal == 0  # the masks reach MaskablePPO
    assert len(model.ep_info_buffer) == 100  # SB3 keeps the last 100 episodes: hundreds ended


def test_the_gymnasium_env_needs_neither_torch_nor_stable_baselines3():
    """Only the vector env needs SB3 (the ``train`` extra); ``import baloot_env`` needs neither."""
    from test_imports import run_without

    code = """
    import baloot_env
    from gymnasium.utils.env_checker import check_env

    check_env(baloot_env.BalootEnv(opponents="heuristic"), skip_render_check=True)
    try:
        baloot_env.BalootVecEnv
    except ImportError as e:
        assert e.name.partition(".")[0] in ("stable_baselines3", "torch"), e
    else:
        raise AssertionError("the vector env imported without stable-baselines3?")
    print("OK")
    """
    run_without(("torch", "stable_baselines3", "sb3_contrib"), code)
