"""The table server: a FastAPI app serving the page, the live tables, replays and score sheets.

Pages (``table/static``, plain HTML/CSS/JS served by the app itself, no CDN, no build step):
``/`` the lobby, ``/t/{room}#TOKEN`` a seat at a table, ``/join/{room}#INVITE`` an invitation,
``/watch/{room}#TOKEN`` four bots at play, ``/replay`` stored hands, ``/sheet`` score sheets.

API (JSON):

- ``GET /api/agents``: the agents a seat may be given (names, the shipped champion, bundles
  named on the command line; nothing else, so a client cannot make the server load a file);
- ``POST /api/rooms``: a new table (body ``RoomRequest``); returns the creator's link, an
  invitation link when a seat is left for someone else, a watch link for four bots;
- ``POST /api/rooms/{room}/join``: take an open seat with the invitation;
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

``create_app`` builds the app around a database path and a clock (tests inject a fake one).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from agents.registry import AgentSpecError, known_agents, resolve_spec
from baloot_env.cards import NUM_SEATS
from baloot_env.errors import ConfigError
from baloot_env.rules import RuleConfig
from table.clocks import TEMPOS, Clock, SystemClock
from table.hub import Hub
from table.leaderboard import Leaderboard
from table.replay import ALL, frames
from table.room import Refused
from table.scoresheet import ScoreSheets, SheetError
from table.seating import MAX_NAME, RoomConfig, SeatSpec, token_hash
from table.store import Store

STATIC = Path(str(resources.files("table") / "static"))
CHAMPION = "policies/champion"
ME, INVITE = "me", "invite"


# a stored row's id (a hand, a score-sheet row): SQLite's integers; a bigger one is a 422, not a 500
RowId = Annotated[int, PathParam(ge=0, le=2**63 - 1)]


class RoomRequest(BaseModel):
    """A new table. ``seats``: four entries, seat 0 first, each ``"me"`` (at most one),
    ``"invite"`` (a person joining by the invitation link) or an agent's name from
    ``/api/agents`` (default the champion). Without ``"me"`` every seat must be an agent: the
    table is for watching."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    seats: list[str] = Field(min_length=4, max_length=4)
    name: str = Field(default="You", min_length=1, max_length=MAX_NAME)
    tempo: str = "normal"
    rules: dict[str, Any] = Field(default_factory=dict)
    bot_delay: float = Field(default=0.8, ge=0, le=10)
    gather: float = Field(default=1.5, ge=0, le=10)
    seed: int | None = Field(default=None, ge=0, le=2**62)


class RematchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    token: str = Field(max_length=100)


class JoinRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    invite: str = Field(max_length=100)
    name: str = Field(default="Guest", min_length=1, max_length=MAX_NAME)


class InvitationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    invite: str = Field(max_length=100)


class SheetRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    rules: dict[str, Any] = Field(default_factory=dict)
    first_dealer: int = 0
    teams: list[str] = Field(default_factory=lambda: ["Us", "Them"])


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
    sheets = ScoreSheets(store)
    board = Leaderboard(store, league)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await hub.start()
        yield
        await hub.stop()
        store.close()

    app = FastAPI(title="Baloot table", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.hub, app.state.store, app.state.choices, app.state.league = hub, store, choices, league

    def page(name: str) -> Any:
        async def serve() -> FileResponse:
            return FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})

        async def serve_key(key: str) -> FileResponse:  # the page reads its room or sheet from the address
            return FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})

        return serve, serve_key

    for route, name in (
        ("/", "index.html"),
        ("/replay", "replay.html"),
        ("/sheet", "sheet.html"),
        ("/leaderboard", "leaderboard.html"),
    ):
        app.add_api_route(route, page(name)[0], include_in_schema=False)
    for prefix, name in (
        ("/t/", "table.html"),
        ("/watch/", "table.html"),
        ("/join/", "join.html"),
        ("/sheet/", "sheet.html"),
    ):
        app.add_api_route(prefix + "{key}", page(name)[1], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_api_route("/favicon.ico", lambda: Response(status_code=204), include_in_schema=False)

    @app.get("/api/leaderboard")
    async def leaderboard() -> dict[str, Any]:
        """The agents' ladder and the people's figures (``table.leaderboard``); the hands
        finished since the last request are scored first, off the event loop."""
        return await asyncio.to_thread(board.board)

    # ------------------------------------------------------------------ tables
    @app.get("/api/agents")
    def list_agents() -> dict[str, Any]:
        return {"agents": list(choices), "default": default_agent, "tempos": {k: vars(v) for k, v in TEMPOS.items()}}

    @app.post("/api/rooms")
    async def create_room(req: RoomRequest) -> dict[str, Any]:
        if req.tempo not in TEMPOS:
            raise HTTPException(400, f"tempo must be one of {list(TEMPOS)}, got {req.tempo!r}")
        try:
            rules = RuleConfig.from_dict(req.rules)
        except (ConfigError, TypeError) as e:
            raise HTTPException(400, f"rules: {e}") from None
        if sum(s == ME for s in req.seats) > 1:
            raise HTTPException(400, "at most one seat is 'me'")
        if INVITE in req.seats and ME not in req.seats:
            raise HTTPException(400, "a table with invited players needs a seat for you ('me')")
        specs, creator = [], None
        for i, s in enumerate(req.seats):
            if s in (ME, INVITE):
                specs.append(SeatSpec("person", choices[default_agent], req.name if s == ME else f"Guest {i}"))
                if s == ME:
                    creator = i
            else:
                name = default_agent if s in ("", "default") else s
                if name not in choices:
                    raise HTTPException(
                        400, f"seat {i}: unknown agent {s!r}; choose one of {list(choices)}, 'me' or 'invite'"
                    )
                specs.append(SeatSpec("bot", choices[name], name))
        seed = req.seed if req.seed is not None else int.from_bytes(os.urandom(6), "little")
        try:
            config = RoomConfig(tuple(specs), rules, req.tempo, seed, req.bot_delay, req.gather)
            for spec in {s.agent for s in specs}:  # loading a bundle takes a moment: not on the loop
                await asyncio.to_thread(hub.agent, spec)
            room, tokens = hub.create(config, creator)
        except (AgentSpecError, ValueError) as e:
            raise HTTPException(400, str(e)) from None
        return _links(room.id, creator, tokens)

    @app.post("/api/rooms/{room_id}/rematch")
    async def rematch(room_id: str, req: RematchRequest) -> dict[str, Any]:
        """A new table with the same seats, rules and clock and fresh deals, for a player of a
        finished match: they keep their seat, the other persons' seats are open to a new
        invitation."""
        room = hub.rooms.get(room_id)
        if room is None:
            raise HTTPException(404, "no such table (or the server forgot it)")
        try:
            seat = room.seat_of(req.token)
        except Refused as e:
            raise HTTPException(403, str(e)) from None
        if not room.over:
            raise HTTPException(409, "the match is not over yet")
        seed = int.from_bytes(os.urandom(6), "little")
        config = dataclasses.replace(room.config, seed=seed)
        new, tokens = hub.create(config, seat)
        new.names[seat] = room.names[seat]
        hub.changed(new, seats=True)
        return _links(new.id, seat, tokens)

    @app.post("/api/rooms/{room_id}/invitation")
    async def invitation(room_id: str, req: InvitationRequest) -> dict[str, Any]:
        """The seat, host, rules and clock an invitation offers (its page shows them)."""
        room = hub.rooms.get(room_id)
        if room is None:
            raise HTTPException(404, "no such table (or it is over)")
        try:
            return room.invitation(req.invite)
        except Refused as e:
            raise HTTPException(403 if e.code == "bad_token" else 409, str(e)) from None

    @app.post("/api/rooms/{room_id}/join")
    async def join_room(room_id: str, req: JoinRequest) -> dict[str, Any]:
        room = hub.rooms.get(room_id)
        if room is None:
            raise HTTPException(404, "no such table (or it is over)")
        try:
            seat, token = room.join(req.invite, req.name, hub.clock.now())
        except Refused as e:
            raise HTTPException(403 if e.code == "bad_token" else 409, str(e)) from None
        hub.changed(room, seats=True)
        return {"room": room_id, "seat": seat, "token": token, "url": f"/t/{room_id}#{token}"}

    @app.websocket("/ws/{room_id}")
    async def live(ws: WebSocket, room_id: str, token: str = "") -> None:
        await ws.accept()
        room = hub.rooms.get(room_id)
        seat: int | None = None
        try:
            if room is None:
                raise Refused("no_table", "no such table (or the server forgot it)")
            if not room.is_watch_token(token):
                seat = room.seat_of(token)
        except Refused as e:
            await ws.send_json({"type": "error", "code": e.code, "message": str(e)})
            await ws.close(4403)
            return
        conn = hub.attach(room, seat, ws)
        closed = False
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    closed = msg.get("code") == 1001  # "going away": the page was closed
                    break
                hub.receive(conn, msg.get("text") if msg.get("text") is not None else msg.get("bytes"))
        except WebSocketDisconnect as e:
            closed = e.code == 1001
        finally:
            hub.detach(conn, closed)

    # ------------------------------------------------------------------ replays
    def hand_or_404(hand_id: int, token: str) -> dict[str, Any]:
        hand = store.hand(hand_id)
        if hand is None:
            raise HTTPException(404, f"no stored hand {hand_id}")
        if hand["room"] is not None:
            room_data = store.load_room(hand["room"])
            if room_data is None or not _room_token_ok(room_data, token):
                raise HTTPException(403, "the hands of a table are shown to its players (give a seat's token)")
        return hand

    @app.get("/api/rooms/{room_id}/hands")
    def room_hands(room_id: str, token: str = "") -> dict[str, Any]:
        room_data = store.load_room(room_id)
        if room_data is None or not _room_token_ok(room_data, token):
            raise HTTPException(403, "the hands of a table are shown to its players (give a seat's token)")
        return {"hands": [_summary(h) for h in store.hands(room=room_id)]}

    @app.get("/api/replays")
    def eval_hands(limit: int = 200) -> dict[str, Any]:
        hands = store.hands(source="eval", limit=max(1, min(limit, 2000)))
        hands.sort(key=lambda h: (h["meta"].get("d", 0), h["id"]))
        return {"hands": [_summary(h) for h in hands]}

    @app.get("/api/hands/{hand_id}")
    def hand_frames(hand_id: RowId, view: str = ALL, token: str = "") -> dict[str, Any]:
        hand = hand_or_404(hand_id, token)
        if view != ALL and view not in ("0", "1", "2", "3"):
            raise HTTPException(400, f"view must be a seat 0-3 or 'all', got {view!r}")
        return {**_summary(hand), "view": view, "frames": frames(hand, ALL if view == ALL else int(view))}

    # ------------------------------------------------------------------ score sheets
    def sheet_call(fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except SheetError as e:
            raise HTTPException(400, str(e)) from None
        except KeyError as e:
            raise HTTPException(404, str(e.args[0])) from None

    @app.post("/api/sheets")
    def new_sheet(req: SheetRequest) -> dict[str, Any]:
        sheet_id = sheet_call(sheets.create, req.rules, req.first_dealer, req.teams)
        return sheets.get(sheet_id)

    @app.get("/api/sheets/{sheet_id}")
    def get_sheet(sheet_id: str) -> dict[str, Any]:
        out: dict[str, Any] = sheet_call(sheets.get, sheet_id)
        return out

    @app.post("/api/sheets/{sheet_id}/rows")
    def add_row(sheet_id: str, entry: dict[str, Any]) -> dict[str, Any]:
        sheet_call(sheets.add, sheet_id, entry)
        return sheets.get(sheet_id)

    @app.put("/api/sheets/{sheet_id}/rows/{row_id}")
    def edit_row(sheet_id: str, row_id: RowId, entry: dict[str, Any]) -> dict[str, Any]:
        sheet_call(sheets.edit, sheet_id, row_id, entry)
        return sheets.get(sheet_id)

    @app.delete("/api/sheets/{sheet_id}/rows/{row_id}")
    def delete_row(sheet_id: str, row_id: RowId) -> dict[str, Any]:
        sheet_call(sheets.delete, sheet_id, row_id)
        return sheets.get(sheet_id)

    @app.post("/api/sheets/{sheet_id}/undo")
    def undo(sheet_id: str) -> dict[str, Any]:
        done = sheet_call(sheets.undo, sheet_id)
        return {**sheets.get(sheet_id), "undone": done}

    @app.exception_handler(HTTPException)
    async def http_error(request: Any, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Any, exc: RequestValidationError) -> JSONResponse:
        """A request that does not fit its model, in words: where and why, never the value sent
        (a NaN or a huge number cannot be written back as JSON)."""
        why = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}" for e in exc.errors())
        return JSONResponse({"error": why}, status_code=422)

    return app


def _room_token_ok(room_data: dict[str, Any], token: str) -> bool:
    if not token:
        return False
    h = token_hash(token)
    return h in [t for t in room_data["tokens"] if t] or h == room_data.get("watch")


def _links(room_id: str, creator: int | None, tokens: dict[str, str]) -> dict[str, Any]:
    """What a new table's creator is given: their seat's link (or the watch link) and, when seats
    are open, an invitation link for each (``invites``: seat and url, the partner's first, then
    around the table; ``invite_url``: the first of them)."""
    out: dict[str, Any] = {"room": room_id, "seat": creator}
    if "seat" in tokens:
        out["token"] = tokens["seat"]
        out["url"] = f"/t/{room_id}#{tokens['seat']}"
    around = [(creator + k) % NUM_SEATS for k in (2, 1, 3)] if creator is not None else list(range(NUM_SEATS))
    invites = [
        {"seat": s, "url": f"/join/{room_id}#{tokens[f'invite-{s}']}"} for s in around if f"invite-{s}" in tokens
    ]
    if invites:
        out["invites"] = invites
        out["invite_url"] = invites[0]["url"]
    if "watch" in tokens:
        out["token"] = tokens["watch"]
        out["url"] = f"/watch/{room_id}#{tokens['watch']}"
    return out


def _summary(hand: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": hand["id"],
        "source": hand["source"],
        "room": hand["room"],
        "number": hand["number"],
        "result": hand["result"],
        "meta": hand["meta"],
        "actions": len(hand["actions"]),
    }
