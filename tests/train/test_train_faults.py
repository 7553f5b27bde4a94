"""Trustworthy runs: a run killed at any point resumes to the very weights of a run
that was never killed; one run directory, one live run; checkpoints hold only plain data;
killed atomic writes leave nothing behind."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import torch
import yaml

import eval.promote
import train.checkpoint
import train.evaluation
import train.trainer
from eval.stats import SequentialDecision, mean_sd
from train.checkpoint import CheckpointError, RunDirBusyError, latest_checkpoint, load_checkpoint
from train.config import EnvConfig, OpponentConfig, config_from_dict
from train.opponents import OpponentPool
from train.ppo import BalootPPO
from train.selfplay import SelfPlayVecEnv

# Evaluations every 128 decisions, checkpoints every 256: a promotion is often followed by a
# stretch of training before the next checkpoint, a window in which a kill once was fatal.
# Seed, learning rate, entropy and the plain critic are pinned (not the main job's defaults) so
# that this tiny run's promotion tests give both outcomes: promotions at 128 and 384, rejections
# at 256 and 512 (the unkilled fixture checks that the matrix exercises both).
KILL_CFG = {
    "seed": 2,
    "ppo": {
        "processes": 1,
        "n_envs": 4,
        "n_steps": 32,
        "batch_size": 64,
        "n_epochs": 1,
        "total_steps": 512,
        "learning_rate": 3e-4,
        "ent_coef": 0.01,
    },
    "net": {"trunk": [32], "head_hidden": 16, "value_hidden": [16], "privileged_critic": False},
    "opponents": {
        "self_weight": 0.25,
        "champion_weight": 0.5,
        "heuristic_weight": 0.25,
        "random_weight": 0.0,
        "snapshot_every": 128,
    },
    "log_every": 128,
    "checkpoint_every": 256,
    "eval": {
        "every": 128,
        "deals": 4,
        "deal_set": "small",
        "final_deals": 2,
        "final_deal_set": "small",
        "workers": 1,
        "promote": True,
    },
    "pretrain": {"positions": 200, "epochs": 1, "workers": 1, "augment": False},
    "expert": {"rounds": 0},
}


class SimulatedKill(BaseException):
    """Stands for SIGKILL: not an Exception, so no ``except Exception`` in the code stops it."""


def _decide_on_any_difference(d, look, looks, *args, **kwargs):
    """Test double of the promotion test: a candidate that scores differently from the champion
    is promoted at once; one that plays exactly like it (d = 0, e.g. the champion itself) is not.
    Tiny networks are rarely *shown* better on a few deals, and the state bugs need promotions."""
    m, _ = mean_sd(d)
    return SequentialDecision("promote" if m != 0 else "reject", look, len(d), 9.0 if m != 0 else 0.0, 1.0)


def _interval_around_any_difference(d):
    m, _ = mean_sd(d)
    return (abs(m), abs(m))


@pytest.fixture
def promote_on_difference(monkeypatch):
    monkeypatch.setattr(eval.promote, "sequential_decision", _decide_on_any_difference)
    monkeypatch.setattr(eval.promote, "ci95", _interval_around_any_difference)


def _write_config(folder: pathlib.Path, cfg: dict) -> str:
    d = yaml.safe_load(yaml.safe_dump(cfg))
    d["run_dir"] = str(folder / "run")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cfg.yaml").write_text(yaml.safe_dump(d))
    return str(folder / "cfg.yaml")


def _outcome(run_dir: pathlib.Path) -> dict:
    """What a finished run leaves: final weights, champion, promotion decisions, the pool."""
    from agents.neural.bundle import load_net

    net, _ = load_net(run_dir / "bundles" / "final")
    history = [json.loads(line) for line in (run_dir / "promotions.jsonl").read_text().splitlines()]
    champion = json.loads((run_dir / "champion.json").read_text())["champion"]
    return {
        "weights": net.state_dict(),
        "champion": champion,
        "decisions": [(pathlib.Path(e["candidate"]).name, e["promoted"], e["mean"]) for e in history],
        "champions": sorted(p.name for p in (run_dir / "champions").iterdir()),
        "step": load_checkpoint(latest_checkpoint(run_dir))["step"],
    }


def _same(a: dict, b: dict) -> None:
    assert a["weights"].keys() == b["weights"].keys()
    for k in a["weights"]:
        assert torch.equal(a["weights"][k], b["weights"][k]), k  # bit for bit
    for k in ("champion", "decisions", "champions", "step"):
        assert a[k] == b[k], k


@pytest.fixture(scope="module")
def unkilled(tmp_path_factory):
    from train.run import load_run_config, run_training

    folder = tmp_path_factory.mktemp("unkilled")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(eval.promote, "sequential_decision", _decide_on_any_difference)
        mp.setattr(eval.promote, "ci95", _interval_around_any_difference)
        run_training(load_run_config(_write_config(folder, KILL_CFG), [], None), quiet=True)
    out = _outcome(folder / "run")
    promoted = [p for _, p, _ in out["decisions"]]
    assert sum(promoted) >= 2 and not all(promoted), out["decisions"]  # the matrix exercises both outcomes
    return out


def _kill_on_call(target, n: int, when=lambda *a, **k: True):
    """``target`` wrapped so that its ``n``-th qualifying call is killed after it ran."""
    calls = {"n": 0}

    def wrapper(*args, **kwargs):
        out = target(*args, **kwargs)
        if when(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] == n:
                raise SimulatedKill(target.__name__)
        return out

    return wrapper


def _kill_before_call(target, n: int):
    calls = {"n": 0}

    def wrapper(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == n:
            raise SimulatedKill(target.__name__)
        return target(*args, **kwargs)

    return wrapper


def _kill_before_call_named(target, name: str, n: int):
    calls = {"n": 0}

    def wrapper(path, *args, **kwargs):
        if pathlib.Path(path).name == name:
            calls["n"] += 1
            if calls["n"] == n:
                raise SimulatedKill(f"{target.__name__}({name})")
        return target(path, *args, **kwargs)

    return wrapper


def _update_then_kill(n: int):
    """BalootPPO.train whose ``n``-th update changes the weights and dies before its hook
    (snapshot, evaluation, checkpoint)."""
    real = BalootPPO.train
    calls = {"n": 0}

    def train(self):
        calls["n"] += 1
        if calls["n"] == n:
            super(BalootPPO, self).train()
            raise SimulatedKill("update")
        real(self)

    return train


def _kill(phase: str) -> tuple[object, str, object]:
    """(object, attribute, replacement) that kills the run in ``phase``; the counts pick a point
    after a promotion and before the next checkpoint wherever the phase allows it."""
    if phase == "ppo_rollout":  # step ~160: promoted at 128, checkpoint due at 256
        return SelfPlayVecEnv, "step_wait", _kill_on_call(SelfPlayVecEnv.step_wait, 40)
    if phase == "ppo_update":
        return BalootPPO, "train", _update_then_kill(2)  # at 256: promoted at 128, checkpoint due at 256
    if phase == "periodic_evaluation":  # at 384, after its promotion test; last checkpoint at 256
        return train.evaluation, "evaluate_bundle", _kill_on_call(train.evaluation.evaluate_bundle, 3)
    if phase == "promotion_copied":  # at 384: the candidate copied to champions/, not yet tested
        return train.evaluation, "promote", _kill_before_call(train.evaluation.promote, 3)
    if phase == "promotion_pointer_moved":  # at 384: the pointer written, the history not yet
        return eval.promote, "_append_line_atomic", _kill_before_call(eval.promote._append_line_atomic, 3)
    if phase == "checkpoint_write":  # at 256: step_256.pt written, ``latest`` still names step 0
        return (
            train.checkpoint,
            "write_text_atomic",
            _kill_before_call_named(train.checkpoint.write_text_atomic, "latest", 2),
        )
    raise ValueError(phase)


PHASES = [
    "ppo_rollout",
    "ppo_update",
    "periodic_evaluation",
    "promotion_copied",
    "promotion_pointer_moved",
    "checkpoint_write",
]


@pytest.mark.parametrize("phase", PHASES)
def test_a_run_killed_in_any_phase_resumes_to_the_same_weights(
    tmp_path, monkeypatch, promote_on_difference, unkilled, phase
):
    from train.run import load_run_config, run_training

    obj, attr, replacement = _kill(phase)
    with monkeypatch.context() as mp:
        mp.setattr(obj, attr, replacement)
        with pytest.raises(SimulatedKill):
            run_training(load_run_config(_write_config(tmp_path, KILL_CFG), [], None), quiet=True)
    run_dir = tmp_path / "run"
    run_training(load_run_config(None, [], str(run_dir)), resume=True, quiet=True)
    _same(_outcome(run_dir), unkilled)


def test_a_run_killed_in_its_warm_start_is_started_again_to_the_same_weights(
    tmp_path, monkeypatch, promote_on_difference, unkilled
):
    """No checkpoint exists before PPO starts: ``--resume`` says so and names the command that
    starts the run again; the same config and seed then give the same run."""
    from train.__main__ import main
    from train.run import load_run_config, run_training

    with monkeypatch.context() as mp:
        mp.setattr(train.trainer, "pretrain", _kill_on_call(train.trainer.pretrain, 1))  # where it is called
        with pytest.raises(SimulatedKill):
            run_training(load_run_config(_write_config(tmp_path, KILL_CFG), [], None), quiet=True)
    run_dir = tmp_path / "run"
    with pytest.raises(CheckpointError, match="warm start; start it again with python -m train --config"):
        run_training(load_run_config(None, [], str(run_dir)), resume=True, quiet=True)
    assert main(["--resume", str(run_dir), "--quiet"]) == 2
    run_training(load_run_config(str(run_dir / "config.yaml"), [], None), quiet=True)
    _same(_outcome(run_dir), unkilled)


# ---------------------------------------------------------------------- one live run per run dir
HOLDER = """
import sys, yaml
from train.config import config_from_dict
from train.trainer import Trainer
t = Trainer(config_from_dict(yaml.safe_load(open(sys.argv[1]))), quiet=True)
t.run()  # writes the first checkpoint, so that --resume gets past its input checks
print("holding", flush=True)
sys.stdin.read()  # until the test closes stdin; the process then exits without close()
"""


def test_a_second_run_in_a_live_run_dir_is_refused_and_touches_nothing(tmp_path, capsys):
    from train.__main__ import main
    from train.trainer import Trainer

    small = {**KILL_CFG, "pretrain": {"positions": 0}, "ppo": {**KILL_CFG["ppo"], "total_steps": 0}}
    cfg = _write_config(tmp_path, small)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, cfg], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        run_dir = tmp_path / "run"
        before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
        for argv in (["--config", cfg, "--quiet"], ["--resume", str(run_dir), "--quiet"]):
            capsys.readouterr()
            assert main(argv) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and f"pid {holder.pid} " in err and "in use" in err, err
        assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # nothing moved aside
        assert not [p for p in tmp_path.iterdir() if ".old-" in p.name]
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    assert holder.returncode == 0
    # the holder is gone (without releasing: the OS did): the run dir is free again
    with Trainer(config_from_dict(yaml.safe_load(open(cfg))), resume=True, quiet=True) as t:
        with pytest.raises(RunDirBusyError, match=r"in use by pid \d+ \(this process\)"):
            Trainer(config_from_dict(yaml.safe_load(open(cfg))), resume=True, quiet=True).open()
        assert t.lock.held


# ---------------------------------------------------------------------- checkpoints are plain data
class _TouchOnLoad:
    """Unpickling this creates a file: what a crafted checkpoint could do with code."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (pathlib.Path.touch, (pathlib.Path(self.path),))


def test_a_checkpoint_that_would_run_code_is_refused_and_runs_nothing(tmp_path):
    from train.trainer import Trainer

    d = yaml.safe_load(yaml.safe_dump(KILL_CFG))
    d.update(run_dir=str(tmp_path / "run"), pretrain={"positions": 0}, eval={"every": 0, "promote": False})
    d["ppo"]["total_steps"] = 0
    with Trainer(config_from_dict(d), quiet=True) as t:
        t.run()
    path = latest_checkpoint(tmp_path / "run")
    data = torch.load(path, weights_only=True)  # a real checkpoint reads as plain data
    planted = tmp_path / "planted"
    data["evals"] = [_TouchOnLoad(str(planted))]
    torch.save(data, path)
    with pytest.raises(CheckpointError, match="refused, since loading it could run code"):
        load_checkpoint(path)
    with pytest.raises(CheckpointError, match="could run code"):
        Trainer(config_from_dict(d), resume=True, quiet=True).open()
    assert not planted.exists()


FORGED = [
    (lambda d: d.update(step=d["step"] + 256), "is not the step of its name"),
    (lambda d: d.update(num_timesteps=10**6), "num_timesteps 1,000,000 times 1 processes is not its step"),
    (lambda d: d.update(step=-1), "step must be a count"),
    (lambda d: d.update(n_updates=10**80), "n_updates must be a count"),
    (lambda d: d["expert"].update(rounds=5), "5 expert rounds with 0 records"),
]


@pytest.mark.parametrize("forge,match", FORGED, ids=[m for _, m in FORGED])
def test_a_checkpoint_with_forged_counters_is_refused_before_the_run_starts(forge, match, tmp_path, capsys):
    """``--resume`` reads the checkpoint among its inputs: a file edited to claim other counters is
    one line and exit 2, and nothing is added to the run folder (no new TensorBoard file)."""
    from train.__main__ import main
    from train.trainer import Trainer

    d = yaml.safe_load(yaml.safe_dump(KILL_CFG))
    d.update(run_dir=str(tmp_path / "run"), pretrain={"positions": 0}, eval={"every": 0, "promote": False})
    d["ppo"]["total_steps"] = 0
    with Trainer(config_from_dict(d), quiet=True) as t:
        t.run()
    (tmp_path / "run" / "summary.json").unlink(missing_ok=True)  # a run killed before its end: work left
    path = latest_checkpoint(tmp_path / "run")
    data = torch.load(path, weights_only=True)
    load_checkpoint(path)  # the real one passes
    forge(data)
    torch.save(data, path)
    before = sorted(str(f) for f in (tmp_path / "run").rglob("*"))
    assert main(["--resume", str(tmp_path / "run"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and match in err[0], err
    assert sorted(str(f) for f in (tmp_path / "run").rglob("*")) == before


def _pool(seed: int) -> OpponentPool:
    from agents.neural.network import NetSpec

    cfg = OpponentConfig(self_weight=0.4, champion_weight=0.2, heuristic_weight=0.2, random_weight=0.2)
    pool = OpponentPool(cfg, NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,)), seed)
    torch.manual_seed(seed)
    from agents.neural.network import BalootNet

    pool.add_snapshot("s0", BalootNet(pool.spec).state_dict())
    pool.add_champion("c0", BalootNet(pool.spec).state_dict())
    return pool


def _play(venv: SelfPlayVecEnv, rng: np.random.Generator, steps: int) -> list:
    log = []
    for _ in range(steps):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
        venv.step_async(acts)
        obs, rewards, dones, _ = venv.step_wait()
        log.append((obs.copy(), rewards.copy(), dones.copy()))
    return log


@pytest.mark.parametrize("episode", ["hand", "match"])
def test_games_in_progress_survive_a_plain_data_checkpoint_exactly(tmp_path, episode):
    """The self-play games and the pool go through torch.save / weights_only load and play on
    exactly as the originals (matches keep their score, results and dealer rotation)."""
    import io

    a = SelfPlayVecEnv(4, EnvConfig(episode=episode), _pool(1), 1)
    a.reset()
    rng = np.random.default_rng(1)
    _play(a, rng, 300)
    buf = io.BytesIO()
    torch.save({"pool": a.pool.state(), "games": a.state()}, buf)
    buf.seek(0)
    saved = torch.load(buf, weights_only=True)
    b = SelfPlayVecEnv(4, EnvConfig(episode=episode), _pool(2), 2)  # other seeds: everything comes from the save
    b.pool.load_state(saved["pool"])
    b.load_state(saved["games"])
    if episode == "match":
        assert any(g.match.results for g in b.games)  # the test covers matches with finished hands
        assert all(g.match.hand == g.hand for g in b.games)  # the core backend rebuilds both on each read
    b_obs = b.reset()  # SB3 would ask for it; a restored VecEnv keeps its games
    assert np.array_equal(b_obs, a._observe_all())
    rng_b = np.random.default_rng(7)
    rng_a = np.random.default_rng(7)
    for (oa, ra, da), (ob, rb, db) in zip(_play(a, rng_a, 400), _play(b, rng_b, 400), strict=True):
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(da, db)


# ---------------------------------------------------------------------- stale temporary files
def test_a_training_run_removes_what_killed_atomic_writes_left(tmp_path):
    from shared import killed_writer_temp

    from baloot_io.atomic import TEMP_SUFFIX
    from train.trainer import Trainer

    d = yaml.safe_load(yaml.safe_dump(KILL_CFG))
    d.update(run_dir=str(tmp_path / "run"), pretrain={"positions": 0}, eval={"every": 0, "promote": False})
    d["ppo"]["total_steps"] = 0
    with Trainer(config_from_dict(d), quiet=True) as t:
        t.run()
    run = tmp_path / "run"
    left = [run / "checkpoints" / killed_writer_temp(run / "checkpoints"), run / killed_writer_temp(run)]
    assert all(p.exists() for p in left)
    with Trainer(config_from_dict(d), resume=True, quiet=True):
        assert not [p for p in run.rglob("*") if p.name.endswith(TEMP_SUFFIX)]
    assert os.listdir(run / "checkpoints")  # the checkpoints themselves are kept


def test_a_run_started_from_a_bundle_resumes_after_the_bundle_is_gone(tmp_path):
    """init_from is read once, at the start: resuming needs only the checkpoint."""
    import shutil

    from agents.neural.bundle import save_bundle
    from agents.neural.network import BalootNet
    from train.run import load_run_config, run_training

    d = yaml.safe_load(yaml.safe_dump(KILL_CFG))
    d.update(
        pretrain={"positions": 0}, eval={"every": 0, "promote": False, "final_deals": 2, "final_deal_set": "small"}
    )
    d["ppo"]["total_steps"] = 128
    save_bundle(tmp_path / "start", BalootNet(config_from_dict(d).net.spec()), name="start")
    d["init_from"] = str(tmp_path / "start")
    run_training(load_run_config(_write_config(tmp_path, d), [], None), quiet=True)
    shutil.rmtree(tmp_path / "start")
    assert run_training(load_run_config(None, [], str(tmp_path / "run")), resume=True, quiet=True)["steps"] == 128
