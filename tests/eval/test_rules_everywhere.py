"""One ``RuleConfig`` from the config file to every game played: training, promotion, league,
record and ``python -m eval`` (``--rules``); a bundle is not played under rules other than its
manifest's unless that is asked for (``--other-rules``)."""

from __future__ import annotations

import json

import pytest
import torch
import yaml

import eval.runner
from agents.neural.bundle import bundle_rules, read_manifest, save_bundle
from agents.neural.network import BalootNet, NetSpec
from baloot_cli import InputError, rules_arg
from baloot_env.observation import OBS_SIZE
from baloot_env.rules import RuleConfig
from eval.__main__ import main as eval_main
from eval.deals import load_named
from eval.league import league
from eval.record import RecordError, record
from eval.runner import RulesMismatchError, check_rules
from train.run import load_run_config, run_training

# Variants that change play, scoring and the deal order, all honoured by the batched core too.
OTHER = RuleConfig(sun_double=True, deal_rotation="right", tie_rule="last_digit")
TINY_NET = NetSpec(trunk=(16,), head_hidden=8, value_hidden=(8,), privileged_critic=False, obs_size=OBS_SIZE)


def _bundle(path, rules: RuleConfig | None):
    torch.manual_seed(0)
    return save_bundle(path, BalootNet(TINY_NET), name=path.name, rules=rules)


@pytest.fixture
def spy(monkeypatch):
    """The rules of every hand and match chain the duplicate runner plays in this process."""
    seen: list[RuleConfig] = []
    play_deal, play_chain = eval.runner.play_deal, eval.runner.play_match_chain

    def deal(index, d, a, b, seed, rules=None):
        seen.append(rules)
        return play_deal(index, d, a, b, seed, rules)

    def chain(deals, a, b, table, seed, rules=None):
        seen.append(rules)
        return play_chain(deals, a, b, table, seed, rules)

    monkeypatch.setattr(eval.runner, "play_deal", deal)
    monkeypatch.setattr(eval.runner, "play_match_chain", chain)
    return seen


# ---------------------------------------------------------------------- training
@pytest.mark.slow  # a tiny run with two promotion tests and a final evaluation: about 25 s
def test_a_run_under_other_rules_evaluates_promotes_and_bundles_under_them(tmp_path, spy, capsys):
    config = {
        "run_dir": str(tmp_path / "run"),
        "ppo": {"processes": 1, "n_envs": 4, "n_steps": 32, "batch_size": 64, "n_epochs": 1, "total_steps": 256},
        "net": {"trunk": [32], "head_hidden": 16, "value_hidden": [16]},
        "log_every": 128,
        "checkpoint_every": 128,
        "env": {"rules": OTHER.changes()},
        "eval": {"every": 128, "deals": 4, "final_deals": 4, "workers": 1, "promote": True},
        "pretrain": {"positions": 300, "epochs": 1},
        "expert": {"rounds": 0},
    }
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    summary = run_training(load_run_config(str(path), [], None), quiet=True)
    capsys.readouterr()
    run = tmp_path / "run"
    promotions = [json.loads(line) for line in (run / "promotions.jsonl").read_text().splitlines()]
    assert len(promotions) == 2  # a promotion test at each of the two periodic evaluations
    assert all(RuleConfig.from_dict(p["rules"]) == OTHER for p in promotions)
    # every hand of every evaluation (promotion tests, periodic, final with its matches) was OTHER's
    assert len(spy) > 10 and all(r == OTHER for r in spy), {r for r in spy if r != OTHER}
    manifest = read_manifest(summary["bundle"])
    assert bundle_rules(manifest) == OTHER
    assert manifest["evaluations"] and all(RuleConfig.from_dict(e["rules"]) == OTHER for e in manifest["evaluations"])
    assert RuleConfig.from_dict(yaml.safe_load((run / "config.yaml").read_text())["env"]["rules"]) == OTHER


# ---------------------------------------------------------------------- the bundle's rules
def test_a_bundle_is_refused_under_other_rules_unless_allowed(tmp_path):
    other = str(_bundle(tmp_path / "other", OTHER))
    plain = str(_bundle(tmp_path / "plain", None))
    check_rules([other, "heuristic"], OTHER)
    check_rules([plain], RuleConfig())
    with pytest.raises(RulesMismatchError, match="trained under RULES.md with sun_double=True.*plays RULES.md;"):
        check_rules(["heuristic", other], RuleConfig())
    with pytest.raises(RulesMismatchError, match="trained under RULES.md, but this evaluation plays RULES.md with"):
        check_rules([plain], OTHER)
    check_rules([other], RuleConfig(), other_rules=True)
    split = tmp_path / "split.json"  # a bundle inside an agent file is found too
    split.write_text(json.dumps({"agent": "split", "params": {"bidding": "heuristic", "play": other}}))
    with pytest.raises(RulesMismatchError, match=rf"in {split}"):
        check_rules([str(split)], RuleConfig())


def test_the_runner_refuses_before_playing(tmp_path, spy):
    other = str(_bundle(tmp_path / "other", OTHER))
    deals = load_named("dev960").head(2)
    with pytest.raises(RulesMismatchError):
        eval.runner.run_duplicate(other, "heuristic", deals, matches=False)
    assert spy == []
    eval.runner.run_duplicate(other, "heuristic", deals, matches=False, rules=OTHER)
    assert spy == [OTHER, OTHER]  # one call a deal


# ---------------------------------------------------------------------- python -m eval --rules
def test_rules_arg_reads_pairs_files_and_training_configs(tmp_path):
    assert rules_arg(None) == rules_arg([]) == RuleConfig()
    assert rules_arg(["sun_double=true", "deal_rotation=right", "tie_rule=last_digit"]) == OTHER
    flat = tmp_path / "rules.yaml"
    flat.write_text(yaml.safe_dump(OTHER.changes()))
    assert rules_arg([str(flat)]) == OTHER
    training = tmp_path / "train.yaml"
    training.write_text(yaml.safe_dump({"seed": 3, "env": {"rules": OTHER.changes()}}))
    assert rules_arg([str(training)]) == OTHER
    for bad, message in (
        (["hands=7"], "hands must be one of"),
        (["bogus=1"], "unknown RuleConfig keys"),
        (["sun_double"], "no such file"),
        (["=true"], "must look like KEY=VALUE"),
        (["projects=[unclosed"], "not valid YAML"),
    ):
        with pytest.raises(InputError, match=message):
            rules_arg(bad)


def test_cli_plays_under_the_named_rules_and_refuses_a_mismatch(tmp_path, spy, capsys):
    other = str(_bundle(tmp_path / "other", OTHER))
    common = ["--b", "heuristic", "--deals", "2", "--no-matches", "--quiet"]
    assert eval_main(["--a", other, *common]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: policy bundle") and "--other-rules" in err and "\n" not in err
    assert spy == []  # refused before any deal
    out = tmp_path / "r.json"
    argv = ["--a", other, *common, "--rules", "sun_double=true", "deal_rotation=right", "tie_rule=last_digit"]
    assert eval_main([*argv, "--json", str(out)]) == 0
    assert spy and set(spy) == {OTHER}
    report = json.loads(out.read_text())
    assert RuleConfig.from_dict(report["rules"]) == OTHER
    spy.clear()
    assert eval_main(["--a", other, *common, "--other-rules"]) == 0
    assert spy and set(spy) == {RuleConfig()}
    capsys.readouterr()
    assert eval_main(["--a", "heuristic", *common, "--rules", "hands=7"]) == 2
    assert capsys.readouterr().err.startswith("error: --rules: ")


def test_record_refuses_a_report_under_other_rules(tmp_path, capsys):
    other = str(_bundle(tmp_path / "other", OTHER))
    common = ["--a", other, "--b", "heuristic", "--deals", "2", "--no-matches", "--quiet"]
    assert eval_main([*common, "--other-rules", "--json", str(tmp_path / "plain.json")]) == 0
    with pytest.raises(RecordError, match="played under RULES.md, but the bundle was trained under RULES.md with"):
        record(other, [tmp_path / "plain.json"])
    assert eval_main([*common, "--rules", str(_rules_file(tmp_path)), "--json", str(tmp_path / "same.json")]) == 0
    manifest = record(other, [tmp_path / "same.json"])
    assert [RuleConfig.from_dict(e["rules"]) for e in manifest["evaluations"]] == [OTHER]


def _rules_file(tmp_path):
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump(OTHER.changes()))
    return path


# ---------------------------------------------------------------------- league and promotion
def test_league_plays_times_and_saves_under_its_rules(tmp_path, spy):
    ds = load_named("dev960").head(2)
    pairs = tmp_path / "pairs"
    rep = league(["heuristic", "random"], ds, ds.checksum, rules=OTHER, time_positions=0, pairs_dir=pairs)
    assert RuleConfig.from_dict(rep["rules"]) == OTHER and spy and set(spy) == {OTHER}
    spy.clear()
    league(["heuristic", "random"], ds, ds.checksum, rules=OTHER, time_positions=0, pairs_dir=pairs)
    assert spy == []  # the saved pair is reused under the same rules
    league(["heuristic", "random"], ds, ds.checksum, time_positions=0, pairs_dir=pairs)
    assert spy and set(spy) == {RuleConfig()}  # but played again under others
    other = str(_bundle(tmp_path / "other", OTHER))
    with pytest.raises(RulesMismatchError):
        league(["heuristic", other], ds, ds.checksum, time_positions=0)


def test_promote_cli_plays_and_records_its_rules(tmp_path, spy, capsys):
    pointer = tmp_path / "champion.json"
    pointer.write_text(json.dumps({"format": "baloot-champion-1", "champion": "random", "since": None}))
    argv = ["promote", "--candidate", "heuristic", "--champion", str(pointer), "--deals", "4", "--looks", "1"]
    eval_main([*argv, "--quiet", "--rules", "sun_double=true", "deal_rotation=right", "tie_rule=last_digit"])
    capsys.readouterr()
    entry = json.loads((tmp_path / "promotions.jsonl").read_text().splitlines()[-1])
    assert RuleConfig.from_dict(entry["rules"]) == OTHER and spy and set(spy) == {OTHER}
