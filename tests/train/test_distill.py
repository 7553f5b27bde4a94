"""Distillation: a tiny run makes a smaller bundle that loads and plays legal moves."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
import torch

from agents.neural.bundle import load_net, load_policy, save_bundle
from agents.neural.network import BalootNet, NetSpec
from agents.neural.positions import collect_positions
from agents.rule_based.heuristic import HeuristicAgent
from train.distill import DistillConfig, distill, main, teacher_targets

TEACHER = NetSpec(trunk=(64, 64), head_hidden=32, value_hidden=(32,))


@pytest.fixture(scope="module")
def teacher(tmp_path_factory):
    torch.manual_seed(7)
    return save_bundle(tmp_path_factory.mktemp("teacher") / "bundle", BalootNet(TEACHER), name="tiny-teacher")


def tiny(teacher, out, **kw) -> DistillConfig:
    settings = dict(
        teacher=str(teacher),
        out=str(out),
        positions=600,
        rounds=2,
        epochs=2,
        batch_size=128,
        trunk=(8,),
        head_hidden=8,
        value_hidden=(8,),
        eval_deal_set="small",
        eval_deals=4,
        onnx_timing=0,
    )
    settings.update(kw)
    return DistillConfig(**settings)


def test_tiny_distillation_makes_a_smaller_bundle_that_plays_legal_moves(teacher, tmp_path, monkeypatch):
    timing = 60 if importlib.util.find_spec("onnxruntime") else 0
    monkeypatch.chdir(teacher.parent.parent)  # the teacher named by a relative path, as written
    summary = distill(tiny(f"{teacher.parent.name}/bundle", tmp_path / "d", onnx_timing=timing), quiet=True)
    student, manifest = load_net(summary["bundle"])
    n_student = sum(p.numel() for p in student.parameters())
    n_teacher = sum(p.numel() for p in load_net(teacher)[0].parameters())
    assert n_student == summary["student_parameters"] and n_student < n_teacher / 5
    assert manifest["teacher"]["name"] == "tiny-teacher" and manifest["teacher"]["parameters"] == n_teacher
    assert manifest["training"]["distillation"]["positions"] == 600
    assert [e["label"] for e in manifest["evaluations"]] == ["teacher", "heuristic"]
    assert [e["opponent"] for e in manifest["evaluations"]] == [f"{teacher.parent.name}/bundle", "heuristic"]
    assert all(e["deals"] == 4 and len(e["ci95"]) == 2 for e in manifest["evaluations"])
    pos = collect_positions(200, [HeuristicAgent(1)], seed=4, epsilon=0.3)
    for deterministic in (True, False):
        acts = load_policy(summary["bundle"], seed=2, deterministic=deterministic).act_arrays(
            pos.observations, pos.masks
        )
        assert all(pos.masks[i, a] for i, a in enumerate(acts))
    saved = json.loads((tmp_path / "d" / "summary.json").read_text())
    assert saved["positions"] == 600 and saved["teacher_vs_heuristic"]["deals"] == 4
    if timing:
        assert set(saved["onnx_ms_per_decision"]) == {"student", "teacher"}
        assert saved["onnx_ms_per_decision"]["student"]["decisions"] == 3 * timing


def test_distillation_is_deterministic_for_a_seed(teacher, tmp_path):
    a = distill(tiny(teacher, tmp_path / "a", eval_deals=0), quiet=True)
    b = distill(tiny(teacher, tmp_path / "b", eval_deals=0), quiet=True)
    assert load_net(a["bundle"])[1]["weights_sha256"] == load_net(b["bundle"])[1]["weights_sha256"]
    c = distill(tiny(teacher, tmp_path / "c", eval_deals=0, seed=1), quiet=True)
    assert load_net(c["bundle"])[1]["weights_sha256"] != load_net(a["bundle"])[1]["weights_sha256"]


def test_soft_targets_are_zero_on_illegal_actions_and_sum_to_one(teacher):
    net, _ = load_net(teacher)
    pos = collect_positions(100, [HeuristicAgent(0)], seed=1)
    probs, values = teacher_targets(net, pos.observations, pos.masks, temperature=2.0)
    assert np.allclose(probs.sum(axis=1), 1, atol=1e-5) and (probs[pos.masks == 0] == 0).all()
    assert values.shape == (100,)


def test_command_line_prints_a_summary_and_refuses_bad_input(teacher, tmp_path, capsys):
    args = [
        "--teacher",
        str(teacher),
        "--out",
        str(tmp_path / "cli"),
        "--positions",
        "400",
        "--epochs",
        "1",
        "--trunk",
        "8",
        "--head-hidden",
        "8",
        "--value-hidden",
        "8",
        "--eval-deals",
        "0",
        "--onnx-timing",
        "0",
        "--quiet",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "distillation finished" in out and "of the teacher" in out and "held-out agreement" in out
    assert main(["--teacher", str(tmp_path / "none"), "--out", str(tmp_path / "x")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(args + ["--positions", "10"]) == 2
    assert "positions must be >= 200" in capsys.readouterr().err


def test_the_committed_student_config_makes_a_suit_reading_student_of_a_tenth(tmp_path, capsys):
    """configs/student.yaml, run small (its flags after the file win): the champion taught, cards
    read by suit, at most a tenth of the champion's parameters; a bad design is one line, exit 2."""
    out = tmp_path / "student"
    small = ["--positions", "400", "--rounds", "1", "--epochs", "1", "--eval-deals", "0", "--onnx-timing", "0"]
    assert main(["--config", "configs/student.yaml", "--out", str(out), *small, "--quiet"]) == 0
    student, manifest = load_net(out / "bundle")
    champion, champion_manifest = load_net("policies/champion")
    assert (
        student.spec.cards == "suits" and manifest["teacher"]["weights_sha256"] == champion_manifest["weights_sha256"]
    )
    n = sum(p.numel() for p in student.parameters())
    assert n <= sum(p.numel() for p in champion.parameters()) / 10
    capsys.readouterr()
    assert main(["--config", "configs/student.yaml", "--out", str(tmp_path / "x"), "--cards", "ranks"]) == 2
    assert "cards must be one of flat, cards, suits" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_the_shipped_student_is_a_tenth_of_its_champion_and_within_half_a_point_on_dev960():
    """policies/student's manifest (issue 50): the champion it was distilled from (name, weights,
    parameters) and its duplicate figures against that champion, the bar on dev960."""
    student, manifest = load_net("policies/student")
    teacher = manifest["teacher"]
    assert sum(p.numel() for p in student.parameters()) <= teacher["parameters"] / 10
    assert student.spec.cards == "suits" and len(teacher["weights_sha256"]) == 64
    vs_teacher = [e for e in manifest["evaluations"] if e.get("label") == "teacher" and e["deal_set"] == "dev960"]
    assert vs_teacher and vs_teacher[-1]["deals"] == 960 and vs_teacher[-1]["mean"] >= -0.5
