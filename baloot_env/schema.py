"""JSON schemas (draft 2020-12) of the engine's JSON forms, built from the engine's own tables.

- ``view_schema()``: a seat's view by names, ``PlayerView.to_struct`` (format ``baloot-view-1``,
  ``baloot_env.view_struct``), what the env's ``observation="json"`` form holds;
- ``hand_schema()``: a saved hand, ``HandState.to_json`` (format ``baloot-hand-2``,
  ``baloot_env.hand_io``): its rules, deal (R2.4), match score, actions (R9) and snapshot.

Card and action names, suits, phases, contracts, project kinds and rule switches come from the
modules that define them, so a schema cannot drift from the code; the committed files
(``docs/schemas/``, for readers in other languages) are written by ``python -m baloot_env.schema
--out docs/schemas`` and checked against these functions by ``tests/baloot_env/test_schema.py``,
which also validates thousands of real views and hands against them and shows that broken ones
fail. The table's export (``table.export.export_schema``, ``docs/schemas/export.schema.json``) builds
its schema from these pieces.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from baloot_env.actions import NUM_ACTIONS, NUM_CARD_ACTIONS, action_name
from baloot_env.bidding import FIRST_ROUND, SECOND_ROUND
from baloot_env.cards import NUM_CARDS, SUIT_NAMES, card_name
from baloot_env.deal import FIRST_HAND_SIZE
from baloot_env.hand import PHASES, SAVED_FIELDS, STATE_FIELDS
from baloot_env.hand_io import OUTSIDE_SNAPSHOT, STATE_FORMAT
from baloot_env.match import CONTEXT_MODES
from baloot_env.projects import PROJECT_VALUES
from baloot_env.rules import RULE_CHOICES, RuleConfig
from baloot_env.scoring import CONTRACTS
from baloot_env.seats import NUM_SEATS
from baloot_env.view_struct import STRUCT_FORMAT

DIALECT = "https://json-schema.org/draft/2020-12/schema"
CARDS_PER_SEAT = NUM_CARDS // NUM_SEATS  # 8, once the stock is dealt (R2.3)
TRICKS = CARDS_PER_SEAT

CARD_NAME = {"enum": [card_name(c) for c in range(NUM_CARDS)]}
CARD_ID = {"type": "integer", "minimum": 0, "maximum": NUM_CARDS - 1}
ACTION_NAME = {"enum": [action_name(a) for a in range(NUM_ACTIONS)]}
CALL_NAME = {"enum": [action_name(a) for a in range(NUM_CARD_ACTIONS, NUM_ACTIONS)]}
ACTION_ID = {"type": "integer", "minimum": 0, "maximum": NUM_ACTIONS - 1}
SEAT = {"type": "integer", "minimum": 0, "maximum": NUM_SEATS - 1}
SEAT_OR_NONE = {"type": "integer", "minimum": -1, "maximum": NUM_SEATS - 1}  # -1: no such seat (yet)
COUNT = {"type": "integer", "minimum": 0}
PAIR = {"type": "array", "items": COUNT, "minItems": 2, "maxItems": 2}  # one number per team
SUIT_NAME = {"enum": list(SUIT_NAMES)}


def array_of(items: dict[str, Any], least: int = 0, most: int | None = None, unique: bool = False) -> dict[str, Any]:
    """An array of ``items``, ``least`` to ``most`` long."""
    out: dict[str, Any] = {"type": "array", "items": items, "minItems": least}
    if most is not None:
        out["maxItems"] = most
    if unique:
        out["uniqueItems"] = True
    return out


def object_of(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """An object with exactly ``properties`` (all required unless ``required`` says which)."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }


def _per_seat(items: dict[str, Any]) -> dict[str, Any]:
    return array_of(items, NUM_SEATS, NUM_SEATS)


def _cards(most: int = NUM_CARDS) -> dict[str, Any]:
    return array_of(CARD_NAME, 0, most, unique=True)


def rules_schema() -> dict[str, Any]:
    """``RuleConfig.to_dict()``: every switch, a bool or one of its choices (RULES.md V1-V9)."""
    props: dict[str, Any] = {}
    for f in dataclasses.fields(RuleConfig):
        default = getattr(RuleConfig(), f.name)
        props[f.name] = {"enum": list(RULE_CHOICES[f.name])} if f.name in RULE_CHOICES else {"type": "boolean"}
        props[f.name]["default"] = default
    return object_of(props)


def project_schema(cards: dict[str, Any]) -> dict[str, Any]:
    """A project (R6.1) with its cards as ``cards`` (names in a view, ids in a saved hand)."""
    return object_of(
        {
            "kind": {"enum": list(PROJECT_VALUES)},
            "run": {"type": "boolean"},
            "top": {"type": "integer", "minimum": 0, "maximum": CARDS_PER_SEAT - 1},
            "cards": array_of(cards, 3, CARDS_PER_SEAT, unique=True),
        }
    )


def deal_schema() -> dict[str, Any]:
    """An R2.4 deal as ``Deal.to_dict()`` writes it (card ids; ``parse_deal`` checks that the 32
    cards are all there once each, which a schema cannot say)."""
    return object_of(
        {
            "dealer": SEAT,
            "hands": _per_seat(array_of(CARD_ID, FIRST_HAND_SIZE, FIRST_HAND_SIZE, unique=True)),
            "turned": CARD_ID,
            "stock": array_of(CARD_ID, 11, 11, unique=True),
        }
    )


def result_schema() -> dict[str, Any]:
    """A hand's result, ``HandResult.to_info()`` (R11.4, with the dealer)."""
    return object_of(
        {
            "contract": {"enum": [*CONTRACTS, None]},
            "trump": {"oneOf": [{"type": "null"}, {"type": "integer", "minimum": 0, "maximum": len(SUIT_NAMES) - 1}]},
            "caller": {"oneOf": [{"type": "null"}, SEAT]},  # null: thrown in (R3.5)
            "level": {"type": "integer", "minimum": 1},
            "raw": PAIR,
            "tricks": PAIR,
            "projects": array_of(array_of(COUNT), 2, 2),
            "baloot": PAIR,
            "kaboot": {"type": "boolean"},
            "callers_won": {"type": ["boolean", "null"]},
            "score": PAIR,
            "gahwa_winner": {"oneOf": [{"type": "null"}, {"type": "integer", "minimum": 0, "maximum": 1}]},
            "dealer": SEAT,
        }
    )


def view_schema() -> dict[str, Any]:
    """``PlayerView.to_struct()`` (``baloot_env.view_struct``): everything a seat may know, by names."""
    trick_play = object_of({"seat": SEAT, "card": CARD_NAME})
    trick = object_of({"leader": SEAT, "cards": array_of(CARD_NAME, NUM_SEATS, NUM_SEATS, unique=True), "winner": SEAT})
    return {
        "$schema": DIALECT,
        "title": f"A seat's view of a Baloot hand ({STRUCT_FORMAT})",
        **object_of(
            {
                "format": {"const": STRUCT_FORMAT},
                "seat": SEAT,
                "phase": {"enum": list(PHASES)},
                "to_act": SEAT_OR_NONE,
                "dealer": SEAT,
                "hand": _cards(CARDS_PER_SEAT),
                "full_hand": _cards(CARDS_PER_SEAT),
                "legal_actions": array_of(ACTION_NAME, 0, NUM_ACTIONS, unique=True),
                "turned": CARD_NAME,
                "bid_round": {"enum": [FIRST_ROUND, SECOND_ROUND]},
                "bids": array_of(
                    object_of({"round": {"enum": [FIRST_ROUND, SECOND_ROUND]}, "seat": SEAT, "call": CALL_NAME})
                ),
                "doubling": array_of(object_of({"seat": SEAT, "call": CALL_NAME})),
                "contract": {"enum": [*CONTRACTS, None]},
                "trump": {"oneOf": [{"type": "null"}, SUIT_NAME]},
                "caller": SEAT_OR_NONE,
                "level": {"type": "integer", "minimum": 1},
                "last_raiser": SEAT_OR_NONE,
                "trick": array_of(trick_play, 0, NUM_SEATS),
                "trick_winner": SEAT_OR_NONE,
                "tricks": array_of(trick, 0, TRICKS),
                "played_by": _per_seat(_cards(CARDS_PER_SEAT)),
                "voids": _per_seat(array_of(SUIT_NAME, 0, len(SUIT_NAMES), unique=True)),
                "no_trumps": _per_seat(_cards(CARDS_PER_SEAT)),
                "projects": _per_seat(array_of(project_schema(CARD_NAME))),
                "baloot_seat": SEAT_OR_NONE,
                "baloot_announced": {"type": "boolean"},
                "tricks_won": PAIR,
                "raw": PAIR,
                "rules": rules_schema(),
                "match": object_of(
                    {
                        "mode": {"enum": list(CONTEXT_MODES)},
                        "score": PAIR,
                        "deals_played": COUNT,
                        "hands_left": COUNT,
                    }
                ),
            }
        ),
    }


def hand_schema() -> dict[str, Any]:
    """``HandState.to_json()`` (``baloot_env.hand_io``). The snapshot's fields are named and typed
    loosely (numbers, lists): restoring replays ``history`` by the rules and compares the snapshot
    with the replay, which is the real check."""
    snapshot_fields = [name for name in STATE_FIELDS if name not in OUTSIDE_SNAPSHOT]
    loose = {"type": ["integer", "string", "boolean", "array", "object", "null"]}
    snapshot = object_of({name: loose for name in snapshot_fields})
    snapshot["properties"]["result"] = {"oneOf": [{"type": "null"}, result_schema()]}
    snapshot["properties"]["phase"] = {"enum": list(PHASES)}
    snapshot["properties"]["history"] = array_of(ACTION_ID)
    props = {
        "format": {"const": STATE_FORMAT},
        "rules": rules_schema(),
        "deal": deal_schema(),
        "match_score": PAIR,
        "history": array_of(ACTION_ID),
        "snapshot": snapshot,
    }
    assert list(props) == list(SAVED_FIELDS)  # the saved form's fields, in its order
    return {"$schema": DIALECT, "title": f"A saved Baloot hand ({STATE_FORMAT})", **object_of(props)}


SCHEMAS = {"view": view_schema, "hand": hand_schema}


def schema_text(schema: dict[str, Any]) -> str:
    """The committed form of a schema: indented JSON, keys in the order built, a final newline."""
    return json.dumps(schema, indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m baloot_env.schema", description="Write the engine's JSON schemas.")
    p.add_argument("--out", required=True, help="a folder: NAME.schema.json for each of " + ", ".join(SCHEMAS))
    args = p.parse_args(argv)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"error: --out {args.out!r} is not a folder", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    for name, build in SCHEMAS.items():
        (out / f"{name}.schema.json").write_text(schema_text(build()), encoding="utf-8")
    print(f"wrote {', '.join(f'{n}.schema.json' for n in SCHEMAS)} to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

__all__ = [
    "ACTION_ID",
    "COUNT",
    "DIALECT",
    "PAIR",
    "SCHEMAS",
    "SEAT",
    "array_of",
    "deal_schema",
    "hand_schema",
    "object_of",
    "result_schema",
    "rules_schema",
    "schema_text",
    "view_schema",
]
