"""RuleConfig (V1-V9): defaults are the written rules, bad values are refused, dealer rotation."""

from __future__ import annotations

import dataclasses

import pytest

from baloot_env.errors import ConfigError
from baloot_env.rules import RuleConfig


def test_defaults_are_the_written_rules():
    """Defaults: V1 off, V2/V3 on, V4 target (5 hands in hands mode), V5 rounding, V6 off,
    V7 four_hundred, V8 off, V9 left."""
    r = RuleConfig()
    assert (r.sun_double, r.projects, r.doubling) == (False, True, True)
    assert (r.match, r.hands, r.tie_rule, r.win_above) == ("target", 5, "rounding", False)
    assert (r.four_aces_hokum, r.baloot_kept, r.deal_rotation) == ("four_hundred", False, "left")


def test_rule_config_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        RuleConfig().projects = False  # type: ignore[misc]


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"sun_double": 1}, "sun_double"),
        ({"projects": "yes"}, "projects"),
        ({"doubling": None}, "doubling"),
        ({"win_above": 0}, "win_above"),
        ({"baloot_kept": "False"}, "baloot_kept"),
        ({"match": "points"}, "match"),
        ({"hands": 7}, "hands"),
        ({"hands": True}, "hands"),
        ({"hands": "5"}, "hands"),
        ({"hands": 5.0}, "hands"),  # 5.0 == 5, but a number of hands is an int
        ({"hands": 9.0}, "hands"),
        ({"hands": None}, "hands"),
        ({"hands": [5]}, "hands"),
        ({"tie_rule": "coin"}, "tie_rule"),
        ({"four_aces_hokum": "fifty"}, "four_aces_hokum"),
        ({"deal_rotation": "clockwise"}, "deal_rotation"),
    ],
)
def test_bad_values_raise_rule_config_error(kwargs, word):
    """Every switch accepts only its documented values (V1-V9); the message names the switch."""
    with pytest.raises(ConfigError, match=word):
        RuleConfig(**kwargs)


@pytest.mark.parametrize("hands", [5, 9, 11])
def test_hands_choices_v4(hands):
    """V4/R8.2: 5, 9 or 11 hands."""
    assert RuleConfig(match="hands", hands=hands).hands == hands


def test_from_dict_round_trip_and_unknown_keys():
    r = RuleConfig(sun_double=True, tie_rule="last_digit", deal_rotation="right")
    assert RuleConfig.from_dict(r.to_dict()) == r
    with pytest.raises(ConfigError, match="sun_doubel"):
        RuleConfig.from_dict({"sun_doubel": True})
    with pytest.raises(ConfigError):
        RuleConfig.from_dict([("projects", False)])  # type: ignore[arg-type]
    assert issubclass(ConfigError, ValueError)


def test_dealer_rotation_left_r2_1():
    """R2.1: the deal moves one seat left, to the seat before the dealer in play order."""
    r = RuleConfig()
    assert [r.next_dealer(d) for d in range(4)] == [3, 0, 1, 2]


def test_dealer_rotation_right_v9():
    """V9 "right": the deal passes to the dealer's right, (dealer + 1) % 4."""
    r = RuleConfig(deal_rotation="right")
    assert [r.next_dealer(d) for d in range(4)] == [1, 2, 3, 0]


def test_from_dict_refuses_a_fractional_number_of_hands_and_mixed_unknown_keys():
    """Saved rules come from JSON and YAML: an int field takes an integral float (as every config
    built by ``from_mapping`` does: YAML reads 2.0e+6 as a float) but no fraction, and unknown
    keys of any type are reported (not a TypeError from sorting them)."""
    with pytest.raises(ConfigError, match="hands"):
        RuleConfig.from_dict({"match": "hands", "hands": 11.5})
    assert RuleConfig.from_dict({"match": "hands", "hands": 11.0}) == RuleConfig(match="hands", hands=11)
    with pytest.raises(ConfigError, match="unknown RuleConfig keys"):
        RuleConfig.from_dict({1: True, "x": False})  # type: ignore[dict-item]
