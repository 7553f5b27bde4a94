"""One config-from-mapping helper and one error type for every config."""

import pytest

import train.config
from agents.rule_based.heuristic import HeuristicConfig
from agents.search_player.player import SearchConfig
from baloot_env.config import from_mapping
from baloot_env.errors import BalootError, ConfigError
from baloot_env.rules import RuleConfig


def test_one_error_type():
    assert train.config.ConfigError is ConfigError  # the training config's error is the engine's
    assert issubclass(ConfigError, BalootError) and issubclass(ConfigError, ValueError)


@pytest.mark.parametrize(
    ("cls", "item"),
    [(RuleConfig, "RuleConfig key"), (HeuristicConfig, "heuristic param"), (SearchConfig, "search param")],
)
def test_every_config_refuses_the_same_way(cls, item):
    assert cls.from_dict({}) == cls()
    with pytest.raises(ConfigError, match=f"^{item}s must be a mapping, got list$"):
        cls.from_dict([])
    with pytest.raises(ConfigError, match=rf"^unknown {item}s \['bogus'\]"):
        cls.from_dict({"bogus": 1})


def test_values_must_have_their_fields_types():
    with pytest.raises(ConfigError, match="RuleConfig key projects must be True or False, got 1"):
        RuleConfig.from_dict({"projects": 1})
    with pytest.raises(ConfigError, match="RuleConfig key hands must be an integer, got 5.0"):
        RuleConfig.from_dict({"hands": 5.0})
    with pytest.raises(ConfigError, match="RuleConfig key match must be a string"):
        RuleConfig.from_dict({"match": 152})
    with pytest.raises(ConfigError, match="heuristic param sun_bar must be a number, got True"):
        HeuristicConfig.from_dict({"sun_bar": True})
    with pytest.raises(ConfigError, match="search param worlds must be an integer"):
        SearchConfig.from_dict({"worlds": 4.0})
    # ints are numbers where a float is wanted, and become floats
    assert SearchConfig.from_dict({"epsilon": 1}).epsilon == 1.0
    assert type(HeuristicConfig.from_dict({"sun_bar": 9}).sun_bar) is float
    # ranges stay the dataclass's own check, with the same error type
    with pytest.raises(ConfigError, match="epsilon"):
        SearchConfig.from_dict({"epsilon": 2.0})


def test_from_mapping_refuses_field_types_it_does_not_know():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Odd:
        xs: list = None  # type: ignore[assignment]

    with pytest.raises(TypeError, match="bool, int, float and str"):
        from_mapping(Odd, {"xs": [1]}, "odd key")
