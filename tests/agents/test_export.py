"""ONNX export: onnxruntime and torch agree on real positions; the manifest goes beside."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("onnx", reason="ONNX export needs the onnx package (pip install onnx onnxruntime)")
ort = pytest.importorskip("onnxruntime", reason="the parity check needs onnxruntime (pip install onnxruntime)")

from agents.neural.bundle import WEIGHTS, BundleError, load_net, save_bundle  # noqa: E402
from agents.neural.export import Parity, check_parity, export_onnx, manifest_path, time_onnx  # noqa: E402
from agents.neural.network import MASKED_LOGIT, BalootNet, NetSpec  # noqa: E402
from agents.neural.positions import collect_positions  # noqa: E402
from agents.random_agent import RandomAgent  # noqa: E402
from agents.rule_based.heuristic import HeuristicAgent  # noqa: E402


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A randomly initialised default-size network (the champion's architecture), exported."""
    tmp = tmp_path_factory.mktemp("export")
    torch.manual_seed(1)
    bundle = save_bundle(tmp / "bundle", BalootNet(NetSpec()), name="random-default")
    onnx_path = tmp / "model.onnx"
    meta = export_onnx(bundle, onnx_path)
    return bundle, onnx_path, meta


@pytest.fixture(scope="module")
def positions():
    """1,200 real positions: bidding, doubling and play, from heuristic and random play."""
    return collect_positions(1200, [HeuristicAgent(0), RandomAgent(0)], seed=11, epsilon=0.1)


def test_positions_cover_every_phase(positions):
    assert len(positions) == 1200
    assert {"bidding", "doubling", "play"} <= set(positions.phases.tolist())


def test_parity_on_at_least_1000_real_observations(exported, positions):
    bundle, onnx_path, _ = exported
    net, _ = load_net(bundle)
    par = check_parity(onnx_path, net, positions.observations, positions.masks)
    assert par.positions >= 1000
    assert par.argmax_agree == par.positions, par
    assert par.max_logit_diff < 1e-4, par
    assert par.masked_equal and par.max_value_diff < 1e-4, par
    assert par.ok


def test_logit_tolerance_is_relative_to_the_largest_logit():
    def parity(diff: float, scale: float) -> Parity:
        return Parity(10, 10, diff, 0.0, True, scale)

    # one float32 ulp at 2,700 is 2.4e-4: past 1e-4 absolute, inside 1e-6 relative
    assert parity(2.4e-4, 2700.0).ok and not parity(2.4e-4, 1.0).ok
    assert parity(9e-5, 0.5).ok and not parity(3e-3, 2700.0).ok
    assert parity(2.6e-3, 2700.0).ok
    assert not Parity(10, 9, 0.0, 0.0, True, 1.0).ok and not Parity(10, 10, 0.0, 0.0, False, 1.0).ok


def test_parity_holds_for_the_shipped_champion(tmp_path, positions):
    """The champion's logits run into the thousands (sharp choices): its export must still pass."""
    bundle = Path(__file__).resolve().parents[2] / "policies" / "champion"
    onnx_path = tmp_path / "champion.onnx"
    export_onnx(bundle, onnx_path)
    par = check_parity(onnx_path, load_net(bundle)[0], positions.observations, positions.masks)
    assert par.logit_scale > 100, par
    assert par.ok, par


def test_onnx_model_signature_dynamic_batch_and_opset(exported, positions):
    import onnx

    _, onnx_path, _ = exported
    model = onnx.load(str(onnx_path))
    assert max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx")) >= 17
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    ins = {i.name: i for i in sess.get_inputs()}
    assert list(ins) == ["observation", "mask"] and [o.name for o in sess.get_outputs()] == ["logits", "value"]
    assert ins["observation"].type == "tensor(float)" and ins["mask"].type == "tensor(int8)"
    assert isinstance(ins["observation"].shape[0], str)  # a named, dynamic batch axis
    for n in (1, 7, 300):
        logits, value = sess.run(None, {"observation": positions.observations[:n], "mask": positions.masks[:n]})
        assert logits.shape == (n, 42) and value.shape == (n,)
        assert (logits[positions.masks[:n] == 0] == MASKED_LOGIT).all()
        assert all(positions.masks[i, a] for i, a in enumerate(logits.argmax(axis=1)))


def test_manifest_beside_the_model_names_versions_inputs_and_checksum(exported):
    import hashlib

    bundle, onnx_path, meta = exported
    side = json.loads(manifest_path(onnx_path).read_text())
    assert manifest_path(onnx_path).name == "model.manifest.json"
    assert side == json.loads(json.dumps(meta))
    assert side["obs_version"] == 1 and side["action_version"] == 1 and side["weights_sha256"]
    assert side["onnx"]["sha256"] == hashlib.sha256(onnx_path.read_bytes()).hexdigest()
    assert [i["name"] for i in side["onnx"]["inputs"]] == ["observation", "mask"]
    assert side["onnx"]["inputs"][0]["shape"] == ["batch", 697] and side["onnx"]["opset"] >= 17


def test_export_refuses_a_corrupt_bundle_and_low_opsets(exported, tmp_path):
    import shutil

    bundle, _, _ = exported
    bad = tmp_path / "bad"
    shutil.copytree(bundle, bad)
    data = bytearray((bad / WEIGHTS).read_bytes())
    data[-3] ^= 0x04
    (bad / WEIGHTS).write_bytes(bytes(data))
    with pytest.raises(BundleError, match="corrupt"):
        export_onnx(bad, tmp_path / "x.onnx")
    assert not (tmp_path / "x.onnx").exists()
    with pytest.raises(ValueError, match="opset must be 17"):
        export_onnx(bundle, tmp_path / "y.onnx", opset=13)


def test_timing_and_the_command_line(exported, tmp_path, capsys):
    from eval.__main__ import main

    bundle, onnx_path, _ = exported
    pos = collect_positions(60, [HeuristicAgent(0)], seed=2)
    t = time_onnx(onnx_path, pos.observations, pos.masks)
    assert t["decisions"] == 60 and 0 < t["median_ms"] < 100
    out = tmp_path / "cli" / "m.onnx"
    assert main(["export", "--policy", str(bundle), "--out", str(out), "--check", "100", "--time", "50"]) == 0
    text = capsys.readouterr().out
    assert "parity on 100 positions: argmax agrees on 100" in text and "OK" in text and "ms per decision" in text
    assert out.is_file() and manifest_path(out).is_file()
    assert main(["export", "--policy", str(tmp_path / "missing"), "--out", str(out)]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_parity_detects_a_different_network(exported, positions):
    _, onnx_path, _ = exported
    torch.manual_seed(99)
    other = BalootNet(NetSpec()).eval()
    par = check_parity(onnx_path, other, positions.observations[:200], positions.masks[:200])
    assert not par.ok and par.max_logit_diff > 1e-3
    assert np.isfinite(par.max_logit_diff)
