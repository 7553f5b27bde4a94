"""The SQLite file of finished hands: one ``hands`` table that the evaluation writes (``python -m
eval --save-hands``) and the table server writes and replays (``table.store``, ``/replay``).

A row is one finished hand: its deal (R2.4), rules, the match score before it, every action with
its time and who made it, its result (R11.4), where it came from (``live`` or ``eval``) and free
``meta`` (an evaluation's deal index and score difference). Plain ``sqlite3`` in WAL mode; one
connection per ``HandsDB``, used from one thread at a time (a lock guards the rare use from
another thread). Standard library only.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HANDS_SCHEMA = """
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
"""
HAND_FIELDS = ("deal", "rules", "match_score", "actions", "result")


class HandsDB:
    """The hands of the SQLite file at ``path`` (created with its ``hands`` table when missing;
    ``":memory:"`` works); ``schema``: the tables of a store built on it (``table.store.Store``)."""

    def __init__(self, path: str | Path, schema: str = ""):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.lock = threading.RLock()
        with self.lock:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(HANDS_SCHEMA + schema)

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
