"""Running the table server inside a test or a benchmark: a real uvicorn on 127.0.0.1 in a thread,
and a small WebSocket client that keeps every message it received (tests inspect them all).

Only the loopback address is ever used. Needs the ``table`` extra (uvicorn, websockets).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from table.__main__ import WS_MAX_SIZE


class Served:
    """A server running in a thread: ``url`` (http://127.0.0.1:PORT) and ``app``."""

    def __init__(self, app: Any):
        # optional dependency: uvicorn (the table extra)
        import uvicorn

        self.app = app
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, log_level="warning", ws_max_size=WS_MAX_SIZE, lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.serve(sockets=[self.sock])), daemon=True)

    def start(self) -> Served:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the table server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(20)
        self.sock.close()

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the server's event loop thread and return its result (rooms are
        changed only there)."""
        loop = self.app.state.hub.loop
        fut = asyncio.run_coroutine_threadsafe(_call(fn), loop)
        return fut.result(10)


async def _call(fn: Callable[[], Any]) -> Any:
    return fn()


@contextmanager
def serve(app: Any) -> Iterator[Served]:
    """Serve ``app`` on 127.0.0.1 (a free port) for the duration of the block."""
    s = Served(app).start()
    try:
        yield s
    finally:
        s.stop()


def post(url: str, body: dict[str, Any] | None = None, method: str = "POST") -> tuple[int, Any]:
    """A JSON request; returns (status, decoded body)."""

    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw or b"null")
        except ValueError:
            return e.code, raw.decode(errors="replace")


def get(url: str) -> tuple[int, Any]:
    return post(url, None, "GET")


class Client:
    """A seat's (or a watcher's, or with ``spectate`` a spectator's) WebSocket, synchronous,
    keeping every message in ``seen``."""

    def __init__(self, base: str, room: str, token: str, spectate: bool = False):
        # optional dependency: websockets (the table extra)
        from websockets.sync.client import connect

        query = "spectate=true" if spectate else f"token={token}"
        self.ws = connect(
            f"ws://{base.split('://', 1)[1]}/ws/{room}?{query}", max_size=2**22, max_queue=None
        ).__enter__()
        self.seen: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None

    def send(self, obj: Any) -> None:
        self.ws.send(obj if isinstance(obj, (str, bytes)) else json.dumps(obj))

    def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        msg = json.loads(self.ws.recv(timeout=timeout))
        self.seen.append(msg)
        if msg.get("type") == "state":
            self.state = msg
        out: dict[str, Any] = msg
        return out

    def until(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        """The first message for which ``pred`` holds among those received and not yet read,
        else the latest state when it holds, else the first to come; TimeoutError after ``timeout``.
        (Bots move at once: the message a test waits for may have come with an earlier one.)"""
        deadline = time.monotonic() + timeout
        drained = False
        while True:
            left = deadline - time.monotonic()
            try:
                msg = self.recv(0 if not drained else max(left, 0.001))
            except TimeoutError:
                if not drained:
                    drained = True
                    if self.state is not None and pred(self.state):
                        return self.state
                    continue
                raise TimeoutError(
                    f"no such message within {timeout} s; last state: {self.state and _brief(self.state)}"
                ) from None
            if pred(msg):
                return msg
            if time.monotonic() > deadline:
                raise TimeoutError(f"no such message within {timeout} s")

    def close(self, code: int = 1000) -> None:
        self.ws.close(code)


def _brief(state: dict[str, Any]) -> dict[str, Any]:
    return {k: state.get(k) for k in ("ply", "phase", "to_act", "status", "clock")}
