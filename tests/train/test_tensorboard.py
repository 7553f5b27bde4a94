"""TensorBoard logs of a training run: every figure under one tag, development and test
evaluations under their own tags at the steps they were made, the hyperparameters recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from test_train_faults import _decide_on_any_difference, _interval_around_any_difference

import eval.promote

TB_CFG = {
    "ppo": {"processes": 1, "n_envs": 4, "n_steps": 32, "batch_size": 64, "n_epochs": 1, "total_steps": 256},
    "net": {"trunk": [32], "head_hidden": 16, "value_hidden": [16]},
    "log_every": 128,
    "checkpoint_every": 256,
    "eval": {
        "every": 128,
        "deals": 4,
        "deal_set": "small",
        "final_deals": 2,
        "final_deal_set": "test960",
        "workers": 1,
        "promote": True,
        "opponents": ["heuristic", "random"],
    },
    "pretrain": {"positions": 200, "epochs": 1},
    "expert": {"rounds": 0},
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from train.run import load_run_config, run_training

    folder = tmp_path_factory.mktemp("tb")
    cfg = dict(TB_CFG, run_dir=str(folder / "run"))
    (folder / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    with pytest.MonkeyPatch.context() as mp:  # promote on any difference: a champion to be evaluated against
        mp.setattr(eval.promote, "sequential_decision", _decide_on_any_difference)
        mp.setattr(eval.promote, "ci95", _interval_around_any_difference)
        summary = run_training(load_run_config(str(folder / "cfg.yaml"), [], None), quiet=True)
    events = EventAccumulator(str(folder / "run" / "tb"))
    events.Reload()
    scalars = {t: [(e.step, e.value) for e in events.Scalars(t)] for t in events.Tags()["scalars"]}
    return events, scalars, summary, folder / "run"


def test_no_figure_is_written_under_two_names(run):
    _, scalars, _, _ = run
    assert not [t for t in scalars if t.startswith("train/")]  # SB3's figures, once, in CleanRL's sections
    for key in (
        "policy_gradient_loss",
        "value_loss",
        "entropy_loss",
        "approx_kl",
        "clip_fraction",
        "explained_variance",
    ):
        assert f"losses/{key}" in scalars
    assert "charts/learning_rate" in scalars
    # figures that change: a single point or a constant (a rate of 0) can agree with another by chance
    tags = sorted(t for t in scalars if len({v for _, v in scalars[t]}) >= 2)
    assert len(tags) > 10
    for i, a in enumerate(tags):
        for b in tags[i + 1 :]:
            assert scalars[a] != scalars[b], f"{a} and {b} hold the same figures"
    for tag, points in scalars.items():
        steps = [s for s, _ in points]
        assert len(steps) == len(set(steps)), f"{tag} written twice at one step: {steps}"


def test_development_and_test_evaluations_have_their_own_tags_at_their_steps(run):
    _, scalars, summary, run_dir = run
    assert {"eval/mean_vs_heuristic", "eval/mean_vs_champion", "eval/promoted"}.isdisjoint(
        scalars
    )  # the old shared tags
    assert not [t for t in scalars if t.startswith("eval/") and not t.startswith(("eval/dev/", "eval/test/"))]
    # the periodic evaluations (every 128 decisions), at the steps they were made: the promotion
    # test against the champion (heuristic at first), a duplicate against heuristic once it is not
    assert [s for s, _ in scalars["eval/dev/mean_vs_heuristic"]] == [128, 256]
    assert [s for s, _ in scalars["eval/dev/promoted"]] == [128, 256]
    promotions = [json.loads(line) for line in (run_dir / "promotions.jsonl").read_text().splitlines()]
    assert promotions[0]["promoted"] and promotions[1]["champion"] != "heuristic"
    for p in promotions:
        step = int(Path(p["candidate"]).name.split("_")[1])
        tag = "heuristic" if p["champion"] == "heuristic" else "champion"
        assert (step, pytest.approx(p["mean"])) in scalars[f"eval/dev/mean_vs_{tag}"]
    assert [s for s, _ in scalars["eval/dev/mean_vs_champion"]] == [256]
    # the final evaluation on the test set, once, at the last step
    final = {Path(ev["opponent"]).name: ev for ev in summary["final_evaluation"]}
    assert final["heuristic"]["deal_set"] == "test960"
    assert scalars["eval/test/mean_vs_heuristic"] == [(256, pytest.approx(final["heuristic"]["mean"]))]
    assert all(len(scalars[t]) == 1 for t in scalars if t.startswith("eval/test/"))
    # every opponent of eval.opponents at every evaluation, under its own name
    assert [s for s, _ in scalars["eval/dev/mean_vs_random"]] == [128, 256]
    assert scalars["eval/test/mean_vs_random"] == [(256, pytest.approx(final["random"]["mean"]))]
    assert final["random"]["deal_set"] == "test960"


def test_hyperparameters_are_recorded(run):
    from tensorboard.plugins.hparams import plugin_data_pb2

    events, scalars, _, run_dir = run
    content = events.PluginTagToContent("hparams")
    start = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/session_start_info"]).session_start_info
    hparams = {k: v.ListFields()[0][1] for k, v in start.hparams.items()}
    saved = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert hparams["ppo.learning_rate"] == pytest.approx(saved["ppo"]["learning_rate"])
    assert hparams["ppo.n_envs"] == 4 and hparams["seed"] == saved["seed"] and hparams["env.reward"] == "diff"
    assert hparams["eval.final_deal_set"] == "test960" and "env.rules.projects" in hparams
    experiment = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/experiment"]).experiment
    metrics = {m.name.tag for m in experiment.metric_infos}
    assert metrics and metrics <= set(scalars)  # the metrics name figures the run writes
