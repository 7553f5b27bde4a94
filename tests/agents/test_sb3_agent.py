"""``sb3:PATH``: a Stable-Baselines3 model trained on our envs plays in the evaluator (issue 47).

The adapter (``agents.neural.sb3``) reads the zip without SB3 and without unpickling; its actions
are checked against SB3's own ``predict`` (``deterministic=True`` with the action masks) on
models trained on the vector env (``Box`` observations, a ReLU MLP) and on the Gymnasium env
(``Dict`` observations, SB3's default Tanh MLP), at every decision of seeded games.
"""

from __future__ import annotations

import base64
import json
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the SB3 adapter's tests train with sb3-contrib (the train extra)")

import gymnasium  # noqa: E402
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

import baloot_env.single  # noqa: E402,F401  (registers baloot/Baloot-v0)
from agents import HeuristicAgent, PlayerView  # noqa: E402
from agents.neural.sb3 import Sb3Agent, Sb3Error  # noqa: E402
from agents.registry import AgentSpecError, make_agent, resolve_spec  # noqa: E402
from baloot_env import HandState, random_deal  # noqa: E402
from baloot_env.vector import BalootVecEnv  # noqa: E402
from eval.deals import load_named  # noqa: E402
from eval.runner import run_duplicate  # noqa: E402


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Two tiny models, trained a few hundred decisions: one per env and observation layout."""
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("sb3")
    venv = BalootVecEnv(4, learner="team", opponents="random", seed=0)
    flat = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=32,
        batch_size=64,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [32, 16], "activation_fn": torch.nn.ReLU},
    )
    flat.learn(256)
    flat.save(root / "flat.zip")
    env = gymnasium.make("baloot/Baloot-v0", opponents="random")
    multi = MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu")
    multi.learn(128)
    multi.save(root / "dict.zip")
    return {"flat": (flat, str(root / "flat.zip")), "dict": (multi, str(root / "dict.zip")), "root": root}


def _views(hands: int, seed: int) -> list[PlayerView]:
    """Every decision of ``hands`` seeded hands of ``heuristic`` in every seat (calls and cards)."""
    rng = np.random.default_rng(seed)
    agents = [HeuristicAgent(s) for s in range(4)]
    out = []
    for _ in range(hands):
        state = HandState(random_deal(rng))
        while state.result is None:
            view = PlayerView.from_state(state, state.to_act)
            out.append(view)
            state.apply(agents[state.to_act].act(view))
    return out


@pytest.mark.parametrize("layout", ["flat", "dict"])
def test_the_adapter_plays_as_sb3_predicts(models, layout):
    model, path = models[layout]
    agent = make_agent(f"sb3:{path}", 0)
    assert isinstance(agent, Sb3Agent) and agent.layout == layout
    views = _views(6, seed=3)
    mine = agent.act_batch(views)
    for view, action in zip(views, mine, strict=True):
        obs, mask = view.observation(), view.action_mask()
        given = obs if layout == "flat" else {"observation": obs, "action_mask": mask}
        want, _ = model.predict(given, action_masks=mask.astype(bool), deterministic=True)
        assert action == int(want)
        assert view.legal_mask >> action & 1
    assert len({*mine}) > 3  # the checked decisions are not all one action
    assert [agent.act(v) for v in views[:20]] == mine[:20]


def test_the_evaluator_scores_an_sb3_model(models, tmp_path):
    """``sb3:PATH`` in ``run_duplicate`` (in this process and in two workers) plays as the agent
    object; ``python -m eval --a sb3:PATH`` writes its report."""
    spec, deals = f"sb3:{models['dict'][1]}", load_named("dev960").head(4)
    here = run_duplicate(spec, "random", deals, seed=1, workers=1, matches=False)
    pooled = run_duplicate(spec, "random", deals, seed=1, workers=2, matches=False)
    by_object = run_duplicate(Sb3Agent(models["dict"][1]), "random", deals, seed=1, matches=False)
    assert here.records == pooled.records == by_object.records
    out = tmp_path / "report.json"
    cmd = [
        sys.executable,
        "-m",
        "eval",
        "--a",
        spec,
        "--b",
        "random",
        "--deals",
        "4",
        "--no-matches",
        "--json",
        str(out),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["a"] == spec and report["deals"] == 4 and np.isfinite(report["mean"])


def test_a_zip_without_the_prefix_is_told_to_use_it(models):
    with pytest.raises(AgentSpecError, match=r"sb3:"):
        resolve_spec(models["flat"][1])


def test_a_model_of_another_env_or_no_model_is_one_clear_error(models, tmp_path):
    import stable_baselines3

    other = stable_baselines3.PPO("MlpPolicy", gymnasium.make("CartPole-v1"), n_steps=32, batch_size=32, device="cpu")
    other.save(tmp_path / "cartpole.zip")
    with pytest.raises(AgentSpecError, match="not trained on our actions"):
        resolve_spec(f"sb3:{tmp_path / 'cartpole.zip'}")
    (tmp_path / "text.zip").write_text("not a zip")
    with pytest.raises(AgentSpecError, match="cannot be read"):
        resolve_spec(f"sb3:{tmp_path / 'text.zip'}")
    with zipfile.ZipFile(tmp_path / "empty.zip", "w") as z:
        z.writestr("other", "x")
    with pytest.raises(AgentSpecError, match="not a model saved by SB3"):
        resolve_spec(f"sb3:{tmp_path / 'empty.zip'}")
    with pytest.raises(AgentSpecError, match="does not exist"):
        resolve_spec(f"sb3:{tmp_path / 'missing.zip'}")


class _Plant:
    """Unpickling this writes a file: the proof that a loader ran code from the model."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_reading_a_model_runs_no_code_from_it(models, tmp_path):
    """Every ``:serialized:`` entry of ``data`` replaced by a pickle that writes a file when
    unpickled: the model still plays, and the file is never written."""
    planted = tmp_path / "planted"
    bomb = base64.b64encode(pickle.dumps(_Plant(str(planted)))).decode()
    with zipfile.ZipFile(models["flat"][1]) as z:
        files = {n: z.read(n) for n in z.namelist()}
    data = json.loads(files["data"])
    for entry in data.values():
        if isinstance(entry, dict) and ":serialized:" in entry:
            entry[":serialized:"] = bomb
    files["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(tmp_path / "bomb.zip", "w") as z:
        for name, raw in files.items():
            z.writestr(name, raw)
    agent = Sb3Agent(str(tmp_path / "bomb.zip"))
    assert agent.act_batch(_views(1, seed=4)) == Sb3Agent(models["flat"][1]).act_batch(_views(1, seed=4))
    assert not planted.exists()
    with pytest.raises(Sb3Error):
        bad = json.loads(files["data"])
        bad["policy_kwargs"]["activation_fn"] = "<class 'os.system'>"
        files["data"] = json.dumps(bad).encode()
        with zipfile.ZipFile(tmp_path / "act.zip", "w") as z:
            for name, raw in files.items():
                z.writestr(name, raw)
        Sb3Agent(str(tmp_path / "act.zip"))


def test_an_sb3_model_travels_to_ray_workers_as_bytes(models, tmp_path):
    """``--ray``: the spec is packed with the zip's bytes and rebuilt elsewhere as ``sb3:PATH``."""
    from eval.ray_runner import pack_spec, unpack_spec

    packed = pack_spec(f"sb3:{models['flat'][1]}")
    where = unpack_spec(packed, tmp_path / "elsewhere")
    assert where.startswith(f"sb3:{tmp_path / 'elsewhere'}")
    views = _views(1, seed=5)
    assert make_agent(where).act_batch(views) == Sb3Agent(models["flat"][1]).act_batch(views)
