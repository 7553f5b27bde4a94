"""The score sheet: each hand scored by R7 (through ``score_hand``), running totals and the end
of the match by R8, who deals next (R2.1, V9), edit/delete/undo with everything recomputed."""

from __future__ import annotations

import pytest

from baloot_env.rules import RuleConfig
from baloot_env.scoring import score_hand
from table.scoresheet import ScoreSheets, SheetError, check_entry
from table.store import Store


@pytest.fixture
def sheets(tmp_path) -> ScoreSheets:
    return ScoreSheets(Store(tmp_path / "sheets.sqlite"))


def hokum(caller=0, raw0=100, level=1, **kw) -> dict:
    return {"contract": "hokum", "caller": caller, "level": level, "raw": [raw0, 162 - raw0], **kw}


def sun(caller=0, raw0=70, **kw) -> dict:
    return {"contract": "sun", "caller": caller, "level": 1, "raw": [raw0, 130 - raw0], **kw}


def test_a_row_scores_as_score_hand_does(sheets):
    sid = sheets.create()
    entry = hokum(caller=1, raw0=90, projects=[[], [5, 2]], baloot=[0, 2])
    sheets.add(sid, entry)
    want = score_hand("hokum", 1, 1, [90, 72], (4, 4), [[], [5, 2]], [0, 2])
    row = sheets.get(sid)["rows"][0]
    assert row["score"] == list(want.score) and row["callers_won"] == want.callers_won
    # R7.5 worked by hand: the callers (team 1) have 7 + 7 + 2 = 16 against 9: they win, each scores its own
    assert row["score"] == [9, 7 + 7 + 2]


def test_kaboot_and_doubled_hands(sheets):
    sid = sheets.create()
    sheets.add(sid, {"contract": "sun", "caller": 0, "kaboot": 0})  # R7.6: raw filled in
    sheets.add(sid, hokum(caller=0, raw0=40, level=2))  # R7.7: the defenders win 16 x 2
    rows = sheets.get(sid)["rows"]
    assert rows[0]["entry"]["raw"] == [130, 0] and rows[0]["score"] == [44, 0] and rows[0]["kaboot"]
    assert rows[1]["score"] == [0, 32]


def test_running_totals_end_the_match_at_152_and_later_rows_are_refused(sheets):
    sid = sheets.create()
    totals = []
    while sheets.get(sid)["result"] is None:
        sheets.add(sid, sun(caller=0, raw0=100))  # 20 + 0 projects: team 0 scores 20, team 1 6
        totals.append(sheets.get(sid)["totals"])
    got = sheets.get(sid)
    assert got["result"] == {"winner": 0, "score": got["totals"], "reason": "target"}
    assert got["totals"][0] >= 152 and totals[-2][0] < 152
    assert got["next_dealer"] is None
    with pytest.raises(SheetError, match="over"):
        sheets.add(sid, sun())


def test_hands_mode_counts_scored_hands_not_thrown_in_deals(sheets):
    sid = sheets.create({"match": "hands", "hands": 5})
    for _ in range(4):
        sheets.add(sid, hokum())
    sheets.add(sid, {"contract": None})  # thrown in (R3.5): not counted (R8.2)
    assert sheets.get(sid)["result"] is None and sheets.get(sid)["hands_scored"] == 4
    sheets.add(sid, hokum())
    got = sheets.get(sid)
    assert got["result"]["reason"] == "hands" and got["deals_played"] == 6


@pytest.mark.parametrize(("rotation", "dealers"), [("left", [2, 1, 0, 3, 2]), ("right", [2, 3, 0, 1, 2])])
def test_who_deals_next(sheets, rotation, dealers):
    sid = sheets.create({"deal_rotation": rotation}, first_dealer=2)
    seen = []
    for i in range(4):
        sheets.add(sid, {"contract": None} if i == 1 else hokum(raw0=81))  # a thrown-in deal moves the deal too
        got = sheets.get(sid)
        seen.append(got["rows"][-1]["dealer"])
    assert seen + [got["next_dealer"]] == dealers


def test_edit_delete_and_undo_recompute_everything_after(sheets):
    sid = sheets.create()
    a = sheets.add(sid, hokum(caller=0, raw0=120))  # team 0 scores 12, team 1 4
    sheets.add(sid, hokum(caller=1, raw0=20, level=5))  # gahwa won by team 1: exactly what takes it to 152 (R8.3)
    got = sheets.get(sid)
    assert got["rows"][1]["score"] == [0, 152 - 4] and got["result"]["winner"] == 1
    sheets.edit(sid, a, hokum(caller=0, raw0=40))  # team 0 loses: team 1 takes 16 (R7.5)
    got = sheets.get(sid)
    assert got["rows"][0]["score"] == [0, 16] and got["rows"][1]["score"] == [0, 152 - 16]
    sheets.delete(sid, a)
    got = sheets.get(sid)
    assert len(got["rows"]) == 1 and got["rows"][0]["score"] == [0, 152]
    assert sheets.undo(sid) == "delete" and sheets.get(sid)["rows"][1]["score"] == [0, 136]
    assert sheets.undo(sid) == "edit" and sheets.get(sid)["rows"][0]["score"] == [12, 4]
    assert sheets.undo(sid) == "add" and len(sheets.get(sid)["rows"]) == 1
    assert sheets.undo(sid) == "add" and sheets.get(sid)["rows"] == []
    assert sheets.undo(sid) is None


def test_an_edit_that_ends_the_match_earlier_marks_the_later_rows(sheets):
    sid = sheets.create()
    a = sheets.add(sid, hokum())
    sheets.add(sid, hokum())
    sheets.edit(sid, a, hokum(caller=0, raw0=100, level=5))  # gahwa in the first hand ends the match
    rows = sheets.get(sid)["rows"]
    assert rows[0]["score"] == [152, 0] and rows[1]["after_end"] and rows[1]["score"] is None


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ({"contract": "hokum", "caller": 0, "raw": [100, 61]}, "add up to 162"),
        ({"contract": "sun", "caller": 0, "level": 2, "raw": [65, 65]}, "level must be 1 to 1"),
        ({"contract": "hokum", "caller": 2, "raw": [81, 81]}, "caller must be a team"),
        ({"contract": "hokum", "caller": 0, "raw": [81, 81], "projects": [[2], [5]]}, "only the team"),
        ({"contract": "hokum", "caller": 0, "raw": [81, 81], "projects": [[4], []]}, "one of [2, 5, 10]"),
        ({"contract": "sun", "caller": 0, "raw": [65, 65], "baloot": [2, 0]}, "only in hokum"),
        ({"contract": "hokum", "caller": 0, "raw": [81, 81], "baloot": [2, 2]}, "one player holds it"),
        ({"contract": "hokum", "caller": 0, "raw": [80, 82], "kaboot": 0}, "no raw points"),
        ({"contract": "hokum", "caller": 0, "raw": [81, 81], "notes": "x"}, "unknown entry fields"),
        ({"contract": "trump", "caller": 0}, "contract must be"),
        ("hokum", "an entry is an object"),
    ],
)
def test_bad_entries_are_refused_by_name(entry, words):
    with pytest.raises(SheetError) as e:
        check_entry(entry, RuleConfig())
    assert words in str(e.value)


def test_variants_change_what_an_entry_may_hold():
    with pytest.raises(SheetError, match="1 to 1"):
        check_entry(hokum(level=2), RuleConfig(doubling=False))  # V3
    assert check_entry(sun(**{"level": 2}), RuleConfig(sun_double=True))["level"] == 2  # V1
    with pytest.raises(SheetError, match="switched off"):
        check_entry(hokum(projects=[[2], []]), RuleConfig(projects=False))  # V2


def test_sheet_settings_are_checked(sheets):
    with pytest.raises(SheetError, match="rules"):
        sheets.create({"match": "forever"})
    with pytest.raises(SheetError, match="seat"):
        sheets.create(first_dealer=4)
    with pytest.raises(KeyError):
        sheets.get("no-such-sheet")
    sid = sheets.create()
    with pytest.raises(KeyError):
        sheets.edit(sid, 12345, hokum())


def test_the_score_sheet_api(tmp_path):
    pytest.importorskip("fastapi", reason="the table server needs the 'table' extra")
    from table.server import create_app
    from table.testing import get, post, serve

    with serve(create_app(tmp_path / "t.sqlite", default_agent="heuristic")) as s:
        status, sheet = post(s.url + "/api/sheets", {"teams": ["Lana", "Lahum"], "first_dealer": 1})
        assert status == 200 and sheet["next_dealer"] == 1
        sid = sheet["id"]
        status, got = post(f"{s.url}/api/sheets/{sid}/rows", hokum(raw0=120))
        assert status == 200 and got["totals"] == [12, 4] and got["next_dealer"] == 0
        status, err = post(f"{s.url}/api/sheets/{sid}/rows", {"contract": "hokum", "caller": 0, "raw": [1, 1]})
        assert status == 400 and "162" in err["error"]
        row = got["rows"][0]["id"]
        status, got = post(f"{s.url}/api/sheets/{sid}/rows/{row}", hokum(raw0=40), method="PUT")
        assert status == 200 and got["totals"] == [0, 16]
        status, got = post(f"{s.url}/api/sheets/{sid}/undo")
        assert got["undone"] == "edit" and got["totals"] == [12, 4]
        status, got = post(f"{s.url}/api/sheets/{sid}/rows/{row}", method="DELETE")
        assert status == 200 and got["rows"] == []
        assert get(f"{s.url}/api/sheets/nope")[0] == 404


@pytest.mark.parametrize(
    ("contract", "kinds", "points"),
    [
        ("hokum", ["sira", "fifty"], [2, 5]),  # R6.1 in Hokum: 2, 5, 10 and 10
        ("hokum", ["hundred", "four_hundred"], [10, 10]),
        ("sun", ["sira", "fifty", "hundred", "four_hundred"], [4, 10, 20, 40]),  # doubled in Sun
    ],
)
def test_projects_may_be_given_by_kind_and_the_contract_values_them(contract, kinds, points):
    """Players call projects by name (the page turns 20, 50, 100, 400 into these names); the
    sheet stores them in game points by R6.1, as if typed as values."""
    make = hokum if contract == "hokum" else sun
    entry = check_entry(make(projects=[kinds, []]), RuleConfig())
    assert entry["projects"] == [points, []]
    assert entry == check_entry(make(projects=[points, []]), RuleConfig())
    with pytest.raises(SheetError, match="project is worth one of"):
        check_entry(make(projects=[["eighty"], []]), RuleConfig())
