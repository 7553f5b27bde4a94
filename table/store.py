"""The table server's database: one SQLite file holding rooms, seats, hands and score sheets.

Tables (``SCHEMA``):

- ``rooms``: one row per live table, with its saved state (``Room.to_data``: the match, the
  hand, the club's clocks, R10.4) rewritten after every change, and whether it is finished;
- ``seats``: who sits where (name, person or bot, the agent), for listing and queries;
- ``hands``: every finished hand: its deal (R2.4), rules, the match score before it, every
  action with its time and who made it, its result (R11.4), where it came from (``live`` or
  ``eval``) and free ``meta`` (an evaluation's deal index and score difference);
- ``sheets``, ``sheet_rows``, ``sheet_log``: score sheets (``table.scoresheet``), their rows
  and the log that undo walks back.

Plain ``sqlite3`` in WAL mode; one connection per ``Store``, used from one thread at a time (the
server's event loop; a lock guards the rare use from another thread). Standard library only.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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
CREATE TABLE IF NOT EXISTS hands (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source TEXT NOT NULL,
    room TEXT,
    number INTEGER,
    deal TEXT NOT NULL,
    rules TEXT NOT NULL,
    match_score TEXT NOT NULL,
    actions TEXT NOT NULL,
    result TEXT NOT NULL,
    started REAL,
    finished REAL,
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS hands_room ON hands (room, number);
CREATE INDEX IF NOT EXISTS hands_source ON hands (source);
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
"""
HAND_FIELDS = ("deal", "rules", "match_score", "actions", "result")


class Store:
    """The database at ``path`` (created with its tables when missing; ``":memory:"`` works)."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.lock = threading.RLock()
        with self.lock:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)

    def close(self) -> None:
        with self.lock:
            self.db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One transaction, under the lock: all of it or nothing."""
        with self.lock:
            self.db.execute("BEGIN")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def _write(self, sql: str, args: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        with self.lock:
            return self.db.execute(sql, args)

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self.lock:
            return self.db.execute(sql, args).fetchall()

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

    # ------------------------------------------------------------------ hands
    def add_hand(self, hand: dict[str, Any], source: str = "live") -> int:
        """Store one finished hand; returns its id.

        Args:
            hand: ``deal``, ``rules``, ``match_score``, ``actions`` ([seat, action, seconds,
                by] each), ``result``; optional ``room``, ``number``, ``started``,
                ``finished``, ``meta``.
            source: "live" (a table of this server) or "eval" (``python -m eval``).
        """
        missing = [k for k in HAND_FIELDS if k not in hand]
        if missing:
            raise ValueError(f"a stored hand needs {list(HAND_FIELDS)}; missing {missing}")
        cur = self._write(
            "INSERT INTO hands (source, room, number, deal, rules, match_score, actions, result, started, finished, "
            "meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                source,
                hand.get("room"),
                hand.get("number"),
                json.dumps(hand["deal"]),
                json.dumps(hand["rules"]),
                json.dumps(hand["match_score"]),
                json.dumps(hand["actions"]),
                json.dumps(hand["result"]),
                hand.get("started"),
                hand.get("finished"),
                json.dumps(hand.get("meta") or {}),
            ),
        )
        assert cur.lastrowid is not None  # set by the INSERT above
        return cur.lastrowid

    @staticmethod
    def _hand(row: sqlite3.Row) -> dict[str, Any]:
        out = dict(row)
        for k in (*HAND_FIELDS, "meta"):
            out[k] = json.loads(out[k])
        return out

    def hand(self, hand_id: int) -> dict[str, Any] | None:
        rows = self._read("SELECT * FROM hands WHERE id = ?", (hand_id,))
        return self._hand(rows[0]) if rows else None

    def hands(self, room: str | None = None, source: str | None = None, limit: int = 500) -> list[dict[str, Any]]:
        """Stored hands of a room, or of a source, oldest first (at most ``limit``)."""
        where, args = [], []
        if room is not None:
            where.append("room = ?")
            args.append(room)
        if source is not None:
            where.append("source = ?")
            args.append(source)
        sql = "SELECT * FROM hands" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id LIMIT ?"
        return [self._hand(r) for r in self._read(sql, (*args, limit))]

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
