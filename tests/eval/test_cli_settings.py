"""``--config FILE``: every command's settings section read from YAML, a flag given beating the file
(``baloot_cli.settings_file``); a bad file is one line and exit code 2 before any work."""

import pytest

import eval.__main__ as eval_main
import train.call_iteration as call_iteration
import train.distill as distill

CHAMPION = "policies/champion"


def _yaml(tmp_path, text, name="settings.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_distill_reads_its_settings_from_a_file_and_flags_beat_it(tmp_path, monkeypatch):
    seen = {}
    monkeypatch.setattr(distill, "distill", lambda cfg, quiet: seen.setdefault("cfg", cfg))
    monkeypatch.setattr(distill, "format_summary", lambda summary: "")
    path = _yaml(
        tmp_path,
        f"teacher: {CHAMPION}\nout: {tmp_path / 'out'}\npositions: 300\ntrunk: [16, 8]\n"
        "value_weight: 0.25\nlearning_rate: 0.01\neval_deals: 0\n",
    )
    assert distill.main(["--config", path, "--lr", "0.02"]) == 0
    cfg = seen["cfg"]
    assert (cfg.teacher, cfg.positions, cfg.trunk, cfg.value_weight) == (CHAMPION, 300, (16, 8), 0.25)
    assert cfg.learning_rate == 0.02  # the flag given beats the file
    assert cfg.epochs == distill.DistillConfig(teacher="-").epochs  # neither: the dataclass default


def test_the_call_step_reads_its_calls_section(tmp_path, monkeypatch):
    seen = {}
    monkeypatch.setattr(call_iteration, "run", lambda cfg, quiet: seen.setdefault("cfg", cfg))
    path = _yaml(
        tmp_path, f"policy: {CHAMPION}\nout: {tmp_path / 'out'}\nseed: 3\ncalls:\n  positions: 50\n  condition: false\n"
    )
    assert call_iteration.main(["--config", path, "--worlds", "8"]) == 0
    cfg = seen["cfg"]
    assert (cfg.seed, cfg.calls.positions, cfg.calls.condition, cfg.calls.worlds) == (3, 50, False, 8)


def test_promote_reads_its_settings_and_rules_from_a_file(tmp_path, monkeypatch):
    seen = {}

    def fake_promote(cfg):
        seen["cfg"] = cfg
        return {"promoted": False, "ci95": (0.0, 0.0), "candidate": "a", "champion": "b", "mean": 0.0,
                "deals": 8, "look": 1, "looks": 2, "decision": "-", "deal_set": "dev960", "checksum": "0" * 64,
                "pointer": "p", "history": "h"}  # fmt: skip

    monkeypatch.setattr(eval_main, "promote", fake_promote)
    pointer = tmp_path / "champion.json"
    path = _yaml(
        tmp_path,
        f"candidate: heuristic\nchampion: random\npointer: {pointer}\ndeal_set: dev960\ndeals: 8\n"
        "looks: 2\nalpha: 0.01\nrules: {sun_double: true}\n",
    )
    assert eval_main.main(["promote", "--config", path, "--seed", "5"]) == 1  # not promoted
    cfg = seen["cfg"]
    assert (cfg.candidate, cfg.champion, cfg.deals, cfg.looks, cfg.alpha, cfg.seed) == (
        "heuristic",
        "random",
        8,
        2,
        0.01,
        5,
    )
    assert cfg.rules.sun_double and cfg.rules.changes() == {"sun_double": True}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bogus: 1\n", "unknown settings ['bogus']"),
        ("- 1\n- 2\n", "must hold a mapping of settings, got list"),
        ("positions: [1]\n", "[1] is not a value of --positions"),
        ("positions: many\n", "'many' is not a value of --positions"),
        ("out: 3\n", "3 is not a value of --out"),
        ("quiet: 1\n", "1 is not a value of --quiet"),
        ("positions: [\n", "cannot be read"),
    ],
)
def test_a_bad_settings_file_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, text, message):
    monkeypatch.setattr(distill, "distill", lambda cfg, quiet: pytest.fail("work started"))
    path = _yaml(tmp_path, text)
    assert distill.main(["--teacher", CHAMPION, "--config", path]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0], err


def test_a_missing_settings_file_is_refused(tmp_path, capsys):
    assert (
        eval_main.main(["promote", "--config", str(tmp_path / "none.yaml"), "--candidate", "a", "--champion", "b"]) == 2
    )
    assert "no such file" in capsys.readouterr().err


def test_config_flags_are_made_from_the_dataclass_fields():
    """``baloot_cli.config_flags``: the flag's name, type, default and help come from the field."""
    import argparse
    from dataclasses import dataclass, field

    from baloot_cli import config_flags

    @dataclass(frozen=True)
    class Demo:
        worlds: int = field(default=64, metadata={"help": "sampled worlds"})
        share: float = field(default=0.5, metadata={"help": "a share"})
        rule: str = field(default="improve", metadata={"help": "a target rule"})
        guide: bool = field(default=False, metadata={"help": "guide it"})

    p = argparse.ArgumentParser()
    config_flags(
        p, Demo, ("worlds", "share", "rule", "guide"), Demo(worlds=8), choices={"rule": ("improve", "matched")}
    )
    a = p.parse_args([])
    assert (a.worlds, a.share, a.rule, a.guide) == (8, 0.5, "improve", False)  # the given defaults
    a = p.parse_args(["--worlds", "3", "--share", "0.25", "--rule", "matched", "--guide"])
    assert (a.worlds, a.share, a.rule, a.guide) == (3, 0.25, "matched", True)
    assert "sampled worlds" in p.format_help()
    with pytest.raises(SystemExit):
        p.parse_args(["--rule", "other"])


def test_config_flags_make_required_flags_widths_and_aliases():
    """A field without a default is a required flag; ``tuple[int, ...]`` reads widths ("64,64");
    an alias is another spelling of the same flag; with no defaults given, the field's own."""
    import argparse
    from dataclasses import dataclass, field

    from baloot_cli import config_flags

    @dataclass(frozen=True)
    class Demo:
        teacher: str = field(metadata={"help": "the teacher"})
        trunk: tuple[int, ...] = field(default=(40,), metadata={"help": "widths"})
        learning_rate: float = 0.5

    p = argparse.ArgumentParser()
    config_flags(p, Demo, ("teacher", "trunk", "learning_rate"), aliases={"learning_rate": ["--lr"]})
    with pytest.raises(SystemExit):
        p.parse_args([])  # --teacher is required
    a = p.parse_args(["--teacher", "t"])
    assert (a.teacher, a.trunk, a.learning_rate) == ("t", (40,), 0.5)
    a = p.parse_args(["--teacher", "t", "--trunk", "64,32", "--lr", "0.1"])
    assert (a.trunk, a.learning_rate) == ((64, 32), 0.1)
    assert p.parse_args(["--teacher", "t", "--learning-rate", "0.2"]).learning_rate == 0.2
    with pytest.raises(SystemExit):
        p.parse_args(["--teacher", "t", "--trunk", "wide"])
