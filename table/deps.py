"""What every router of the table server reads from its app (``table.server.create_app`` puts it
there): the hub, the database, the score sheets, the leaderboard and the seats' agent choices,
as FastAPI dependencies, so each route names what it uses."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi import Path as PathParam

from table.hub import Hub
from table.leaderboard import Leaderboard
from table.scoresheet import ScoreSheets
from table.store import Store

# a stored row's id (a hand, a score-sheet row): SQLite's integers; a bigger one is a 422, not a 500
RowId = Annotated[int, PathParam(ge=0, le=2**63 - 1)]


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def _sheets(request: Request) -> ScoreSheets:
    sheets: ScoreSheets = request.app.state.sheets
    return sheets


def _board(request: Request) -> Leaderboard:
    board: Leaderboard = request.app.state.board
    return board


def _seating(request: Request) -> dict[str, Any]:
    return {"choices": request.app.state.choices, "default": request.app.state.default_agent}


HubDep = Annotated[Hub, Depends(_hub)]
StoreDep = Annotated[Store, Depends(_store)]
SheetsDep = Annotated[ScoreSheets, Depends(_sheets)]
BoardDep = Annotated[Leaderboard, Depends(_board)]
SeatingDep = Annotated[dict[str, Any], Depends(_seating)]  # {"choices": name -> spec, "default": a name}
