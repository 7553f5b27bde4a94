"""``python -m table export``: people's games as a deal set ``python -m eval`` plays and a game
record the replays read, with who was a person."""

from __future__ import annotations

import json

import pytest

from eval.deals import load
from table.__main__ import main
from table.replay import frames
from table.store import Store
from tests.table.test_table_replay import played_hand


@pytest.fixture
def db(tmp_path):
    store = Store(tmp_path / "club.sqlite")
    for seed in (3, 4, 5):
        hand = played_hand(seed)
        meta = {
            "names": ["Noura", "b1", "Lana", "b3"],
            "seats": [{"kind": k} for k in ("person", "bot", "person", "bot")],
        }
        store.add_hand({**hand, "room": "r1", "number": seed, "meta": meta}, "live")
    store.add_hand({**played_hand(6), "meta": {}}, "eval")
    return tmp_path / "club.sqlite"


def test_the_export_is_a_deal_set_and_its_games_replay(db, tmp_path, capsys):
    out = tmp_path / "people.json"
    assert main(["export", "--db", str(db), "--out", str(out)]) == 0
    assert "3 hands" in capsys.readouterr().out
    deal_set = load(out)  # the deal set's own checks: format, deals (R2.4), checksum
    data = json.loads(out.read_text())
    assert len(deal_set.deals) == len(data["games"]) == 3
    stored = Store(db).hands(source="live")
    for game, hand, deal in zip(data["games"], stored, deal_set.deals, strict=True):
        assert game["humans"] == [0, 2] and game["actions"] == hand["actions"]
        assert deal.to_dict() == hand["deal"]
        last = frames(game)[-1]  # the replay reads a game as it reads a stored hand
        assert last["result"]["score"] == hand["result"]["score"]
    assert main(["export", "--db", str(db), "--out", str(out), "--source", "all"]) == 0
    assert len(load(out).deals) == 4


def test_the_eval_cli_plays_the_exported_deals(db, tmp_path):
    from eval.__main__ import main as eval_main

    out = tmp_path / "people.json"
    assert main(["export", "--db", str(db), "--out", str(out)]) == 0
    report = tmp_path / "r.json"
    assert (
        eval_main(
            [
                "--a",
                "heuristic",
                "--b",
                "random",
                "--deal-set",
                str(out),
                "--workers",
                "1",
                "--no-matches",
                "--json",
                str(report),
            ]
        )
        == 0
    )
    assert json.loads(report.read_text())["deals"] == 3


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--db", "{tmp}/none.sqlite", "--out", "{tmp}/o.json"], "is not a file"),
        (["--db", "{db}", "--out", "{db}"], "the database itself"),
        (["--db", "{tmp}/empty.sqlite", "--out", "{tmp}/o.json"], "nothing to export"),
        (["--db", "{db}", "--out", "{tmp}/o.json", "--source", "x"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_and_nothing_is_written(db, tmp_path, capsys, args, says):
    Store(tmp_path / "empty.sqlite")
    before = Store(db).hands(limit=100)
    argv = ["export"] + [a.format(tmp=tmp_path, db=db) for a in args]
    try:
        rc = main(argv)
    except SystemExit as e:  # argparse's own refusals (one line too)
        rc = e.code
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1
    assert not (tmp_path / "o.json").exists() and Store(db).hands(limit=100) == before


@pytest.mark.parametrize("kind", ["a deal set of one's own", "notes", "an empty file"])
def test_an_export_never_replaces_a_file_that_is_not_an_earlier_export(db, tmp_path, capsys, kind):
    """Issue 46's probe: ``--out`` onto a deal set replaced it. Only an earlier export may be
    replaced (the test above re-exports over one); any other file is one line, exit 2, untouched."""
    from eval.deals import load_named, save

    target = tmp_path / "mine.json"
    if kind == "a deal set of one's own":
        save(load_named("dev960").head(4), target)
    else:
        target.write_text("my notes\n" if kind == "notes" else "")
    before = target.read_bytes()
    assert main(["export", "--db", str(db), "--out", str(target)]) == 2
    err = capsys.readouterr().err.strip()
    assert "not an earlier export" in err and len(err.splitlines()) == 1
    assert target.read_bytes() == before


def test_an_export_validates_against_its_schema_and_the_committed_schema_is_current(db, tmp_path, capsys):
    """Issue 47, goal 3: the hand trace as the table exports it has a JSON schema, built from the
    engine's (``docs/schemas/export.schema.json``); real exports validate, broken ones do not."""
    import copy
    from pathlib import Path

    from jsonschema import Draft202012Validator

    from table.export import export_schema

    schema = export_schema()
    Draft202012Validator.check_schema(schema)
    committed = Path(__file__).resolve().parents[2] / "docs" / "schemas" / "export.schema.json"
    assert committed.read_text(encoding="utf-8") == json.dumps(schema, indent=2) + "\n", (
        f"{committed} is stale: run python -m table export --schema {committed}"
    )
    out = tmp_path / "all.json"
    assert main(["export", "--db", str(db), "--out", str(out), "--source", "all"]) == 0
    data = json.loads(out.read_text())
    check = Draft202012Validator(schema)
    check.validate(data)
    breaks = [
        lambda d: d["games"][0]["actions"][0].__setitem__(1, 42),  # not an action (R9)
        lambda d: d["games"][0]["actions"][0].append("extra"),
        lambda d: d["games"][0].pop("result"),
        lambda d: d["games"][0]["result"].update(score=[1]),
        lambda d: d.update(checksum="not hex"),
        lambda d: d["games"][1]["deal"].update(turned=32),
    ]
    for brk in breaks:
        broken = copy.deepcopy(data)
        brk(broken)
        assert not check.is_valid(broken)
