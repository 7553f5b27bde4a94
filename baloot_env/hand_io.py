"""A hand's saved form: the snapshot of every field, and ``to_json`` / ``from_json``.

The fields are ``HandState``'s own (``hand.STATE_FIELDS``, read off the class), so a field
added to the state is saved, compared and restored without being listed again here. The rules
and the deal are saved beside the snapshot (they are values of their own, R2.4, V1-V9).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baloot_env.deal import parse_deal
from baloot_env.errors import BalootError, StateError, shown
from baloot_env.projects import Project
from baloot_env.results import HandResult
from baloot_env.rules import RuleConfig, match_score_problem

if TYPE_CHECKING:
    from baloot_env.hand import HandState

# 2: the snapshot holds the match score and is required (1 had neither); 1 is refused by name.
STATE_FORMAT = "baloot-hand-2"
SAVED_FIELDS = ("format", "rules", "deal", "match_score", "history", "snapshot")
OUTSIDE_SNAPSHOT = ("rules", "deal")  # saved as values of their own, beside the snapshot


def to_plain(value: Any) -> Any:
    """A field's value as plain JSON data: tuples become lists, a project its dict (R6.1), a
    result its R11.4 info; numbers, strings, bools and None stay as they are."""
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, Project):
        return value.to_dict()
    if isinstance(value, HandResult):
        return value.to_info()
    return value


def snapshot(state: HandState, names: tuple[str, ...]) -> dict[str, Any]:
    """The fields ``names`` of ``state`` as plain JSON data, by name."""
    return {name: to_plain(getattr(state, name)) for name in names}


def to_json(state: HandState) -> dict[str, Any]:
    """Saved form: format version, rules, deal, match score, action history and a snapshot."""
    return {
        "format": STATE_FORMAT,
        "rules": state.rules.to_dict(),
        "deal": state.deal.to_dict(),
        "match_score": list(state.match_score),
        "history": state.history[:],
        "snapshot": state.snapshot(),
    }


def from_json(cls: type[HandState], data: object) -> HandState:
    """Restore a state saved by ``to_json`` (``HandState.from_json`` documents the checks).

    Raises:
        StateError: anything malformed, missing, unknown or inconsistent; the message names
            the field. Never another exception type.
    """
    if not isinstance(data, dict):
        raise StateError(
            f"a saved hand state must be a dict with the fields {list(SAVED_FIELDS)}, got {type(data).__name__}"
        )
    fmt = data.get("format")
    if not (isinstance(fmt, str) and fmt == STATE_FORMAT):
        raise StateError(f"saved hand state field 'format' must be {STATE_FORMAT!r}, got {shown(fmt)}")
    missing = [k for k in SAVED_FIELDS if k not in data]
    if missing:
        raise StateError(f"saved hand state is missing the fields {missing}")
    unknown = sorted((k for k in data if k not in SAVED_FIELDS), key=repr)
    if unknown:
        raise StateError(f"saved hand state has unknown fields {unknown}; known: {list(SAVED_FIELDS)}")

    def bad(field: str, what: object) -> StateError:
        return StateError(f"saved hand state field {field!r}: {what}")

    try:
        rules = RuleConfig.from_dict(data["rules"])
    except (TypeError, ValueError) as e:
        raise bad("rules", e) from None
    try:
        deal = parse_deal(data["deal"])
    except (TypeError, ValueError) as e:
        raise bad("deal", e) from None
    score = data["match_score"]
    if not (isinstance(score, list) and len(score) == 2 and all(type(x) is int for x in score)):
        raise bad("match_score", f"must be a list of two ints [team 0, team 1], got {shown(score)}")
    problem = match_score_problem((score[0], score[1]), rules)
    if problem:
        raise bad("match_score", problem)
    history = data["history"]
    if not (isinstance(history, list) and all(type(a) is int for a in history)):
        raise bad("history", f"must be a list of action ids (ints, R9), got {shown(history)}")
    try:
        state = cls.replay(deal, history, rules, (score[0], score[1]))
    except BalootError as e:
        raise bad("history", f"does not replay: {e}") from None
    saved = data["snapshot"]
    if not isinstance(saved, dict):
        raise bad("snapshot", f"must be a dict, got {type(saved).__name__}")
    want = state.snapshot()
    diff = sorted(
        (k for k in want.keys() | saved.keys() if not (k in want and k in saved and same_json(want[k], saved[k]))),
        key=repr,
    )
    if diff:
        raise bad("snapshot", f"disagrees with the replay of the history in {diff}")
    return state


def same_json(a: object, b: object) -> bool:
    """Equal as JSON data, types included: ``1 == 1.0 == True`` in Python, not here."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    return a == b
