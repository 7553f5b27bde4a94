"""Recording duplicate reports in a bundle's manifest, with the role of each deal set."""

from __future__ import annotations

import json

import pytest
from shared import make_bundle

from agents.neural.bundle import load_net, read_manifest
from eval.__main__ import main as eval_main
from eval.record import main as record_main


def _report(tmp_path, a: str, deal_set: str, name: str) -> str:
    out = tmp_path / f"{name}.json"
    assert (
        eval_main(
            [
                "--a",
                a,
                "--b",
                "random",
                "--deal-set",
                deal_set,
                "--deals",
                "4",
                "--no-matches",
                "--json",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    return str(out)


def test_reports_become_entries_with_their_deal_set_role(tmp_path):
    bundle = make_bundle(tmp_path / "b")
    dev = _report(tmp_path, str(bundle), "dev960", "dev")
    test = _report(tmp_path, str(bundle), "test960", "test")
    assert record_main(["--bundle", str(bundle), dev, test]) == 0
    entries = read_manifest(bundle)["evaluations"]
    by_set = {e["deal_set"]: e for e in entries}
    assert by_set["dev960"]["role"] == "development" and by_set["test960"]["role"] == "test"
    for name, path in (("dev960", dev), ("test960", test)):
        rep = json.loads(open(path).read())
        assert by_set[name]["mean"] == rep["mean"] and by_set[name]["ci95"] == rep["ci95"]
    load_net(bundle)  # still verifies: the manifest checksum was renewed
    # recording the same report again replaces its entry instead of adding a second one
    assert record_main(["--bundle", str(bundle), test]) == 0
    assert len(read_manifest(bundle)["evaluations"]) == len(entries)


def test_a_report_about_another_policy_is_refused_and_nothing_is_written(tmp_path, capsys):
    bundle = make_bundle(tmp_path / "b")
    other = _report(tmp_path, "heuristic", "dev960", "other")
    before = (bundle / "manifest.json").read_bytes()
    assert record_main(["--bundle", str(bundle), other]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "side A" in err[0]
    assert (bundle / "manifest.json").read_bytes() == before


@pytest.mark.parametrize("content", ["{not json", json.dumps({"format": "other"}), json.dumps([1, 2])])
def test_a_malformed_report_is_one_line_and_exit_2(tmp_path, capsys, content):
    bundle = make_bundle(tmp_path / "b")
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    before = (bundle / "manifest.json").read_bytes()
    assert record_main(["--bundle", str(bundle), str(bad)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert (bundle / "manifest.json").read_bytes() == before


def test_a_bundle_that_cannot_take_its_new_manifest_is_refused_first(tmp_path, capsys, monkeypatch):
    """A read-only bundle (here a folder whose new files fail, as on a read-only mount, which
    root's permission bits do not show) is one line and exit 2, the manifest as it was."""
    import baloot_cli

    bundle = make_bundle(tmp_path / "b")
    dev = _report(tmp_path, str(bundle), "dev960", "dev")
    before = (bundle / "manifest.json").read_bytes()

    def read_only(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(baloot_cli.tempfile, "TemporaryFile", read_only)
    assert record_main(["--bundle", str(bundle), dev]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "takes no new file (Read-only file system)" in err[0], err
    assert (bundle / "manifest.json").read_bytes() == before


def test_a_manifest_that_cannot_be_replaced_is_one_line_and_the_old_one_stays(tmp_path, monkeypatch, capsys):
    """Issue 46: the disk fills (or the folder changes) as the new manifest is written: exit 2,
    one line, no traceback, and the manifest on disk is the old one."""
    import errno

    import agents.neural.bundle as bundle_module

    bundle = make_bundle(tmp_path / "b")
    dev = _report(tmp_path, str(bundle), "dev960", "dev")
    before = (bundle / "manifest.json").read_bytes()

    def full(*_args, **_kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(bundle_module, "_write_manifest", full)
    capsys.readouterr()
    assert record_main(["--bundle", str(bundle), dev]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "No space left on device" in err
    assert (bundle / "manifest.json").read_bytes() == before
