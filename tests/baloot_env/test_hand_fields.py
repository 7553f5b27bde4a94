"""HandState's one field list: clone, equality and the saved form follow it.

A field added to ``HandState`` is declared once, as an annotation; these tests fail if it does
not take part in copying, equality or save/restore, or if a phase module starts to hold more
than its one phase.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import random
from pathlib import Path

import pytest

from baloot_env.deal import random_deal
from baloot_env.hand import STATE_FIELDS, HandState
from baloot_env.hand_io import OUTSIDE_SNAPSHOT

ROOT = Path(__file__).resolve().parents[2]


def _mid_hand(seed: int = 3) -> HandState:
    """A state in the third trick, two cards down: every field has a non-initial value."""
    rng = random.Random(seed)
    for _ in range(100):
        s = HandState(random_deal(rng))
        while not s.done and not (len(s.tricks) == 2 and len(s.trick_cards) == 2):
            s.apply(rng.choice(s.legal_actions()))
        if not s.done:
            return s
    raise AssertionError("no mid-hand state in 100 deals")


def _other_value(value: object) -> object:
    """A different value of the same kind (a changed list keeps its type)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return [*value, value[0] if value else 0]
    if isinstance(value, tuple):
        return (*value, 0)
    return "changed"


def test_the_field_list_is_the_classes_slots():
    assert HandState.__slots__ == STATE_FIELDS  # type: ignore[attr-defined]
    s = _mid_hand()
    assert set(s.snapshot()) == set(STATE_FIELDS) - set(OUTSIDE_SNAPSHOT)
    assert all(hasattr(s, name) for name in STATE_FIELDS)  # the constructor sets every field


@pytest.mark.parametrize("name", [n for n in STATE_FIELDS if n not in OUTSIDE_SNAPSHOT])
def test_every_field_takes_part_in_equality_and_the_snapshot(name):
    s = _mid_hand()
    t = s.clone()
    assert t == s
    setattr(t, name, _other_value(getattr(s, name)))
    assert t != s and t.snapshot()[name] != s.snapshot()[name]


@pytest.mark.parametrize("name", [n for n in STATE_FIELDS if isinstance(getattr(_mid_hand(), n), list)])
def test_clone_copies_every_list_field(name):
    s = _mid_hand()
    t = s.clone()
    assert getattr(t, name) is not getattr(s, name)


def test_rules_and_deal_take_part_in_equality_and_the_saved_form():
    s = _mid_hand()
    t = s.clone()
    t.deal = random_deal(random.Random(99))
    assert t != s
    saved = s.to_json()
    assert saved["deal"] == s.deal.to_dict() and saved["rules"] == s.rules.to_dict()
    assert HandState.from_json(json.loads(json.dumps(saved))) == s


def test_from_fields_wants_every_field_and_no_other():
    s = _mid_hand()
    values = {n: getattr(s, n) for n in STATE_FIELDS}
    assert HandState.from_fields(values) == s
    with pytest.raises(TypeError, match="missing fields \\['history'\\]"):
        HandState.from_fields({k: v for k, v in values.items() if k != "history"})
    with pytest.raises(TypeError, match="unknown fields \\['colour'\\]"):
        HandState.from_fields({**values, "colour": 1})


PHASE_MODULES = {
    "bidding": {"legal_bids", "apply_bid", "settle", "throw_in"},
    "doubling": {"doubling_applies", "start_doubling", "legal_doubling", "apply_doubling"},
    "play": {"legal_cards", "legal_play", "start_play", "play_card", "close_trick", "finish"},
    "inference": {"observe_card", "projects_public"},
    "hand_io": {"to_plain", "snapshot", "to_json", "from_json", "same_json"},
}


@pytest.mark.parametrize("module", sorted(PHASE_MODULES))
def test_each_phase_module_holds_its_phase_only(module):
    """The functions of each phase module are those of its phase (R3, R4, R5, what play shows,
    the saved form); ``hand.py`` holds the state and dispatches, and no engine module grows past
    ~400 lines (STYLE)."""
    tree = ast.parse((ROOT / "baloot_env" / f"{module}.py").read_text())
    public = {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
    assert public == PHASE_MODULES[module]


ENGINE = (
    "cards",
    "seats",
    "deal",
    "rules",
    "actions",
    "phases",
    "bidding",
    "doubling",
    "play",
    "inference",
    "hand",
    "hand_io",
    "projects",
    "scoring",
    "results",
    "match",
    "observation",
)


def test_engine_modules_stay_small():
    sizes = {m: len((ROOT / "baloot_env" / f"{m}.py").read_text().splitlines()) for m in ENGINE}
    assert max(sizes.values()) <= 400, sizes


def test_demo_runs():
    """``python -m baloot_env.demo`` plays and prints a few hands (a fresh install's check)."""
    from baloot_env.demo import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["--hands", "2", "--seed", "1"])
    text = out.getvalue()
    assert text.count("=== hand ") == 2 and "2 hands played" in text
