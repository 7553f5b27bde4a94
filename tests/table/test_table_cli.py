"""``python -m table``: bad input is one line and exit 2; a real start serves the lobby with the
shipped champion as the default opponent; a server killed in the middle of a person's turn
gives the turn back, after a restart, with the time it had left (R10.4)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the table server needs the 'table' extra (pip install -e '.[table]')")

from table.testing import Client, get, post  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "table", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--port", "0"], "--port must be 1 to 65535"),
        (["--port", "70000"], "--port must be 1 to 65535"),
        (["--port", "eighty"], "invalid int value"),
        (["--db", "{tmp}"], "is a folder"),
        (["--db", "{tmp}/junk.sqlite"], "not a SQLite database"),
        (["--agent", "{tmp}/no_such_bundle/"], "does not exist"),
        (["--default", "nobody"], "default agent 'nobody'"),
        (["--frobnicate"], "unrecognized arguments"),
        (["--agent", "{tmp}/flipped"], "the weights file is corrupt"),
        (["--host", "no.such.host.invalid"], "--host 'no.such.host.invalid' is not an address"),
        (["--port", "{busy}"], "Address already in use"),
        (["--db", "{tmp}/junk.sqlite/table.sqlite"], "is a file, not a folder"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, words):
    """Refused before anything is made: no database file appears."""
    (tmp_path / "junk.sqlite").write_text("not a database, just text " * 100)
    shutil.copytree(ROOT / "policies" / "champion", tmp_path / "flipped")  # one flipped weight byte
    weights = bytearray((tmp_path / "flipped" / "weights.pt").read_bytes())
    weights[200] ^= 1
    (tmp_path / "flipped" / "weights.pt").write_bytes(bytes(weights))
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    args = [a.replace("{busy}", str(busy.getsockname()[1])) for a in args]
    r = run(
        *[a.replace("{tmp}", str(tmp_path)) for a in args],
        "--db" if "--db" not in args else "--port",
        str(tmp_path / "ok.sqlite") if "--db" not in args else "8000",
    )
    assert r.returncode == 2, r
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], r.stderr
    assert r.stdout == ""
    busy.close()
    assert not (tmp_path / "ok.sqlite").exists()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_python_m_table_serves_the_lobby_with_the_champion_by_default(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "table", "--port", str(port), "--db", str(tmp_path / "t.sqlite")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, agents = get(url + "/api/agents")
                break
            except OSError:
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.2)
        assert status == 200 and agents["default"] == "champion"
        status, room = post(url + "/api/rooms", {"seats": ["me", "", "", ""]})
        assert status == 200 and room["url"].startswith(f"/t/{room['room']}#")
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert f"http://127.0.0.1:{port}/" in out
    # the table was saved: its seats name the champion bundle
    from table.store import Store

    seats = Store(tmp_path / "t.sqlite").seats(room["room"])
    assert [s["agent"] for s in seats[1:]] == ["policies/champion"] * 3


def _serve(port: int, db: Path) -> tuple[subprocess.Popen, float]:
    """``python -m table`` on ``port`` with heuristic bots, and the moment it answered."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "table", "--port", str(port), "--db", str(db), "--default", "heuristic"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            get(f"http://127.0.0.1:{port}/api/agents")
            return proc, time.monotonic()
        except OSError:
            assert proc.poll() is None, "the server stopped"
            assert time.monotonic() < deadline, "the server did not come up"
            time.sleep(0.1)


def test_a_killed_server_gives_the_turn_back_with_the_time_it_had_left(tmp_path):
    """Issue 49, goal 2 (R10.4): SIGKILL 3.5 s into a person's turn, 2 s down, restart: the
    seat's clock has what it had left at the kill, within a second (the heartbeat's), not a
    fresh turn, and the time the server was down costs nothing."""
    db = tmp_path / "t.sqlite"
    port = free_port()
    proc, _ = _serve(port, db)
    try:
        url = f"http://127.0.0.1:{port}"
        status, room = post(url + "/api/rooms", {"seats": ["me", "", "", ""], "bot_delay": 0, "gather": 0, "seed": 5})
        assert status == 200, room
        me = Client(url, room["room"], room["token"])
        mine = me.until(lambda m: m.get("type") == "state" and m.get("legal") and m["clock"]["seat"] == m["seat"])
        turn_seen = time.monotonic()
        full = mine["clock"]["left"]
        assert full > 20  # the turn has just begun
        time.sleep(3.5)
    finally:
        proc.kill()  # no clean stop, the player still connected: nothing is saved now
        proc.wait(timeout=30)
    ran = time.monotonic() - turn_seen
    me.close()
    time.sleep(2.0)
    port = free_port()
    proc, up = _serve(port, db)
    try:
        me = Client(f"http://127.0.0.1:{port}", room["room"], room["token"])
        back = me.until(lambda m: m.get("type") == "state" and m["clock"]["seat"] == m["seat"])
        since_up = time.monotonic() - up  # the clock runs again from the restart
        left = back["clock"]["left"]
        assert back["ply"] == mine["ply"]  # the same turn
        assert full - ran - since_up - 0.3 <= left <= full - ran + 1.0, (full, ran, since_up, left)
        me.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
