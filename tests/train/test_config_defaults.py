"""One source of config defaults: the dataclasses, configs/default.yaml and --help agree."""

from __future__ import annotations

import dataclasses
import re
from importlib import resources

import pytest
import yaml

import train.__main__ as train_cli
from baloot_env.rules import RuleConfig
from train.config import ConfigError, TrainConfig, config_from_dict, iter_fields, load_config, show_value

SHIPPED_DEFAULT = resources.files("train") / "configs" / "default.yaml"


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict) and k != "rules":  # env.rules is a field holding a mapping
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _leaves(obj, prefix: str = "") -> dict:
    """Every leaf field of a config instance, by dotted key (walked independently of iter_fields)."""
    out = {}
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        if isinstance(v, RuleConfig):  # env.rules is one value, written as the switches that differ
            out[f"{prefix}{f.name}"] = v.changes()
        elif dataclasses.is_dataclass(v):
            out.update(_leaves(v, f"{prefix}{f.name}."))
        else:
            out[f"{prefix}{f.name}"] = list(v) if isinstance(v, tuple) else v
    return out


def test_default_yaml_is_the_dataclass_defaults_field_by_field():
    raw = _flatten(yaml.safe_load(SHIPPED_DEFAULT.read_text(encoding="utf-8")))
    defaults = _leaves(TrainConfig())
    assert sorted(raw) == sorted(defaults), "default.yaml must list every field, and only fields"
    for key, value in defaults.items():
        assert raw[key] == value and type(raw[key]) is type(value), (key, raw[key], value)
    assert load_config(str(SHIPPED_DEFAULT)) == TrainConfig() == load_config(None)


def test_a_partial_config_gets_the_default_recipe():
    cfg = config_from_dict({"ppo": {"total_steps": 1000}})
    assert cfg.ppo.total_steps == 1000
    assert dataclasses.replace(cfg, ppo=TrainConfig().ppo) == TrainConfig()


def test_help_lists_every_key_with_its_default_and_meaning(capsys):
    with pytest.raises(SystemExit) as stop:
        train_cli.main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    keys = list(_leaves(TrainConfig()))
    listed = [key for key, _, _ in iter_fields()]
    assert listed == keys
    for key, default, meaning in iter_fields():
        line = re.search(rf"^  {re.escape(key)} = (\S.*?)(?:\s{{2,}}(\S.*))?$", out, re.MULTILINE)
        assert line, f"{key} is not in --help"
        assert line.group(1) == show_value(default), key
        assert yaml.safe_load(line.group(1)) == _leaves(TrainConfig())[key], key  # the shown default reads back
        assert meaning.strip() and meaning.split()[0] in (line.group(2) or out), key


def test_the_shipped_configs_are_found_from_another_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_config("configs/default.yaml") == TrainConfig()
    assert load_config("configs/strong.yaml").ppo.total_steps == 4_500_000
    with pytest.raises(ConfigError, match="config file configs/nope.yaml does not exist"):
        load_config("configs/nope.yaml")


def test_env_reward_is_checked():
    for good in ("diff", "points", "win"):
        assert config_from_dict({}, [f"env.reward={good}"]).env.reward == good
    with pytest.raises(ConfigError, match=r"^env.reward must be 'diff' or 'points' or 'win', got 'score'$"):
        config_from_dict({}, ["env.reward=score"])


def test_the_default_teacher_spec_is_found_in_the_package_from_another_folder(tmp_path, monkeypatch):
    """expert.teacher's default names configs/teacher_w128.json: from a folder without it (an
    installed wheel's user) the package's file is read, and the defaults validate."""
    from train.config import agent_spec

    here = agent_spec("configs/teacher_w128.json")
    assert here == "configs/teacher_w128.json"  # the checkout's own file wins
    monkeypatch.chdir(tmp_path)
    found = agent_spec("configs/teacher_w128.json")
    assert found != "configs/teacher_w128.json" and found.endswith("teacher_w128.json")
    assert agent_spec("configs/no_such_teacher.json") == "configs/no_such_teacher.json"  # refused later, by name
    assert agent_spec("search") == "search" and agent_spec("configs/default.yaml") == "configs/default.yaml"
    assert load_config(None) == TrainConfig()
    with pytest.raises(ConfigError, match="expert.teacher"):
        load_config(None, ["expert.teacher=configs/no_such_teacher.json"])
