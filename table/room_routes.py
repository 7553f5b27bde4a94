"""The table server's routes for live tables (``table.hub``, ``table.room``): the agents a seat
may be given, a new table, its invitations, a rematch, and the live WebSocket."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, HTTPException, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field

from agents.registry import AgentSpecError
from baloot_env.cards import NUM_SEATS
from baloot_env.errors import ConfigError
from baloot_env.rules import RuleConfig
from table.clocks import TEMPOS
from table.deps import HubDep, SeatingDep
from table.hub import Hub
from table.room import Refused, Room
from table.seating import MAX_NAME, RoomConfig, SeatSpec

ME, INVITE = "me", "invite"

router = APIRouter()


class RoomRequest(BaseModel):
    """A new table. ``seats``: four entries, seat 0 first, each ``"me"`` (at most one),
    ``"invite"`` (a person joining by an invitation link) or an agent's name from
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
    listed: bool = False  # in the lobby's open tables (RoomConfig.listed)


class RematchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    token: str = Field(max_length=100)


class JoinRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    invite: str = Field(max_length=100)
    name: str = Field(default="Guest", min_length=1, max_length=MAX_NAME)


class SitRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    seat: int = Field(ge=0, le=NUM_SEATS - 1)
    name: str = Field(default="Guest", min_length=1, max_length=MAX_NAME)


class InvitationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    invite: str = Field(max_length=100)


@router.get("/api/agents")
def list_agents(seating: SeatingDep) -> dict[str, Any]:
    return {
        "agents": list(seating["choices"]),
        "default": seating["default"],
        "tempos": {k: v.to_dict() for k, v in TEMPOS.items()},
    }


def seat_specs(req: RoomRequest, seating: dict[str, Any]) -> tuple[list[SeatSpec], int | None]:
    """The four seats a request asks for, and the creator's seat (None: a table to watch).

    Raises:
        HTTPException: 400 naming what is wrong.
    """
    choices, default = seating["choices"], seating["default"]
    if sum(s == ME for s in req.seats) > 1:
        raise HTTPException(400, "at most one seat is 'me'")
    if INVITE in req.seats and ME not in req.seats:
        raise HTTPException(400, "a table with invited players needs a seat for you ('me')")
    specs, creator = [], None
    for i, s in enumerate(req.seats):
        if s in (ME, INVITE):
            specs.append(SeatSpec("person", choices[default], req.name if s == ME else f"Guest {i}"))
            creator = i if s == ME else creator
            continue
        name = default if s in ("", "default") else s
        if name not in choices:
            raise HTTPException(400, f"seat {i}: unknown agent {s!r}; choose one of {list(choices)}, 'me' or 'invite'")
        specs.append(SeatSpec("bot", choices[name], name))
    return specs, creator


@router.post("/api/rooms")
async def create_room(req: RoomRequest, hub: HubDep, seating: SeatingDep) -> dict[str, Any]:
    if req.tempo not in TEMPOS:
        raise HTTPException(400, f"tempo must be one of {list(TEMPOS)}, got {req.tempo!r}")
    try:
        rules = RuleConfig.from_dict(req.rules)
    except (ConfigError, TypeError) as e:
        raise HTTPException(400, f"rules: {e}") from None
    specs, creator = seat_specs(req, seating)
    seed = req.seed if req.seed is not None else int.from_bytes(os.urandom(6), "little")
    try:
        config = RoomConfig(tuple(specs), rules, req.tempo, seed, req.bot_delay, req.gather, req.listed)
        for spec in {s.agent for s in specs}:  # loading a bundle takes a moment: not on the loop
            await asyncio.to_thread(hub.agent, spec)
        room, tokens = hub.create(config, creator)
    except (AgentSpecError, ValueError) as e:
        raise HTTPException(400, str(e)) from None
    return links(room.id, creator, tokens)


def live_room(hub: Hub, room_id: str) -> Room:
    room = hub.rooms.get(room_id)
    if room is None:
        raise HTTPException(404, "no such table (or it is over)")
    return room


@router.post("/api/rooms/{room_id}/rematch")
async def rematch(room_id: str, req: RematchRequest, hub: HubDep) -> dict[str, Any]:
    """A new table with the same seats, rules and clock and fresh deals, for a player of a
    finished match: they keep their seat, the other persons' seats are open to new invitations."""
    room = live_room(hub, room_id)
    try:
        seat = room.seat_of(req.token)
    except Refused as e:
        raise HTTPException(403, str(e)) from None
    if not room.over:
        raise HTTPException(409, "the match is not over yet")
    config = dataclasses.replace(room.config, seed=int.from_bytes(os.urandom(6), "little"))
    new, tokens = hub.create(config, seat)
    new.names[seat] = room.names[seat]
    hub.changed(new, seats=True)
    return links(new.id, seat, tokens)


@router.post("/api/rooms/{room_id}/invitation")
async def invitation(room_id: str, req: InvitationRequest, hub: HubDep) -> dict[str, Any]:
    """The seat, host, rules and clock an invitation offers (its page shows them)."""
    try:
        return live_room(hub, room_id).invitation(req.invite)
    except Refused as e:
        raise HTTPException(403 if e.code == "bad_token" else 409, str(e)) from None


def seated(hub: Hub, room: Room, take: Callable[[float], tuple[int, str]], forbidden: str) -> dict[str, Any]:
    """A person seated by ``take`` (a room's ``join`` or ``sit``): the seat, its token and link.

    Raises:
        HTTPException: 403 for a refusal coded ``forbidden``, 409 for any other (the seat taken).
    """
    try:
        seat, token = take(hub.clock.now())
    except Refused as e:
        raise HTTPException(403 if e.code == forbidden else 409, str(e)) from None
    hub.changed(room, seats=True)
    return {"room": room.id, "seat": seat, "token": token, "url": f"/t/{room.id}#{token}"}


@router.post("/api/rooms/{room_id}/join")
async def join_room(room_id: str, req: JoinRequest, hub: HubDep) -> dict[str, Any]:
    room = live_room(hub, room_id)
    return seated(hub, room, lambda now: room.join(req.invite, req.name, now), "bad_token")


@router.get("/api/tables")
def open_tables(hub: HubDep) -> dict[str, Any]:
    """The lobby's open tables: the listed tables still in play, those with an open seat first,
    each with how many watch it."""
    rooms = [r for r in hub.rooms.values() if r.config.listed and not r.over]
    rooms.sort(key=lambda r: (not r.open_seats(), r.id))
    watching = {r.id: sum(c.seat is None for c in hub.conns.get(r.id, ())) for r in rooms}
    return {"tables": [{**r.listing(), "spectators": watching[r.id]} for r in rooms]}


@router.post("/api/rooms/{room_id}/sit")
async def sit(room_id: str, req: SitRequest, hub: HubDep) -> dict[str, Any]:
    """An open seat of a listed table, taken from the lobby's open tables (no invitation)."""
    room = live_room(hub, room_id)
    return seated(hub, room, lambda now: room.sit(req.seat, req.name, now), "not_listed")


@router.websocket("/ws/{room_id}")
async def live(ws: WebSocket, room_id: str, token: str = "", spectate: bool = False) -> None:
    """A seat's connection (its token), a table of bots' watcher (its watch token) or, with
    ``spectate``, a spectator of a listed table (no token: what the whole table sees)."""
    await ws.accept()
    hub: Hub = ws.app.state.hub
    room = hub.rooms.get(room_id)
    seat: int | None = None
    try:
        if room is None:
            raise Refused("no_table", "no such table (or the server forgot it)")
        if spectate:
            if not room.config.listed:
                raise Refused("not_listed", "this table is not in the lobby's open tables")
        elif not room.is_watch_token(token):
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


def links(room_id: str, creator: int | None, tokens: dict[str, str]) -> dict[str, Any]:
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
