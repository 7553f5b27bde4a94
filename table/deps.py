"""What every router of the table server reads from its app (``table.server.create_app`` puts it
there): the hub, the database, the score sheets, the leaderboard and the seats' agent choices,
as FastAPI dependencies, so each route names what it uses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi import Path as PathParam

from table.hub import Hub
from table.leaderboard import Leaderboard
from table.scoresheet import ScoreSheets
from table.store import Store

# a stored row's id (a hand, a score-sheet row): SQLite's integers; a bigger one is a 422, not a 500
RowId = Annotated[int, PathParam(ge=0, le=2**63 - 1)]


def _from_app(name: str) -> Callable[[Request], Any]:
    """A dependency that reads ``name`` from the app's state (``create_app`` puts it there)."""

    def read(request: Request) -> Any:
        return getattr(request.app.state, name)

    return read


def _seating(request: Request) -> dict[str, Any]:
    return {"choices": request.app.state.choices, "default": request.app.state.default_agent}


HubDep = Annotated[Hub, Depends(_from_app("hub"))]
StoreDep = Annotated[Store, Depends(_from_app("store"))]
SheetsDep = Annotated[ScoreSheets, Depends(_from_app("sheets"))]
BoardDep = Annotated[Leaderboard, Depends(_from_app("board"))]
SeatingDep = Annotated[dict[str, Any], Depends(_seating)]  # {"choices": name -> spec, "default": a name}
