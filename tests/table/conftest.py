"""Shared by the table's tests: a small league report, as ``python -m eval league --json``
writes it, for the leaderboard."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="session")
def league_report(tmp_path_factory) -> str:
    """``random`` and ``heuristic`` on the first 6 deals of dev960, with their timing."""
    from eval.deals import load_named
    from eval.league import league

    deals = load_named("dev960")
    rep = league(["random", "heuristic"], deals.head(6), deals.checksum, time_positions=5)
    path = tmp_path_factory.mktemp("league") / "league.json"
    path.write_text(json.dumps(rep))
    return str(path)
