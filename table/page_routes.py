"""The table server's pages (``table/static``: plain HTML, CSS and JS, no build step) and the
leaderboard's data (``table.leaderboard``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from table.deps import BoardDep

STATIC = Path(str(resources.files("table") / "static"))
PAGES = {"/": "index.html", "/replay": "replay.html", "/sheet": "sheet.html", "/leaderboard": "leaderboard.html"}
# pages that read their room, seat or sheet from their own address (/t/ROOM#TOKEN)
KEYED_PAGES = {
    "/t/": "table.html",
    "/watch/": "table.html",
    "/spectate/": "table.html",  # a listed table, seen as the whole table sees it
    "/join/": "join.html",
    "/sheet/": "sheet.html",
}

router = APIRouter()


def _page(name: str, keyed: bool) -> Callable[..., Awaitable[FileResponse]]:
    async def serve() -> FileResponse:
        return FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})

    async def serve_key(key: str) -> FileResponse:  # the page reads its key from the address
        return await serve()

    return serve_key if keyed else serve


for _route, _name in PAGES.items():
    router.add_api_route(_route, _page(_name, False), include_in_schema=False)
for _prefix, _name in KEYED_PAGES.items():
    router.add_api_route(_prefix + "{key}", _page(_name, True), include_in_schema=False)
router.add_api_route("/favicon.ico", lambda: Response(status_code=204), include_in_schema=False)


@router.get("/api/leaderboard")
async def leaderboard(board: BoardDep) -> dict[str, Any]:
    """The agents' ladder and the people's figures (``table.leaderboard``); the hands finished
    since the last request are scored first, off the event loop."""
    return await asyncio.to_thread(board.board)
