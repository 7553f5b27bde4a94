"""``python -m eval --save-hands``: an evaluation's worst deals stored for the replay viewer."""

from __future__ import annotations

import json
import sqlite3

import pytest

pytest.importorskip("fastapi")

from baloot_env.deal import parse_deal  # noqa: E402
from eval.__main__ import main  # noqa: E402
from eval.deals import load_named  # noqa: E402


def test_the_worst_deals_are_stored_for_replay(tmp_path):
    db, report = tmp_path / "hands.sqlite", tmp_path / "r.json"
    code = main(
        [
            "--a",
            "random",
            "--b",
            "heuristic",
            "--deal-set",
            "small",
            "--deals",
            "8",
            "--no-matches",
            "--quiet",
            "--json",
            str(report),
            "--save-hands",
            str(db),
            "--save-worst",
            "3",
        ]
    )
    assert code == 0
    rows = sqlite3.connect(db).execute("select deal from hands").fetchall()
    assert len(rows) == 6  # two tables for each of the three worst deals
    d = json.loads(report.read_text())["d"]
    worst = sorted(range(len(d)), key=lambda i: d[i])[:3]
    assert d[worst[-1]] < sorted(d)[3]  # no tie at the cut on these deals, so the three are well defined
    deals = load_named("small").head(8).deals
    canon = lambda x: json.dumps(x, sort_keys=True)  # noqa: E731
    stored = {canon(parse_deal(json.loads(r[0])).to_dict()) for r in rows}
    assert stored == {canon(deals[i].to_dict()) for i in worst}


def test_save_worst_without_save_hands_is_refused_before_any_work(tmp_path, capsys):
    assert main(["--a", "random", "--b", "heuristic", "--deals", "8", "--save-worst", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--save-worst" in err[0]
