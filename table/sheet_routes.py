"""The table server's routes for score sheets (``table.scoresheet``): make one, read it, add,
edit and delete rows, undo. A refused entry is a 400 in words, an unknown sheet or row a 404."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, ConfigDict, Field

from table.deps import RowId, SheetsDep
from table.scoresheet import SheetError

router = APIRouter()


class SheetRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    rules: dict[str, Any] = Field(default_factory=dict)
    first_dealer: int = 0
    teams: list[str] = Field(default_factory=lambda: ["Us", "Them"])


def sheet_call(fn: Callable[..., Any], *args: Any) -> Any:
    try:
        return fn(*args)
    except SheetError as e:
        raise HTTPException(400, str(e)) from None
    except KeyError as e:
        raise HTTPException(404, str(e.args[0])) from None


@router.post("/api/sheets")
def new_sheet(req: SheetRequest, sheets: SheetsDep) -> dict[str, Any]:
    sheet_id = sheet_call(sheets.create, req.rules, req.first_dealer, req.teams)
    return sheets.get(sheet_id)


@router.get("/api/sheets/{sheet_id}")
def get_sheet(sheet_id: str, sheets: SheetsDep) -> dict[str, Any]:
    out: dict[str, Any] = sheet_call(sheets.get, sheet_id)
    return out


@router.post("/api/sheets/{sheet_id}/rows")
def add_row(sheet_id: str, entry: dict[str, Any], sheets: SheetsDep) -> dict[str, Any]:
    sheet_call(sheets.add, sheet_id, entry)
    return sheets.get(sheet_id)


@router.put("/api/sheets/{sheet_id}/rows/{row_id}")
def edit_row(sheet_id: str, row_id: RowId, entry: dict[str, Any], sheets: SheetsDep) -> dict[str, Any]:
    sheet_call(sheets.edit, sheet_id, row_id, entry)
    return sheets.get(sheet_id)


@router.delete("/api/sheets/{sheet_id}/rows/{row_id}")
def delete_row(sheet_id: str, row_id: RowId, sheets: SheetsDep) -> dict[str, Any]:
    sheet_call(sheets.delete, sheet_id, row_id)
    return sheets.get(sheet_id)


@router.post("/api/sheets/{sheet_id}/undo")
def undo(sheet_id: str, sheets: SheetsDep) -> dict[str, Any]:
    done = sheet_call(sheets.undo, sheet_id)
    return {**sheets.get(sheet_id), "undone": done}
