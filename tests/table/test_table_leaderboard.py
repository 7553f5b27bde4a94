"""The leaderboard (``table.leaderboard``): a person's hand is scored against the same deal
played again with ``heuristic`` in their seat, and the agents' ladder is a checked league report.

The reference a person's hand is scored against is checked with an oracle outside the code
under test: a second room with the same seed and ``heuristic`` bots in every seat deals the
same first hand and plays it through the live table's own path, so its score is the
reference's.
"""

from __future__ import annotations

import json
import os
import socket

import pytest

from agents.registry import make_agent
from baloot_env.rules import RuleConfig
from baloot_env.seats import team_of
from baloot_env.view import PlayerView
from table.__main__ import main as table_main
from table.clocks import FakeClock
from table.leaderboard import Leaderboard, LeaderboardError, read_league
from table.room import Room, RoomConfig, SeatSpec
from table.store import Store


def play_hands(persons: dict[int, tuple[str, str]], seed: int, hands: int, rules: RuleConfig | None = None) -> list:
    """The first ``hands`` finished hands of a room whose ``persons`` (seat: (name, agent that
    plays for them)) sit with ``heuristic`` bots."""
    clock = FakeClock()
    seats = tuple(
        SeatSpec("person", "heuristic", persons[s][0]) if s in persons else SeatSpec("bot", "heuristic", f"b{s}")
        for s in range(4)
    )
    room = Room("r", RoomConfig(seats, rules or RuleConfig(), seed=seed, bot_delay=0.0, gather=0.0), clock.now())
    for s in persons:
        room.issue_token(s)
    for s, (name, _) in persons.items():
        room.names[s] = name
    room.start(clock.now())
    players = {s: make_agent(agent, 11) for s, (_, agent) in persons.items()}
    bot = make_agent("heuristic", 0)
    finished: list = []
    while len(finished) < hands and not room.over:
        seat = room.table.to_act
        view = PlayerView.from_table(room.table, seat)
        if seat in players:
            room.handle(seat, {"type": "act", "action": players[seat].act(view)}, clock.now())
        else:
            assert room.auto_due(clock.now()) == (seat, "bot")
            room.apply_auto(seat, bot.act(view), "bot", room.ply, clock.now())
        finished += room.pop_finished_hands()
    return finished


def diff(score: list[int], team: int) -> int:
    return score[team] - score[1 - team]


def test_a_persons_hand_is_scored_against_heuristic_in_their_seat(tmp_path):
    store = Store(tmp_path / "t.sqlite")
    reference = play_hands({}, seed=3, hands=1)[0]  # every seat heuristic: the oracle
    mine = play_hands({1: ("Noura", "random")}, seed=3, hands=1)[0]
    assert mine["deal"] == reference["deal"]
    store.add_hand(mine, "live")
    board = Leaderboard(store, None)
    assert board.update() is False
    (p,) = board.people()
    expected = diff(mine["result"]["score"], team_of(1)) - diff(reference["result"]["score"], team_of(1))
    assert expected != 0  # the random player did not play as heuristic: the test can tell the two apart
    assert p["name"] == "Noura" and p["hands"] == 1 and p["scored"] == 1 and p["mean_d"] == expected
    assert p["against"] == {"heuristic": 1}


def test_playing_as_the_reference_scores_zero_and_names_are_one_person_whatever_their_case(tmp_path):
    store = Store(tmp_path / "t.sqlite")
    for seed, name in ((3, "Lana"), (4, " lana")):
        store.add_hand(play_hands({0: (name, "heuristic"), 2: ("Sami", "random")}, seed=seed, hands=1)[0], "live")
    store.add_hand(play_hands({}, seed=5, hands=1)[0], "live")  # nobody's: not on the board
    board = Leaderboard(store, None)
    board.update()
    people = {p["name"].strip().casefold(): p for p in board.people()}
    assert set(people) == {"lana", "sami"}
    lana = people["lana"]  # her partner is random, so the hand is not heuristic's: both persons are replaced
    assert lana["hands"] == 2 and lana["name"] == " lana"
    assert lana["mean_d"] == people["sami"]["mean_d"]  # one team: one d per hand
    assert lana["ci95"] is not None and lana["ci95"][0] <= lana["mean_d"] <= lana["ci95"][1]


def test_playing_exactly_as_heuristic_scores_zero(tmp_path):
    store = Store(tmp_path / "t.sqlite")
    for seed in (3, 4):
        store.add_hand(play_hands({3: ("Omar", "heuristic")}, seed=seed, hands=1)[0], "live")
    board = Leaderboard(store, None)
    board.update()
    (p,) = board.people()
    assert p["scored"] == 2 and p["mean_d"] == 0


def test_a_finished_match_counts_on_its_last_hand(tmp_path):
    store = Store(tmp_path / "t.sqlite")
    hands = play_hands({0: ("Reem", "heuristic")}, seed=8, hands=99, rules=RuleConfig(match="hands", hands=5))
    assert [h["meta"]["match_result"] is not None for h in hands] == [False] * (len(hands) - 1) + [True]
    for h in hands:
        store.add_hand(h, "live")
    board = Leaderboard(store, None)
    board.update(limit=2)  # a few at a time: the rest at the next request
    assert board.update(limit=2) is True
    while board.update(limit=2):
        pass
    (p,) = board.people()
    winner = hands[-1]["meta"]["match_result"]["winner"]
    assert p["matches"] == 1 and p["won"] == (winner == 0) and p["scored"] == p["hands"] == len(hands)


def test_hands_are_replayed_once(tmp_path):
    store = Store(tmp_path / "t.sqlite")
    store.add_hand(play_hands({1: ("A", "random")}, seed=3, hands=1)[0], "live")
    board = Leaderboard(store, None)
    board.update()
    first = board.people()
    board.agents.clear()
    board.agents["heuristic"] = None  # type: ignore[assignment]  # a replay now would fail loudly
    assert board.update() is False and board.people() == first


# ---------------------------------------------------------------------------------------- the agents' ladder
def test_a_league_report_is_shown_best_first(league_report):
    report = league_report
    board = read_league(report)
    raw = json.loads(open(report).read())
    assert [r["agent"] for r in board["ranking"]] == [r["agent"] for r in raw["ranking"]]
    assert board["ranking"][0]["elo"] >= board["ranking"][1]["elo"]
    assert board["mean"] == raw["mean"] and board["deals"] == 6
    assert all(r["median_ms"] is not None and r["median_ms"] > 0 for r in board["ranking"])


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.pop("mean"),
        lambda r: r.update(mean=[[0.0]]),
        lambda r: r.update(elo=[1500.0]),
        lambda r: r.update(agents=["random"], labels=["random"], elo=[1.0], mean=[[0.0]]),
    ],
)
def test_a_broken_league_report_is_refused(league_report, tmp_path, change):
    rep = json.loads(open(league_report).read())
    change(rep)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rep))
    with pytest.raises(LeaderboardError):
        read_league(bad)


def test_a_bad_league_file_gets_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"agents": ')
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for path in (bad, fifo, tmp_path / "missing.json"):
        db = tmp_path / f"db-{path.name}.sqlite"
        code = table_main(["--port", str(port), "--db", str(db), "--default", "heuristic", "--league", str(path)])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and "league" in err and str(path) in err
        assert not db.exists()  # refused before the database is made
