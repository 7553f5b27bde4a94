"""The table server's database: one SQLite file holding rooms, seats, hands and score sheets.

Tables (``SCHEMA``):

- ``rooms``: one row per live table, with its saved state (``Room.to_data``: the match, the
  hand, the club's clocks, R10.4) rewritten after every change, and whether it is finished;
- ``seats``: who sits where (name, person or bot, the agent), for listing and queries;
- ``hands``: every finished hand: its deal (R2.4), rules, the match score before it, every
  action with its time and who made it, its result (R11.4), where it came from (``live`` or
  ``eval``) and free ``meta`` (an evaluation's deal index and score difference);
- ``sheets``, ``sheet_rows``, ``sheet_log``: score sheets (``table.scoresheet``), their rows
  and the log that undo walks back;
- ``ladder_refs``: the leaderboard's reference score of each hand a person played
  (``table.leaderboard``; null when the hand could not be replayed);
- ``alive``: the server's heartbeat, the wall time it was last known running (R10.4: a
  restarted server charges a running turn clock the time up to it, not the time it was down).

The hands, and the connection, are ``baloot_io.hands_db.HandsDB``'s (``python -m eval
--save-hands`` writes that part of the same file); the rest is the table's. Standard library only.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from baloot_io.hands_db import HandsDB

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    room TEXT NOT NULL,
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,
    agent TEXT NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (room, seat)
);
CREATE TABLE IF NOT EXISTS sheets (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sheet_rows (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sheet TEXT NOT NULL,
    position REAL NOT NULL,
    entry TEXT NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS sheet_rows_sheet ON sheet_rows (sheet, position);
CREATE TABLE IF NOT EXISTS sheet_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    sheet TEXT NOT NULL,
    row INTEGER NOT NULL,
    op TEXT NOT NULL,
    before TEXT,
    undone INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS alive (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    wall REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS ladder_refs (
    hand INTEGER PRIMARY KEY,
    reference TEXT NOT NULL,
    score TEXT
);
"""


class Store(HandsDB):
    """The table server's database at ``path`` (created with its tables when missing;
    ``":memory:"`` works): the hands (``baloot_io.hands_db``) and the tables above."""

    def __init__(self, path: str | Path):
        super().__init__(path, SCHEMA)

    # ------------------------------------------------------------------ rooms and seats
    def save_room(
        self, room_id: str, state: dict[str, Any], finished: bool, seats: list[dict[str, Any]] | None = None
    ) -> None:
        """Insert or replace a room's saved state (and its seats, when given)."""
        now = time.time()
        with self._tx() as db:
            db.execute(
                "INSERT INTO rooms (id, created, updated, finished, state) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET updated=excluded.updated, finished=excluded.finished, "
                "state=excluded.state",
                (room_id, now, now, int(finished), json.dumps(state)),
            )
            for seat, s in enumerate(seats or []):
                db.execute(
                    "INSERT OR REPLACE INTO seats (room, seat, kind, agent, name) VALUES (?, ?, ?, ?, ?)",
                    (room_id, seat, s["kind"], s["agent"], s["name"]),
                )

    def beat(self, wall: float) -> None:
        """The server is running at ``wall`` (its heartbeat)."""
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO alive (id, wall) VALUES (0, ?)", (wall,))

    def last_beat(self) -> float | None:
        """The wall time of the last heartbeat (None before the first)."""
        rows = self._read("SELECT wall FROM alive WHERE id = 0")
        return float(rows[0]["wall"]) if rows else None

    def load_room(self, room_id: str) -> dict[str, Any] | None:
        rows = self._read("SELECT state FROM rooms WHERE id = ?", (room_id,))
        return json.loads(rows[0]["state"]) if rows else None

    def live_rooms(self) -> list[dict[str, Any]]:
        """Saved states of every room not finished (to resume after a restart, R10.4)."""
        return [
            json.loads(r["state"]) for r in self._read("SELECT state FROM rooms WHERE finished = 0 ORDER BY created")
        ]

    def seats(self, room_id: str) -> list[dict[str, Any]]:
        return [dict(r) for r in self._read("SELECT * FROM seats WHERE room = ? ORDER BY seat", (room_id,))]

    # ------------------------------------------------------------------ the leaderboard
    def live_hands_unreferenced(self, limit: int) -> list[dict[str, Any]]:
        """Live hands without a leaderboard reference yet, oldest first (at most ``limit``)."""
        rows = self._read(
            "SELECT * FROM hands WHERE source = 'live' AND id NOT IN (SELECT hand FROM ladder_refs) ORDER BY id LIMIT ?",
            (limit,),
        )
        return [self._hand(r) for r in rows]

    def add_ladder_ref(self, hand_id: int, reference: str, score: list[int] | None) -> None:
        self._write(
            "INSERT OR REPLACE INTO ladder_refs (hand, reference, score) VALUES (?, ?, ?)",
            (hand_id, reference, None if score is None else json.dumps(score)),
        )

    def ladder_refs(self) -> dict[int, list[int]]:
        """Each scored hand's reference score (hands that could not be replayed left out)."""
        rows = self._read("SELECT hand, score FROM ladder_refs WHERE score IS NOT NULL")
        return {r["hand"]: json.loads(r["score"]) for r in rows}

    # ------------------------------------------------------------------ score sheets
    def add_sheet(self, sheet_id: str, config: dict[str, Any]) -> None:
        self._write(
            "INSERT INTO sheets (id, created, config) VALUES (?, ?, ?)", (sheet_id, time.time(), json.dumps(config))
        )

    def sheet_config(self, sheet_id: str) -> dict[str, Any] | None:
        rows = self._read("SELECT config FROM sheets WHERE id = ?", (sheet_id,))
        return json.loads(rows[0]["config"]) if rows else None

    def sheet_rows(self, sheet_id: str) -> list[dict[str, Any]]:
        """The sheet's rows not deleted, in order: ``{"id", "entry"}``."""
        rows = self._read(
            "SELECT id, entry FROM sheet_rows WHERE sheet = ? AND deleted = 0 ORDER BY position, id", (sheet_id,)
        )
        return [{"id": r["id"], "entry": json.loads(r["entry"])} for r in rows]

    def sheet_row(self, sheet_id: str, row_id: int) -> dict[str, Any] | None:
        rows = self._read("SELECT * FROM sheet_rows WHERE sheet = ? AND id = ?", (sheet_id, row_id))
        if not rows:
            return None
        r = dict(rows[0])
        r["entry"] = json.loads(r["entry"])
        return r

    def add_row(self, sheet_id: str, entry: dict[str, Any]) -> int:
        with self._tx():
            top = self.db.execute("SELECT MAX(position) FROM sheet_rows WHERE sheet = ?", (sheet_id,)).fetchone()[0]
            cur = self.db.execute(
                "INSERT INTO sheet_rows (sheet, position, entry) VALUES (?, ?, ?)",
                (sheet_id, (top or 0) + 1, json.dumps(entry)),
            )
            assert cur.lastrowid is not None  # set by the INSERT above
            row = cur.lastrowid
            self.db.execute(
                "INSERT INTO sheet_log (sheet, row, op, before) VALUES (?, ?, 'add', NULL)", (sheet_id, row)
            )
            return row

    def edit_row(self, sheet_id: str, row_id: int, entry: dict[str, Any]) -> None:
        with self._tx():
            old = self.db.execute("SELECT entry FROM sheet_rows WHERE id = ?", (row_id,)).fetchone()["entry"]
            self.db.execute("UPDATE sheet_rows SET entry = ? WHERE id = ?", (json.dumps(entry), row_id))
            self.db.execute(
                "INSERT INTO sheet_log (sheet, row, op, before) VALUES (?, ?, 'edit', ?)", (sheet_id, row_id, old)
            )

    def delete_row(self, sheet_id: str, row_id: int) -> None:
        with self._tx():
            self.db.execute("UPDATE sheet_rows SET deleted = 1 WHERE id = ?", (row_id,))
            self.db.execute(
                "INSERT INTO sheet_log (sheet, row, op, before) VALUES (?, ?, 'delete', NULL)", (sheet_id, row_id)
            )

    def undo(self, sheet_id: str) -> str | None:
        """Undo the sheet's last change not yet undone; returns its kind, or None when none is left."""
        with self._tx():
            last = self.db.execute(
                "SELECT * FROM sheet_log WHERE sheet = ? AND undone = 0 ORDER BY id DESC LIMIT 1", (sheet_id,)
            ).fetchone()
            if last is None:
                return None
            if last["op"] == "add":
                self.db.execute("UPDATE sheet_rows SET deleted = 1 WHERE id = ?", (last["row"],))
            elif last["op"] == "edit":
                self.db.execute("UPDATE sheet_rows SET entry = ? WHERE id = ?", (last["before"], last["row"]))
            else:
                self.db.execute("UPDATE sheet_rows SET deleted = 0 WHERE id = ?", (last["row"],))
            self.db.execute("UPDATE sheet_log SET undone = 1 WHERE id = ?", (last["id"],))
            return str(last["op"])
