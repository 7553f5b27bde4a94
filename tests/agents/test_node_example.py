"""The Node.js example: it loads the exported model, verifies it and picks legal moves.

Runs only where ``node`` is on PATH and ``onnxruntime-node`` is installed in
``examples/node/node_modules`` or can be installed there with ``npm ci`` (set
``BALOOT_NO_NPM=1`` to forbid the install); otherwise it is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

pytest.importorskip("onnx", reason="the export needs the onnx package")

from agents.neural.bundle import load_policy, save_bundle  # noqa: E402
from agents.neural.export import export_onnx, manifest_path  # noqa: E402
from agents.neural.network import BalootNet, NetSpec  # noqa: E402
from agents.neural.positions import collect_positions  # noqa: E402
from agents.rule_based.heuristic import HeuristicAgent  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "node"
pytestmark = pytest.mark.slow  # may install onnxruntime-node (about 10 s)


def _ensure_runtime() -> None:
    if shutil.which("node") is None:
        pytest.skip("Node.js is not on PATH")
    if (EXAMPLE / "node_modules" / "onnxruntime-node").is_dir():
        return
    if os.environ.get("BALOOT_NO_NPM") or shutil.which("npm") is None:
        pytest.skip("onnxruntime-node is not installed in examples/node (run `npm ci` there)")
    try:
        res = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=EXAMPLE, capture_output=True, text=True, timeout=300
        )
    except subprocess.TimeoutExpired:
        pytest.skip("`npm ci` in examples/node took over 300 s (registry unreachable?)")
    if res.returncode != 0 or not (EXAMPLE / "node_modules" / "onnxruntime-node").is_dir():
        pytest.skip(f"`npm ci` in examples/node failed (registry unreachable?): {res.stderr.strip()[-300:]}")


def _pick(model: Path, positions: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["node", str(EXAMPLE / "pick.js"), str(model), str(positions)], capture_output=True, text=True, timeout=120
    )


def test_node_example_picks_the_same_legal_moves_as_python(tmp_path):
    _ensure_runtime()
    torch.manual_seed(4)
    bundle = save_bundle(
        tmp_path / "bundle", BalootNet(NetSpec(trunk=(32,), head_hidden=16, value_hidden=(16,))), name="node-test"
    )
    model = tmp_path / "model.onnx"
    export_onnx(bundle, model)
    pos = collect_positions(120, [HeuristicAgent(0)], seed=9, epsilon=0.2)
    data = tmp_path / "positions.json"
    data.write_text(json.dumps({"observations": pos.observations.tolist(), "masks": pos.masks.tolist()}))
    res = _pick(model, data)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert "loaded policy node-test" in res.stderr
    assert out["policy"] == "node-test" and len(out["actions"]) == 120
    assert all(pos.masks[i, a] for i, a in enumerate(out["actions"]))
    assert out["actions"] == load_policy(bundle).act_arrays(pos.observations, pos.masks)

    side = json.loads(manifest_path(model).read_text())
    side["obs_version"] = 99
    manifest_path(model).write_text(json.dumps(side))
    res = _pick(model, data)
    assert res.returncode == 1 and "obs_version 99" in res.stderr and not res.stdout

    raw = bytearray(model.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    model.write_bytes(bytes(raw))
    res = _pick(model, data)
    assert res.returncode == 1 and "corrupt or replaced" in res.stderr


@pytest.mark.parametrize("policy", ["policies/champion", "policies/student"])
def test_the_documented_commands_make_the_positions_and_pick_the_shipped_moves(policy, tmp_path, capsys):
    """README and examples/node/README.md: export with --positions, then pick.js on that file;
    the student's input design (agents.neural.card_inputs) runs in Node as the champion's does."""
    from eval.__main__ import main

    _ensure_runtime()
    model, positions = tmp_path / "policy.onnx", tmp_path / "positions.json"
    assert main(["export", "--policy", policy, "--out", str(model), "--positions", str(positions),
                 "--check", "0"]) == 0  # fmt: skip
    assert f"positions: {positions}" in capsys.readouterr().out
    data = json.loads(positions.read_text())
    assert len(data["observations"]) == len(data["masks"]) == 16 and len(data["observations"][0]) == 697
    res = _pick(model, positions)
    assert res.returncode == 0, res.stderr
    obs = torch.tensor(data["observations"]).numpy()
    masks = torch.tensor(data["masks"], dtype=torch.int8).numpy()
    assert json.loads(res.stdout)["actions"] == load_policy(policy).act_arrays(obs, masks)


def test_positions_may_not_overwrite_the_model(tmp_path, capsys):
    from eval.__main__ import main

    model = tmp_path / "m.onnx"
    assert main(["export", "--policy", "policies/champion", "--out", str(model), "--positions", str(model)]) == 2
    assert "is the model or its manifest" in capsys.readouterr().err and not model.exists()
