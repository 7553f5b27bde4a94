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
    with pytest.raises(ConfigError, match="RuleConfig key projects must be true or false, got 1"):
        RuleConfig.from_dict({"projects": 1})
    with pytest.raises(ConfigError, match="RuleConfig key hands must be an integer, got 5.5"):
        RuleConfig.from_dict({"hands": 5.5})
    assert RuleConfig.from_dict({"hands": 5.0}).hands == 5  # YAML reads 2.0e+6 as a float: integral is fine
    with pytest.raises(ConfigError, match="RuleConfig key match must be a string"):
        RuleConfig.from_dict({"match": 152})
    with pytest.raises(ConfigError, match="heuristic param sun_bar must be a number, got True"):
        HeuristicConfig.from_dict({"sun_bar": True})
    with pytest.raises(ConfigError, match="search param worlds must be an integer"):
        SearchConfig.from_dict({"worlds": "4"})
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

    with pytest.raises(TypeError, match="bool, int, float, str, tuples and dataclasses"):
        from_mapping(Odd, {"xs": [1]}, "odd key")


def test_one_builder_for_nested_sections_tuples_and_optional_values():
    """The training config is built by the same helper: sections by their dotted path, the rules
    inside it, tuples, ``X | None``; a section's own check is prefixed with its path."""
    from dataclasses import dataclass, field

    @dataclass(frozen=True)
    class Inner:
        widths: tuple[int, ...] = (1,)
        limit: float | None = None

        def __post_init__(self) -> None:
            if self.limit is not None and self.limit < 0:
                raise ConfigError(f"limit must be >= 0, got {self.limit}")

    @dataclass(frozen=True)
    class Outer:
        name: str
        inner: Inner = field(default_factory=Inner)
        rules: RuleConfig = field(default_factory=RuleConfig)

    built = from_mapping(
        Outer, {"name": "x", "inner": {"widths": [3, 4.0], "limit": 2}, "rules": {"sun_double": True}}, "key"
    )
    assert built == Outer("x", Inner((3, 4), 2.0), RuleConfig(sun_double=True))
    assert from_mapping(Outer, {"name": "x", "inner": {"limit": None}}, "key").inner.limit is None
    with pytest.raises(ConfigError, match=r"^unknown keys \['bogus'\] in inner; known are \['limit', 'widths'\]$"):
        from_mapping(Outer, {"name": "x", "inner": {"bogus": 1}}, "key")
    with pytest.raises(ConfigError, match=r"^key inner.widths must be an integer, got 'a'$"):
        from_mapping(Outer, {"name": "x", "inner": {"widths": ["a"]}}, "key")
    with pytest.raises(ConfigError, match=r"^key inner.widths must be a list, got 3$"):
        from_mapping(Outer, {"name": "x", "inner": {"widths": 3}}, "key")
    with pytest.raises(ConfigError, match=r"^inner must be a mapping, got int$"):
        from_mapping(Outer, {"name": "x", "inner": 3}, "key")
    with pytest.raises(ConfigError, match=r"^inner: limit must be >= 0, got -1.0$"):
        from_mapping(Outer, {"name": "x", "inner": {"limit": -1}}, "key")
    with pytest.raises(ConfigError, match=r"^unknown keys \['bogus'\] in rules"):
        from_mapping(Outer, {"name": "x", "rules": {"bogus": 1}}, "key")
    with pytest.raises(ConfigError, match=r"^missing keys \['name'\]$"):
        from_mapping(Outer, {}, "key")
