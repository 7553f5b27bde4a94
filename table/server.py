"""The table server: a FastAPI app serving the page, the live tables, replays and score sheets.

Pages (``table/static``, plain HTML/CSS/JS served by the app itself, no CDN, no build step):
``/`` the lobby, ``/t/{room}#TOKEN`` a seat at a table, ``/join/{room}#INVITE`` an invitation,
``/watch/{room}#TOKEN`` four bots at play, ``/replay`` stored hands, ``/sheet`` score sheets.

API (JSON):

- ``GET /api/agents``: the agents a seat may be given (names, the shipped champion, bundles
  named on the command line; nothing else, so a client cannot make the server load a file);
- ``POST /api/rooms``: a new table (body ``RoomRequest``); returns the creator's link, an
  invitation link for each seat left for someone else, a watch link for four bots;
- ``POST /api/rooms/{room}/invitation``: what an invitation offers (seat, host, rules, clock);
- ``POST /api/rooms/{room}/join``: take an invitation's seat;
- ``POST /api/rooms/{room}/rematch`` (body ``{"token"}``): a finished match's player starts the
  same table again (same seats, rules and clock, new deals);
- ``WS /ws/{room}?token=TOKEN``: the live table (``table.hub``): the server sends ``state``
  messages (that seat's view only) and ``error`` messages (a refused message, with its
  ``code``); the client sends ``{"type": "act", "action": ID}``, ``take_over``, ``leave``,
  ``bye`` (the page is closing) and ``ping``;
- ``GET /api/rooms/{room}/hands?token=``, ``GET /api/replays`` (hands from ``python -m eval``),
  ``GET /api/hands/{id}?view=all|0-3&token=``: replays (``table.replay``);
- ``GET /api/leaderboard``: the agents' ladder and the people who played them
  (``table.leaderboard``), page ``/leaderboard``;
- ``/api/sheets...``: score sheets (``table.scoresheet``).

``create_app`` builds the app around a database path and a clock (tests inject a fake one),
from one router per concern, each beside the module it serves: ``page_routes`` (the pages and
the leaderboard), ``room_routes`` (tables, invitations, the live WebSocket; ``table.hub``),
``replay_routes`` (``table.replay``) and ``sheet_routes`` (``table.scoresheet``); they read what
they use from the app through ``table.deps``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from agents.registry import known_agents, resolve_spec
from table import page_routes, replay_routes, room_routes, sheet_routes
from table.clocks import Clock, SystemClock
from table.hub import Hub
from table.leaderboard import Leaderboard
from table.page_routes import STATIC
from table.scoresheet import ScoreSheets
from table.store import Store

CHAMPION = "policies/champion"


def agent_choices(extra: list[str] | None = None) -> dict[str, str]:
    """Agents a seat may be given: name -> ``make_agent`` spec (the champion first)."""
    choices = {"champion": CHAMPION}
    for name in known_agents():
        if name not in ("split", "ismcts"):  # split needs params; ismcts is a research baseline, slow and optional
            choices[name] = name
    for path in extra or []:
        resolve_spec(path)  # a bad bundle is refused at start, with the registry's message
        choices[Path(path).name or path] = path
    return choices


def create_app(
    db: str | Path = "runs/table.sqlite",
    clock: Clock | None = None,
    agents: list[str] | None = None,
    default_agent: str = "champion",
    league: dict[str, Any] | None = None,
) -> FastAPI:
    """The app.

    Args:
        db: the SQLite database (created when missing).
        clock: the time source (default ``SystemClock``).
        agents: extra agent specs (bundle folders, agent files) offered besides the built-in ones.
        default_agent: the name from ``agent_choices`` that fills a seat given as "" or "default".
        league: the agents' ladder the leaderboard shows (``table.leaderboard.read_league``).

    Raises:
        AgentSpecError: an extra agent that cannot be used; ValueError: an unknown default.
    """
    choices = agent_choices(agents)
    if default_agent not in choices:
        raise ValueError(f"default agent {default_agent!r} is not one of {list(choices)}")
    store = Store(db)
    hub = Hub(store, clock or SystemClock())

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await hub.start()
        yield
        await hub.stop()
        store.close()

    app = FastAPI(title="Baloot table", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.hub, app.state.store, app.state.choices, app.state.league = hub, store, choices, league
    app.state.default_agent, app.state.sheets, app.state.board = (
        default_agent,
        ScoreSheets(store),
        Leaderboard(store, league),
    )
    for module in (page_routes, room_routes, replay_routes, sheet_routes):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestValidationError, bad_request)
    return app


async def http_error(request: Request, exc: Exception) -> JSONResponse:
    """Every refusal as ``{"error": words}`` with its status."""
    assert isinstance(exc, HTTPException)  # the handler is registered for HTTPException only
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code)


async def bad_request(request: Request, exc: Exception) -> JSONResponse:
    """A request that does not fit its model, in words: where and why, never the value sent (a
    NaN or a huge number cannot be written back as JSON)."""
    assert isinstance(exc, RequestValidationError)  # registered for RequestValidationError only
    why = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}" for e in exc.errors())
    return JSONResponse({"error": why}, status_code=422)
