"""Load test of the table server on localhost: many bot-only tables plus scripted human clients.

Starts ``python -m table`` in its own process on 127.0.0.1 (a free port, a temporary database),
opens ``--tables`` tables of four bots, each with a watcher connected (so every move is saved
and sent, as when someone watches), and ``--humans`` tables where a scripted client plays seat 0
against three bots: at each of its turns it sends the first legal move at once and times the
round trip until the state that includes its move comes back. After ``--seconds`` everything is
closed and the server stopped. Reports the moves per second over all tables and the latency
of the human moves (median, 90th and 99th percentile, worst).

Bounded in count and time; only the loopback address is used. Example (the figures in the
issue's report)::

    python benchmarks/table_load.py --tables 50 --humans 10 --seconds 30 --bot-delay 0.25
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


async def watcher(ws_url: str, stop: float, seen: dict, key: str) -> None:
    import websockets

    async with websockets.connect(ws_url, max_size=2**22) as ws:
        while time.monotonic() < stop:
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), max(0.01, stop - time.monotonic())))
            except TimeoutError:
                break
            if msg.get("type") == "state":
                first = seen.setdefault(key, [msg["ply"], msg["ply"]])
                first[1] = msg["ply"]


async def human(ws_url: str, stop: float, seen: dict, key: str, latencies: list[float]) -> None:
    import websockets

    async with websockets.connect(ws_url, max_size=2**22) as ws:
        sent_at, sent_ply = None, -1
        while time.monotonic() < stop:
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), max(0.01, stop - time.monotonic())))
            except TimeoutError:
                break
            if msg.get("type") == "error":
                raise RuntimeError(f"the server refused a scripted move: {msg}")
            if msg.get("type") != "state":
                continue
            first = seen.setdefault(key, [msg["ply"], msg["ply"]])
            first[1] = msg["ply"]
            if sent_at is not None and msg["ply"] > sent_ply:
                latencies.append(time.perf_counter() - sent_at)
                sent_at = None
            if sent_at is None and msg.get("to_act") == 0 and msg.get("legal"):
                sent_ply = msg["ply"]
                sent_at = time.perf_counter()
                await ws.send(json.dumps({"type": "act", "action": msg["legal"][0]["id"], "ply": msg["ply"]}))


async def run_clients(base: str, rooms: list[tuple[str, dict]], seconds: float) -> tuple[dict, list[float], float]:
    stop = time.monotonic() + seconds
    seen: dict = {}
    latencies: list[float] = []
    ws_base = base.replace("http://", "ws://")
    tasks = []
    for kind, r in rooms:
        url = f"{ws_base}/ws/{r['room']}?token={r['token']}"
        if kind == "bots":
            tasks.append(watcher(url, stop, seen, r["room"]))
        else:
            tasks.append(human(url, stop, seen, r["room"], latencies))
    t0 = time.monotonic()
    await asyncio.gather(*tasks)
    return seen, latencies, time.monotonic() - t0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=50, help="bot-only tables (1-500)")
    p.add_argument("--humans", type=int, default=10, help="tables with a scripted human client (0-200)")
    p.add_argument("--seconds", type=float, default=30.0, help="how long the load runs (1-600)")
    p.add_argument("--bot-delay", type=float, default=0.25, help="seconds between a bot's turn and its move")
    p.add_argument(
        "--gather",
        type=float,
        default=0.0,
        help="seconds a finished trick lies on the table (the server's default is 1.5; 0, the most load, by default)",
    )
    p.add_argument("--agent", default="heuristic", help="the bots' agent (a name from /api/agents)")
    p.add_argument("--json", default=None, help="also write the figures here")
    args = p.parse_args(argv)
    if not (
        1 <= args.tables <= 500
        and 0 <= args.humans <= 200
        and 1 <= args.seconds <= 600
        and 0 <= args.bot_delay <= 10
        and 0 <= args.gather <= 10
    ):
        p.error("--tables 1-500, --humans 0-200, --seconds 1-600, --bot-delay and --gather 0-10")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "table",
                "--port",
                str(port),
                "--db",
                os.path.join(tmp, "load.sqlite"),
                "--default",
                args.agent,
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    urllib.request.urlopen(base + "/api/agents", timeout=2).read()
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise SystemExit(f"the server did not start: {server.stderr.read()}") from None
                    time.sleep(0.2)
            rooms = []
            for i in range(args.tables):
                body = {"seats": [args.agent] * 4, "bot_delay": args.bot_delay, "gather": args.gather, "seed": i}
                rooms.append(("bots", post(base + "/api/rooms", body)))
            for i in range(args.humans):
                body = {
                    "seats": ["me"] + [args.agent] * 3,
                    "bot_delay": args.bot_delay,
                    "gather": args.gather,
                    "seed": 10_000 + i,
                }
                rooms.append(("human", post(base + "/api/rooms", body)))
            seen, lat, elapsed = asyncio.run(run_clients(base, rooms, args.seconds))
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
    moves = sum(last - first for first, last in seen.values())
    lat_ms = sorted(1000 * x for x in lat)

    def pct(q: float) -> float:
        return lat_ms[min(len(lat_ms) - 1, int(q * len(lat_ms)))] if lat_ms else float("nan")

    figures = {
        "tables": args.tables + args.humans,
        "bot_tables": args.tables,
        "human_tables": args.humans,
        "bot_delay_s": args.bot_delay,
        "gather_s": args.gather,
        "agent": args.agent,
        "seconds": round(elapsed, 1),
        "moves": moves,
        "moves_per_s": round(moves / elapsed, 1),
        "human_moves": len(lat_ms),
        "latency_ms": {
            "p50": round(statistics.median(lat_ms), 2) if lat_ms else None,
            "p90": round(pct(0.90), 2),
            "p99": round(pct(0.99), 2),
            "max": round(lat_ms[-1], 2) if lat_ms else None,
        },
        "cpus": os.cpu_count(),
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
