"""The RLlib backend: the MultiAgentEnv over the driver, BalootNet as an RLModule, the
league's mapping, a short training run whose checkpoints become policy bundles that evaluate,
export and promote, an EnvRunner killed mid-training, a driver killed and resumed.

Needs the ``scale`` extra (``ray[rllib]``); without it every test here is skipped. One Ray with
2 CPUs serves the module and is shut down at its end.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from eval.ray_runner import start_local_ray  # noqa: E402

pytest.importorskip("ray.rllib", reason='the RLlib backend needs the scale extra: pip install -e ".[scale]"')

import ray  # noqa: E402
import torch  # noqa: E402

import eval.promote  # noqa: E402
from agents.neural.bundle import load_net, load_policy  # noqa: E402
from agents.neural.network import BalootNet, NetSpec  # noqa: E402
from baloot_env.driver import DealSource, Table  # noqa: E402
from baloot_env.observation import (  # noqa: E402
    OBS_SIZE,
    action_mask,
    encode,
    hidden_hands,  # noqa: E402
)
from baloot_env.rewards import Reward  # noqa: E402
from eval.stats import SequentialDecision, mean_sd  # noqa: E402
from train.config import (  # noqa: E402
    ConfigError,  # noqa: E402
    EnvConfig,
    OpponentConfig,
)
from train.rllib.checkpoint import MAIN  # noqa: E402
from train.rllib.config import RayConfig, load_rllib_config  # noqa: E402
from train.rllib.env import AGENTS, BalootMultiAgentEnv, seat_of  # noqa: E402
from train.rllib.league import LeagueCallbacks, MemberSync  # noqa: E402
from train.rllib.module import BalootRLModule, net_from_module_state  # noqa: E402
from train.rllib.vector_env import SelfPlayVectorEnv  # noqa: E402
from train.selfplay import SelfPlayVecEnv, episode_counts, selfplay_stats  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TINY = [  # a few hundred learner decisions of a small network: the CI run
    "ppo.n_envs=8",
    "ppo.n_steps=32",
    "ppo.batch_size=128",
    "ppo.n_epochs=1",
    "ppo.learning_rate=0.0003",
    "net.trunk=[32]",
    "net.head_hidden=16",
    "net.value_hidden=[16]",
    "pretrain.positions=0",
    "eval.deal_set=small",
    "eval.deals=8",
    "eval.final_deal_set=small",
    "eval.final_deals=8",
    "eval.workers=1",
    "opponents.pool_size=2",
    "rllib.num_env_runners=2",
]
SB3_TAGS = {  # what the SB3 backend writes (train/trainer.py) that RLlib can give
    "charts/decisions_per_s",
    "charts/learner_decisions",
    "charts/learning_rate",
    "charts/clip_range",
    "losses/policy_gradient_loss",
    "losses/value_loss",
    "losses/entropy_loss",
    "losses/approx_kl",
    "losses/explained_variance",
    "losses/loss",
    "selfplay/episode_reward",
    "eval/dev/mean_vs_heuristic",
    "eval/dev/ci95_low_vs_heuristic",
    "eval/dev/promoted",
    "eval/dev/mean_vs_champion",
    "eval/dev_final/mean_vs_heuristic",
}


@pytest.fixture(scope="module", autouse=True)
def ray_2cpus():
    start_local_ray(2, 200)
    yield
    ray.shutdown()


def _promote_on_difference(d, look, looks, *args, **kwargs):
    """Test double of the promotion test (as tests/train/test_train_faults.py): a candidate that plays
    differently from the champion is promoted, so the champion path runs on a tiny network."""
    m, _ = mean_sd(d)
    return SequentialDecision("promote" if m != 0 else "reject", look, len(d), 9.0 if m != 0 else 0.0, 1.0)


# ---------------------------------------------------------------------------------- the env
def test_env_is_the_driver_game_turn_by_turn():
    """Only the seat to act observes; its observation and mask are the driver's encode/mask; the
    game is the one a Table plays from the same generator; at a hand's end all four seats get
    their team's reward (R1.1), and the episode ends with the driver's."""
    env = BalootMultiAgentEnv({"seed": 7, "privileged": True, "episode": "match"})
    obs, _ = env.reset(seed=11)
    ref = Table(None, "match", DealSource(np.random.default_rng(11)), Reward())
    ref.reset()
    rng = np.random.default_rng(0)
    hands = steps = 0
    while True:
        (agent,) = obs
        seat = seat_of(agent)
        assert seat == ref.to_act
        o = obs[agent]
        assert np.array_equal(o["observations"], encode(ref.hand, seat, ref.context))
        assert np.array_equal(o["action_mask"], action_mask(ref.hand, seat).astype(np.float32))
        four = [ref.hand.hands[(seat + k) % 4] for k in range(4)]
        assert np.array_equal(o["privileged"], hidden_hands([four])[0])
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        outcome = ref.apply(action)
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        steps += 1
        assert not truncs["__all__"]
        if outcome.hand_result is not None:
            hands += 1
            assert set(rewards) == set(AGENTS)
            for a in AGENTS:
                assert rewards[a] == outcome.rewards[seat_of(a) % 2]
            assert rewards["player_0"] == rewards["player_2"] == -rewards["player_1"]
        else:
            assert rewards == {agent: 0.0}
        if terms["__all__"]:
            assert outcome.episode_over
            assert all(info["episode"]["hands"][-1] == outcome.hand_result.to_info() for info in infos.values())
            assert len(infos[next(iter(infos))]["episode"]["hands"]) == hands
            break
        assert not outcome.episode_over
    assert hands >= 1 and steps > 30


def test_every_sub_env_of_every_env_runner_deals_its_own_cards():
    """RLlib seeds sub-env i of EnvRunner w with (seed + w + i), so runners overlap; the env puts
    the runner's index in, and no two sub-envs of a run play the same deals."""
    from ray.rllib.env.env_context import EnvContext

    firsts = set()
    for w in range(4):  # 0: the driver's own runner (no remote ones)
        for i in range(4):
            env = BalootMultiAgentEnv(EnvContext({"seed": 1}, worker_index=w, vector_index=i))
            env.reset(seed=100 + w + i)
            firsts.add(env.table.hand.deal.to_dict().__repr__())
    assert len(firsts) == 16


# ---------------------------------------------------------------------------------- the module
def test_module_is_balootnet_weight_for_weight():
    """Masked logits and values of the RLModule are BalootNet's with the same weights (the mask
    on the logits, the privileged critic reading the four hands); the weights map 1:1."""
    from ray.rllib.core.columns import Columns

    env = BalootMultiAgentEnv({"privileged": True})
    spec = NetSpec(trunk=(64,), head_hidden=16, value_hidden=(16,), privileged_critic=True)
    module = BalootRLModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"net": spec.to_dict()},
    )
    net = net_from_module_state(spec, module.get_state())
    rows = []
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(1)
    while len(rows) < 40:
        (agent,) = obs
        rows.append(obs[agent])
        action = int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))
        obs, *_ = env.step({agent: action})
        if not obs or len(obs) > 1:
            obs, _ = env.reset()
    batch = {k: torch.as_tensor(np.stack([r[k] for r in rows])) for k in rows[0]}
    with torch.no_grad():
        out = module.forward_train({Columns.OBS: batch})
        values = module.compute_values({Columns.OBS: batch})
        logits, value = net(torch.cat([batch["observations"], batch["privileged"]], 1), batch["action_mask"])
    assert torch.equal(out[Columns.ACTION_DIST_INPUTS], logits)
    assert torch.allclose(values, value)
    illegal = batch["action_mask"] == 0
    assert (out[Columns.ACTION_DIST_INPUTS][illegal] <= -1e7).all()
    assert set(net.state_dict()) == {k[4:] for k in module.get_state()}


# ---------------------------------------------------------------------------------- the self-play games
SPEC = NetSpec(trunk=(16,), head_hidden=8, value_hidden=(8,), privileged_critic=True)
HEURISTIC_ONLY = OpponentConfig(self_weight=0.0, champion_weight=0.0, heuristic_weight=1.0, random_weight=0.0)


def _vector_env(n, opponents=HEURISTIC_ONLY, seed=5):
    return SelfPlayVectorEnv(
        {
            "num_envs": n,
            "env": EnvConfig(),
            "opponents": opponents,
            "net": SPEC,
            "precision": "fp32",
            "privileged": True,
            "seed": seed,
        }
    )


def test_vector_env_plays_the_sb3_games_with_gymnasiums_next_step_autoreset():
    """Game for game, the RLlib vector env's decisions are the SB3 self-play env's (same seed,
    same choices): the same observations and masks, rewards and episode ends. Where the SB3 env
    starts the next episode in the same step, the vector env returns the episode's last
    observation (nothing legal) and, on the next step, ignores the action it is given and returns
    the new episode's first observation with reward 0, as Gymnasium's NEXT_STEP mode says."""
    from train.opponents import OpponentPool

    n = 5
    venv = _vector_env(n)
    ref = SelfPlayVecEnv(n, EnvConfig(), OpponentPool(HEURISTIC_ONLY, SPEC, 5), 5, privileged=True)
    assert venv.metadata["autoreset_mode"].value == "NextStep"
    assert venv.observation_space["observations"].shape == (n, OBS_SIZE)
    mine, theirs = [[] for _ in range(n)], [[] for _ in range(n)]
    pick_v = [np.random.default_rng(100 + i) for i in range(n)]
    pick_r = [np.random.default_rng(100 + i) for i in range(n)]

    obs, _ = venv.reset()
    owed = np.zeros(n, bool)
    for _ in range(120):
        actions = np.full(n, 41)  # what an owed game gets: not even legal, and ignored
        for i in np.flatnonzero(~owed):
            legal = np.flatnonzero(obs["action_mask"][i])
            actions[i] = pick_v[i].choice(legal)
            mine[i].append(
                (
                    "decide",
                    obs["observations"][i].tobytes(),
                    obs["privileged"][i].tobytes(),
                    legal.tobytes(),
                    int(actions[i]),
                )
            )
        obs, rewards, terms, truncs, _ = venv.step(actions)
        assert not truncs.any()
        for i in range(n):
            if owed[i]:
                assert rewards[i] == 0 and not terms[i]  # the reset step
                continue
            mine[i].append(("reward", float(rewards[i]), bool(terms[i])))
            if terms[i]:
                assert not obs["action_mask"][i].any()
                mine[i].append(("end", obs["observations"][i].tobytes(), obs["privileged"][i].tobytes()))
        owed = terms

    r_obs = ref.reset()
    for _ in range(120):
        masks = ref.action_masks()
        actions = np.array([pick_r[i].choice(np.flatnonzero(masks[i])) for i in range(n)])
        for i in range(n):
            theirs[i].append(
                (
                    "decide",
                    r_obs[i, :OBS_SIZE].tobytes(),
                    r_obs[i, OBS_SIZE:].tobytes(),
                    np.flatnonzero(masks[i]).tobytes(),
                    int(actions[i]),
                )
            )
        r_obs, rewards, dones, infos = ref.step(actions)
        for i in range(n):
            theirs[i].append(("reward", float(rewards[i]), bool(dones[i])))
            if dones[i]:
                end = infos[i]["terminal_observation"]
                theirs[i].append(("end", end[:OBS_SIZE].tobytes(), end[OBS_SIZE:].tobytes()))
    ends = 0
    for i in range(n):
        k = len(mine[i])  # the vector env made fewer decisions (its reset steps)
        assert k > 150 and theirs[i][:k] == mine[i]
        ends += sum(e[0] == "end" for e in mine[i])
    assert ends >= 2 * n


def test_vector_env_reset_seeds_its_games():
    a, b, c = _vector_env(3), _vector_env(3), _vector_env(3)
    first = [env.reset(seed=s)[0]["observations"] for env, s in ((a, 1), (b, 1), (c, 2))]
    assert np.array_equal(first[0], first[1]) and not np.array_equal(first[0], first[2])


class _Runner:
    """What MemberSync and LeagueCallbacks reach of an EnvRunner: its env."""

    def __init__(self, env):
        self.env = type("Wrapped", (), {"unwrapped": env})()


class _Group:
    def __init__(self, runners):
        self.runners = runners

    def foreach_env_runner(self, fn, local_env_runner=True):
        return [fn(r) for r in self.runners]


def test_every_env_runner_gets_the_drivers_members_once_and_plays_them():
    """The driver's new snapshot reaches every runner's games (their opponents become it); a
    runner already holding the newest members is not sent them again; a fresh (replaced) runner
    gets them at the next sync."""
    from train.opponents import OpponentPool

    only_self = OpponentConfig(self_weight=1.0, champion_weight=0.0, heuristic_weight=0.0, random_weight=0.0)
    driver = OpponentPool(only_self, SPEC, 0)
    sync = MemberSync(driver)
    envs = [_vector_env(4, only_self, seed=s) for s in (1, 2)]
    loads = []
    for env in envs:
        original = env.set_members
        env.set_members = lambda m, v, original=original, env=env: (loads.append(id(env)), original(m, v))
    group = _Group([_Runner(e) for e in envs])
    driver.add_snapshot("step_0", BalootNet(SPEC).state_dict())
    sync.changed()
    sync.sync(group)
    sync.sync(group)
    assert sorted(loads) == sorted(id(e) for e in envs)  # once each
    fresh = _vector_env(4, only_self, seed=3)
    group.runners.append(_Runner(fresh))
    sync.sync(group)
    assert [o.name for o in fresh.pool.snapshots] == ["step_0"] and fresh.members_version == sync.version
    env = envs[0]
    obs, _ = env.reset()
    rng = np.random.default_rng(0)
    while len(env.finished) < 6:
        acts = [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in obs["action_mask"]]
        obs, *_ = env.step(np.array(acts))
    assert {e["opponent"] for e in env.finished} == {"self"}

    # the EnvRunner's callback turns the finished episodes into the selfplay/ sums, once
    logged = {}

    class Logger:
        def log_value(self, key, value, reduce):
            assert reduce == "sum"
            logged[key[1]] = logged.get(key[1], 0.0) + value

    want = {}
    for e in env.finished:
        for key, value in episode_counts(e["opponent"], e["reward"], e["won"], e["hands"]).items():
            want[key] = want.get(key, 0.0) + value
    LeagueCallbacks().on_sample_end(env_runner=_Runner(env), metrics_logger=Logger())
    assert logged == want and logged["episodes_vs_self"] >= 6 and not env.finished
    assert selfplay_stats(logged)["win_rate_vs_self"] == logged.get("wins_vs_self", 0.0) / logged["episodes"]


# ---------------------------------------------------------------------------------- config and CLI
def test_config_rllib_section_and_one_line_errors(tmp_path, capsys):
    from train.__main__ import main

    cfg = load_rllib_config("configs/rllib.yaml")
    assert cfg.rllib == RayConfig() and cfg.run_dir == "runs/rllib"
    # the shared sections' defaults (configs/default.yaml) but for the smaller recipe it sets
    assert cfg.ppo == dataclasses.replace(load_rllib_config(None).ppo, total_steps=1_000_000)
    assert cfg.pretrain.positions == 600_000 and cfg.eval.every == 250_000
    with pytest.raises(ConfigError, match="unknown config key"):
        load_rllib_config(None, ["rllib.num_runners=3"])
    with pytest.raises(ConfigError, match="rllib.num_env_runners must be >= 0"):
        load_rllib_config(None, ["rllib.num_env_runners=-1"])
    assert main(["--backend", "rllib", "--set", "rllib.num_env_runners=-1", "--run-dir", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: rllib.num_env_runners") and "\n" not in err
    assert main(["--address", "auto"]) == 2  # --address needs --backend rllib
    assert main(["--config", "configs/rllib.yaml"]) == 2  # an RLlib config without --backend rllib
    assert "add --backend rllib" in capsys.readouterr().err
    assert main(["--backend", "rllib", "--resume", str(tmp_path / "nothing")]) == 2
    assert not (tmp_path / "r").exists()


# ---------------------------------------------------------------------------------- training
def test_short_training_run_gives_bundles_that_evaluate_export_and_promote(tmp_path):
    """A short RLlib run in this process (the module's Ray), the CI run: 2 EnvRunners, ~600
    learner decisions of a small network, snapshots, evaluations with the promotion rule (made to
    promote by a test double), the final evaluation, bundles, summary and the SB3 tags."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from eval.__main__ import main as eval_main
    from train.rllib.__main__ import main as rllib_main
    from train.rllib.backend import run_rllib_training
    from train.rllib.checkpoint import list_checkpoints, read_members, read_state

    run_dir = tmp_path / "run"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(eval.promote, "sequential_decision", _promote_on_difference)
        mp.setattr(eval.promote, "ci95", lambda d: (abs(mean_sd(d)[0]), abs(mean_sd(d)[0])))
        summary = run_rllib_training(
            "configs/rllib.yaml",
            [
                *TINY,
                f"run_dir={run_dir}",
                "ppo.total_steps=600",
                "eval.every=256",
                "opponents.snapshot_every=200",
                "checkpoint_every=256",
                "log_every=128",
            ],
            None,
            quiet=True,
        )
    assert summary["steps"] >= 600 and summary["backend"] == "rllib"
    # the final bundle: verified (checksums, versions, architecture), the manifest names the backend
    net, manifest = load_net(summary["bundle"])
    assert manifest["training"]["backend"] == "rllib" and manifest["training"]["steps"] == summary["steps"]
    assert net.spec == NetSpec(
        trunk=(32,), head_hidden=16, value_hidden=(16,), privileged_critic=True, obs_size=OBS_SIZE
    )
    assert manifest["evaluations"] and manifest["evaluations"][0]["opponent"] == "heuristic"
    load_policy(summary["bundle"])
    out = tmp_path / "report.json"
    assert (
        eval_main(
            [
                "--a",
                summary["bundle"],
                "--b",
                "heuristic",
                "--deal-set",
                "small",
                "--deals",
                "4",
                "--quiet",
                "--no-matches",
                "--json",
                str(out),
                "--png",
                str(tmp_path / "r.png"),
            ]
        )
        == 0
    )
    assert json.loads(out.read_text())["deals"] == 4
    if importlib.util.find_spec("onnx") is not None:
        assert (
            eval_main(["export", "--policy", summary["bundle"], "--out", str(tmp_path / "p.onnx"), "--check", "50"])
            == 0
        )
    # the promotion rule ran on the RLlib bundles as in the SB3 backend; the champion joined the league
    history = [json.loads(line) for line in (run_dir / "promotions.jsonl").read_text().splitlines()]
    assert len(history) >= 2 and history[0]["promoted"]  # one per evaluation (every 256 decisions)
    champion = json.loads((run_dir / "champion.json").read_text())["champion"]
    assert load_net(run_dir / champion)[1]["training"]["backend"] == "rllib"
    kept = list_checkpoints(run_dir)
    assert 1 <= len(kept) <= 3
    state = read_state(kept[-1])
    members = read_members(kept[-1])
    assert state["steps"] == summary["steps"] and len(members["snapshots"]) == 2  # pool_size 2: the oldest leave
    at = [int(name.removeprefix("step_")) for name, _ in members["snapshots"]]
    assert members["champions"] and at == sorted(at) and 0 < at[-1] <= summary["steps"]
    # the SB3 backend's TensorBoard tags
    ea = EventAccumulator(str(run_dir / "tb"))
    ea.Reload()
    tags = set(ea.Tags()["scalars"])
    assert SB3_TAGS <= tags and any(t.startswith("selfplay/win_rate_vs_") for t in tags)
    assert not [t for t in tags if t.startswith("train/") or t in ("eval/mean_vs_heuristic", "eval/promoted")]
    promoted_at = [s.step for s in ea.Scalars("eval/dev/promoted")]
    assert promoted_at == [h["step"] if "step" in h else int(Path(h["candidate"]).name.split("_")[1]) for h in history]
    from tensorboard.plugins.hparams import plugin_data_pb2

    content = ea.PluginTagToContent("hparams")
    start = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/session_start_info"]).session_start_info
    assert start.hparams["rllib.num_env_runners"].number_value == 2 and "env.rules.projects" in start.hparams
    # any checkpoint becomes a bundle from the command line
    assert rllib_main(["bundle", str(run_dir), str(tmp_path / "bundle")]) == 0
    assert load_net(tmp_path / "bundle")[0].state_dict().keys() == net.state_dict().keys()


@pytest.mark.slow
def test_env_runner_killed_mid_training_is_replaced(tmp_path):
    """SIGKILL one of two EnvRunners: training goes on with the other, RLlib starts a new one,
    which holds the learner's weights and, after the driver's next sync, the pool's members."""
    from train.rllib.backend import RLlibTrainer

    cfg = load_rllib_config(
        "configs/rllib.yaml",
        [*TINY, f"run_dir={tmp_path / 'run'}", "ppo.total_steps=100000", "eval.every=0", "eval.promote=false"],
    )
    with RLlibTrainer(cfg, quiet=True) as t:
        t.algo.train()
        pids = t.algo.env_runner_group.foreach_env_runner(lambda er: os.getpid(), local_env_runner=False)
        os.kill(pids[0], signal.SIGKILL)
        restarts = 0
        deadline = time.monotonic() + 300  # a restart can take minutes on a loaded 2-core machine
        while time.monotonic() < deadline:
            result = t.algo.train()
            assert result["env_runners"]["num_env_steps_sampled"] > 0  # training goes on
            restarts = result["fault_tolerance"]["num_remote_worker_restarts"]
            if restarts and t.algo.env_runner_group.num_healthy_remote_workers() == 2:
                break
        assert restarts >= 1
        new = t.algo.env_runner_group.foreach_env_runner(lambda er: os.getpid(), local_env_runner=False)
        assert pids[0] not in new and len(new) == 2
        learner = t.algo.learner_group.get_state(components="learner/rl_module")["learner"]["rl_module"]
        want = np.asarray(learner[MAIN]["net.trunk.0.weight"])
        got = t.algo.env_runner_group.foreach_env_runner(
            lambda er: er.module.net.trunk[0].weight.detach().numpy(), local_env_runner=False
        )
        for w in got:
            np.testing.assert_allclose(w, want, rtol=0, atol=1e-6)
        t.members.sync(t.algo.env_runner_group)  # what the training loop does before each iteration
        held = t.algo.env_runner_group.foreach_env_runner(
            lambda er: [o.name for o in er.env.unwrapped.pool.snapshots], local_env_runner=False
        )
        assert held == [[o.name for o in t.pool.snapshots]] * 2 and held[0]


@pytest.mark.slow
def test_killed_driver_resumes_from_its_last_checkpoint(tmp_path):
    """SIGKILL ``python -m train --backend rllib`` after its first checkpoint past the start; then
    ``--resume`` continues from that checkpoint (steps, league, evaluations) to the end."""
    run_dir = tmp_path / "run"
    args = [
        sys.executable,
        "-m",
        "train",
        "--backend",
        "rllib",
        "--config",
        "configs/rllib.yaml",
        "--quiet",
        "--run-dir",
        str(run_dir),
        "--set",
        "ppo.total_steps=2500",
        "--set",
        "checkpoint_every=400",
        "--set",
        "eval.every=0",
        "--set",
        "opponents.snapshot_every=300",
    ]
    for item in TINY:
        args += ["--set", item]
    proc = subprocess.Popen(
        args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.time() + 240
        from train.rllib.checkpoint import list_checkpoints, read_state

        while time.time() < deadline and not any(read_state(c)["steps"] > 0 for c in list_checkpoints(run_dir)):
            assert proc.poll() is None, "the run ended before its first checkpoint"
            time.sleep(0.5)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the private Ray's agents outlive a SIGKILLed driver
        except ProcessLookupError:
            pass
    at_kill = max(read_state(c)["steps"] for c in list_checkpoints(run_dir))
    assert 0 < at_kill < 2500
    done = subprocess.run(
        [sys.executable, "-m", "train", "--resume", str(run_dir), "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        start_new_session=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["steps"] >= 2500
    assert f"resumed {run_dir} at step {at_kill:,}" in done.stderr
    assert load_net(summary["bundle"])[1]["training"]["backend"] == "rllib"


def test_bundle_from_a_checkpoint_refuses_foreign_pickles(tmp_path):
    """Reading weights out of a checkpoint admits numpy arrays and nothing else (no code runs)."""
    import pickle

    from train.checkpoint import CheckpointError
    from train.rllib.checkpoint import MAIN_MODULE_PATH, MEMBERS, read_main_weights, read_members

    folder = tmp_path.joinpath("algorithm", *MAIN_MODULE_PATH)
    folder.mkdir(parents=True)
    (folder / "metadata.json").write_text(json.dumps({"state_file": "module_state"}))
    (folder / "module_state.pkl").write_bytes(pickle.dumps({"net.x": np.zeros(3, np.float32)}))
    assert list(read_main_weights(tmp_path)) == ["net.x"]
    (folder / "module_state.pkl").write_bytes(pickle.dumps({"net.x": BalootNet}))
    with pytest.raises(CheckpointError, match="refused to load"):
        read_main_weights(tmp_path)
    # the pool's members: tensors and plain data only
    torch.save({"snapshots": [("step_0", {"w": torch.zeros(2)})], "champions": []}, tmp_path / MEMBERS)
    assert read_members(tmp_path)["snapshots"][0][0] == "step_0"
    torch.save(
        {"snapshots": [BalootNet(NetSpec(trunk=(4,), head_hidden=2, value_hidden=(2,)))], "champions": []},
        tmp_path / MEMBERS,
    )
    with pytest.raises(CheckpointError, match="cannot be read"):
        read_members(tmp_path)


def test_the_learner_module_is_rllibs_single_agent_module():
    from ray.rllib.core import DEFAULT_MODULE_ID

    assert MAIN == DEFAULT_MODULE_ID
