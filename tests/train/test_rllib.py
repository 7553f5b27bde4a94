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
from agents.neural.network import BalootNet, NetSpec, privileged_input  # noqa: E402
from baloot_env.driver import DealSource, Table  # noqa: E402
from baloot_env.observation import OBS_SIZE, action_mask, encode  # noqa: E402
from baloot_env.rewards import Reward  # noqa: E402
from eval.stats import SequentialDecision, mean_sd  # noqa: E402
from train.config import ConfigError  # noqa: E402
from train.rllib.config import RayConfig, load_rllib_config  # noqa: E402
from train.rllib.env import AGENTS, BalootMultiAgentEnv, seat_of  # noqa: E402
from train.rllib.league import MAIN, LeagueMapping  # noqa: E402
from train.rllib.module import BalootRLModule, net_from_module_state  # noqa: E402
from train.selfplay import selfplay_stats  # noqa: E402

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
    env = BalootMultiAgentEnv({"seed": 7, "privileged": True, "heuristic": True, "episode": "match"})
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
        assert np.array_equal(o["privileged"], privileged_input([four])[0])
        assert o["action_mask"][int(o["heuristic_action"][0])] == 1  # the heuristic's choice is legal
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


# ---------------------------------------------------------------------------------- the league
def test_league_seats_partners_and_draws_by_weight():
    class Ep:
        def __init__(self, key):
            self.id_ = key

    league = LeagueMapping((0.3, 0.1, 0.5, 0.1), snapshots=2, champions=0)
    seen = {}
    for k in range(2000):
        ep = Ep(f"episode-{k}")
        mods = [league(a, ep) for a in AGENTS]
        assert mods[0] == mods[2] and mods[1] == mods[3] and (mods[0] == MAIN) != (mods[1] == MAIN)
        opp = mods[1] if mods[0] == MAIN else mods[0]
        seen[opp] = seen.get(opp, 0) + 1
    assert set(seen) == {"main_v0", "main_v1", "heuristic", "random"}  # no champion yet: it drops out
    share = (seen["main_v0"] + seen["main_v1"]) / 2000
    assert abs(share - 0.3 / 0.9) < 0.05 and abs(seen["heuristic"] / 2000 - 0.5 / 0.9) < 0.05
    assert LeagueMapping((1.0, 0, 0, 0)).draw("x")[1] == "random"  # only "self" weighted, no snapshot yet
    assert (
        selfplay_stats(
            {"episodes": 4, "reward": 2, "episodes_vs_self": 2, "wins_vs_self": 1, "hands": 4, "called": 2, "made": 1}
        )["win_rate_vs_self"]
        == 0.5
    )


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
    from train.rllib.checkpoint import list_checkpoints, read_state

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
    assert state["steps"] == summary["steps"] and state["league"]["snapshots"] == 2  # pool_size 2: slots reused
    assert state["league"]["champions"] >= 1
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
    and the new one holds the learner's weights of every module (main and the snapshots)."""
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
        for _ in range(15):
            result = t.algo.train()
            assert result["env_runners"]["num_module_steps_sampled"][MAIN] > 0  # training goes on
            restarts = result["fault_tolerance"]["num_remote_worker_restarts"]
            if restarts and t.algo.env_runner_group.num_healthy_remote_workers() == 2:
                break
        assert restarts >= 1
        new = t.algo.env_runner_group.foreach_env_runner(lambda er: os.getpid(), local_env_runner=False)
        assert pids[0] not in new and len(new) == 2
        learner = t.algo.learner_group.get_state(components="learner/rl_module")["learner"]["rl_module"]
        for mid in (MAIN, "main_v0"):
            want = np.asarray(learner[mid]["net.trunk.0.weight"])
            got = t.algo.env_runner_group.foreach_env_runner(
                lambda er, mid=mid: er.module[mid].net.trunk[0].weight.detach().numpy(), local_env_runner=False
            )
            for w in got:
                np.testing.assert_allclose(w, want, rtol=0, atol=1e-6)


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
    from train.rllib.checkpoint import read_main_weights

    folder = tmp_path.joinpath("algorithm", "learner_group", "learner", "rl_module", "main")
    folder.mkdir(parents=True)
    (folder / "metadata.json").write_text(json.dumps({"state_file": "module_state"}))
    (folder / "module_state.pkl").write_bytes(pickle.dumps({"net.x": np.zeros(3, np.float32)}))
    assert list(read_main_weights(tmp_path)) == ["net.x"]
    (folder / "module_state.pkl").write_bytes(pickle.dumps({"net.x": BalootNet}))
    with pytest.raises(CheckpointError, match="refused to load"):
        read_main_weights(tmp_path)
