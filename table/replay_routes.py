"""The table server's routes for stored hands (``table.replay``): a table's hands for its
players, the evaluator's hands, and one hand's frames seen from a seat or from above."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException

from table.deps import RowId, StoreDep
from table.replay import ALL, frames
from table.seating import token_hash
from table.store import Store

router = APIRouter()
PLAYERS_ONLY = "the hands of a table are shown to its players (give a seat's token)"


def room_token_ok(room_data: dict[str, Any], token: str) -> bool:
    """Whether ``token`` is a seat's or the watch token of a stored room."""
    if not token:
        return False
    h = token_hash(token)
    return h in [t for t in room_data["tokens"] if t] or h == room_data.get("watch")


def hand_or_404(store: Store, hand_id: int, token: str) -> dict[str, Any]:
    hand = store.hand(hand_id)
    if hand is None:
        raise HTTPException(404, f"no stored hand {hand_id}")
    if hand["room"] is not None:
        room_data = store.load_room(hand["room"])
        if room_data is None or not room_token_ok(room_data, token):
            raise HTTPException(403, PLAYERS_ONLY)
    return hand


@router.get("/api/rooms/{room_id}/hands")
def room_hands(room_id: str, store: StoreDep, token: str = "") -> dict[str, Any]:
    room_data = store.load_room(room_id)
    if room_data is None or not room_token_ok(room_data, token):
        raise HTTPException(403, PLAYERS_ONLY)
    return {"hands": [summary(h) for h in store.hands(room=room_id)]}


@router.get("/api/replays")
def eval_hands(store: StoreDep, limit: int = 200) -> dict[str, Any]:
    hands = store.hands(source="eval", limit=max(1, min(limit, 2000)))
    hands.sort(key=lambda h: (h["meta"].get("d", 0), h["id"]))
    return {"hands": [summary(h) for h in hands]}


@router.get("/api/hands/{hand_id}")
def hand_frames(hand_id: RowId, store: StoreDep, view: str = ALL, token: str = "") -> dict[str, Any]:
    hand = hand_or_404(store, hand_id, token)
    if view != ALL and view not in ("0", "1", "2", "3"):
        raise HTTPException(400, f"view must be a seat 0-3 or 'all', got {view!r}")
    return {**summary(hand), "view": view, "frames": frames(hand, ALL if view == ALL else int(view))}


def summary(hand: dict[str, Any]) -> dict[str, Any]:
    """A stored hand as the replay lists show it (its actions counted, not sent)."""
    return {
        "id": hand["id"],
        "source": hand["source"],
        "room": hand["room"],
        "number": hand["number"],
        "result": hand["result"],
        "meta": hand["meta"],
        "actions": len(hand["actions"]),
    }
