"""People's games as data: ``python -m table export --db DB --out FILE``.

Writes every finished hand of the table's database (``table.store``; by default the live
tables', where people played) as one file that is both

- a **deal set** (``eval.deals``, format ``baloot-deal-set-1``, with its checksum): ``python -m
  eval --deal-set FILE`` plays the people's deals in duplicate between any two agents; and
- a **game record**: ``games``, in the deal set's order, each a stored hand as the replays read
  it (``table.replay.frames``): its rules, the match score before it, every action as ``[seat,
  action, seconds into the hand, by]`` (``person``, ``timeout``, ``standin``, ``bot``), the
  result, the players' names and which seats were people (``humans``).

``python -m table export --schema docs/schemas/export.schema.json`` writes the export's JSON
schema (``export_schema``, built from the engine's schemas).

Bad input (a database that is not one, nothing to export, an output that would overwrite the
database or a file that is not an earlier export, such as a deal set of one's own): one line,
exit code 2, before anything is written.
"""

from __future__ import annotations

import json
import os
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from agents.shipped import shipped_policies
from baloot_cli import InputError, OneLineParser, check_database, check_output, check_output_path
from baloot_env.cards import NUM_SEATS
from baloot_env.deal import parse_deal
from baloot_env.schema import (
    ACTION_ID,
    COUNT,
    DIALECT,
    PAIR,
    SEAT,
    array_of,
    deal_schema,
    object_of,
    result_schema,
    rules_schema,
    schema_text,
)
from baloot_io.atomic import write_text_atomic
from baloot_io.reading import InputFileError, parse_json, read_text_checked
from eval.deals import FORMAT as DEAL_SET_FORMAT
from eval.deals import DealSet, checksum_of, role_of
from eval.games import humans_of
from table.store import Store

SOURCES = ("live", "eval", "all")
MAX_HANDS = 1_000_000
MAX_EXPORT_BYTES = 1 << 30  # an earlier export read to tell it from other files: 1 GiB at most


def export_games(db: str | os.PathLike[str], out: str | os.PathLike[str], source: str = "live") -> int:
    """Write the finished hands of ``db`` (of ``source``) to ``out``; returns how many.

    Raises:
        InputError: nothing to export.
    """
    hands = Store(Path(db)).hands(source=None if source == "all" else source, limit=MAX_HANDS)
    if not hands:
        raise InputError(f"no finished hands of source {source!r} in {str(db)!r}: nothing to export")
    deals = tuple(parse_deal(h["deal"]) for h in hands)
    deal_set = DealSet(f"table:{Path(db).stem}", None, deals, checksum_of(deals), role_of(deals))
    data = deal_set.to_json()
    data["games"] = [
        {
            "id": h["id"],
            "source": h["source"],
            "room": h["room"],
            "number": h["number"],
            "deal": h["deal"],
            "rules": h["rules"],
            "match_score": h["match_score"],
            "actions": h["actions"],
            "result": h["result"],
            "humans": humans_of(h),
            "meta": h["meta"],
        }
        for h in hands
    ]
    write_text_atomic(out, json.dumps(data, separators=(",", ":")) + "\n")
    return len(hands)


def is_export(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` holds an earlier export (a deal set with its ``games``), which a new one
    may replace; any other file (a deal set of one's own, notes) is never written over."""
    try:
        data = parse_json(read_text_checked(path, "--out", MAX_EXPORT_BYTES), "--out")
    except (InputFileError, ValueError):  # not readable as JSON (a ValueError): not an export
        return False
    return isinstance(data, dict) and data.get("format") == DEAL_SET_FORMAT and isinstance(data.get("games"), list)


def export_schema() -> dict[str, Any]:
    """The JSON schema (draft 2020-12) of an export: a deal set (``eval.deals``) with its games,
    each a stored hand as the replays read it, built from the engine's pieces
    (``baloot_env.schema``); committed as ``docs/schemas/export.schema.json``."""
    action = {
        "type": "array",
        "prefixItems": [SEAT, ACTION_ID, {"type": ["number", "null"], "minimum": 0}, {"type": "string"}],
        "minItems": 4,
        "maxItems": 4,
    }  # [seat, action, seconds into the hand (null without a clock), by]
    game = object_of(
        {
            "id": {"type": "integer", "minimum": 1},
            "source": {"enum": ["live", "eval"]},
            "room": {"type": ["string", "null"]},
            "number": {"type": ["integer", "null"]},
            "deal": deal_schema(),
            "rules": rules_schema(),
            "match_score": PAIR,
            "actions": array_of(action),
            "result": result_schema(),
            "humans": array_of(SEAT, 0, NUM_SEATS, unique=True),
            "meta": {"type": "object"},
        }
    )
    sets = object_of(
        {
            "format": {"const": DEAL_SET_FORMAT},
            "name": {"type": "string"},
            "seed": {"type": ["integer", "null"]},
            "count": COUNT,
            "checksum": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "deals": array_of(deal_schema()),
            "games": array_of(game),
        }
    )
    return {"$schema": DIALECT, "title": "People's games as data (python -m table export)", **sets}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--schema"]:  # the export's JSON schema, not an export
        return write_schema(argv[1:])
    p = OneLineParser(
        prog="python -m table export", description="Write the table's finished hands as a deal set with their games."
    )
    p.add_argument("--db", required=True, help="the table's SQLite database")
    p.add_argument("--out", required=True, help="the file to write (a deal set with its games)")
    p.add_argument("--source", default="live", choices=SOURCES, help="live tables (default), eval hands, or all")
    args = p.parse_args(argv)
    try:
        if not Path(args.db).is_file():
            raise InputError(f"--db {args.db!r} is not a file (a table's database)")
        check_database(args.db, "--db")
        if Path(args.out).resolve() == Path(args.db).resolve():
            raise InputError("--out is the database itself: choose another file")
        deal_sets = str(resources.files("eval") / "deals")  # the committed deal sets are never written
        check_output(args.out, "--out", [("--db", args.db)], [shipped_policies(), deal_sets])
        if os.path.lexists(args.out) and not is_export(args.out):
            raise InputError(f"--out {args.out!r} is a file that is not an earlier export; it is left as it is")
        n = export_games(args.db, args.out, args.source)
    except InputError as e:
        print(f"python -m table export: error: {e}", file=sys.stderr)
        return 2
    print(f"{n:,} hands -> {args.out} (python -m eval --deal-set {args.out} plays their deals)")
    return 0


def write_schema(argv: list[str]) -> int:
    """``python -m table export --schema FILE``: write ``export_schema()`` to FILE."""
    p = OneLineParser(prog="python -m table export --schema", description="Write the export's JSON schema.")
    p.add_argument("path", help="the schema file to write (docs/schemas/export.schema.json)")
    args = p.parse_args(argv)
    try:
        check_output_path(args.path, "--schema")
    except InputError as e:
        print(f"python -m table export: error: {e}", file=sys.stderr)
        return 2
    write_text_atomic(args.path, schema_text(export_schema()))
    print(f"wrote {args.path}")
    return 0
