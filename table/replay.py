"""Replays: step through any stored hand from one seat's view or all four, so that a researcher
can watch, say, the deals where a policy lost most.

A stored hand (``table.store``) is its deal, rules, match score and actions; ``frames`` replays
it through the engine (``HandState``: the rules are the only authority) and returns what a
seat saw after each action (``table.views``: the same messages as at the live table) or all
four hands. Only finished hands are stored, so a replay never shows a hand still being played.

The hands of a ``python -m eval`` run get there through ``eval.replays.save_eval_hands``
(``python -m eval --save-hands DB``); the viewer (``python -m table --db DB``, page ``/replay``)
opens the file.
"""

from __future__ import annotations

from typing import Any

from baloot_env.scoring import qaid
from baloot_env.view import PlayerView
from eval.games import start_of
from table.views import all_message, view_message

ALL = "all"


def frames(hand: dict[str, Any], view: int | str = ALL) -> list[dict[str, Any]]:
    """What ``view`` (a seat 0-3, or "all") saw before the first action and after each one.

    Each frame is a view message (``table.views``) with ``step`` (the action that led to it:
    ``{"index", "seat", "action", "t", "by", "think"}``, None for the first; ``think`` is the
    seconds the seat took, from the previous action or the end of the pause after a finished
    trick, None where the hand has no times), ``gathering`` (the action
    finished a trick: the frame shows it, as the live table does, rather than an empty table;
    ``last_trick`` holds it) and, on the last, ``result`` (with its ``qaid``:
    ``baloot_env.scoring.qaid``).

    Raises:
        ValueError: ``view`` is not a seat or "all"; StateError/IllegalActionError: a stored hand
            that does not replay.
    """
    if view != ALL and (isinstance(view, bool) or view not in range(4)):
        raise ValueError(f"view must be a seat 0-3 or 'all', got {view!r}")
    state, context = start_of(hand)

    def frame(step: dict[str, Any] | None, gathering: bool = False) -> dict[str, Any]:
        msg = (
            view_message(PlayerView.from_state(state, view, context))
            if isinstance(view, int)
            else all_message(state, context)
        )
        msg["step"] = step
        msg["gathering"] = gathering
        return msg

    gather = float((hand.get("meta") or {}).get("gather") or 0.0)
    out = [frame(None)]
    turn_began: float | None = 0.0  # when the turn of the seat to act began (seconds into the hand)
    for i, (seat, action, t, by) in enumerate(hand["actions"]):
        if seat != state.to_act:
            raise ValueError(f"stored hand: action {i} is by seat {seat}, but seat {state.to_act} was to act")
        tricks = len(state.tricks)
        state.apply(action)
        think = None if t is None or turn_began is None else round(max(0.0, t - turn_began), 1)
        gathered = len(state.tricks) > tricks
        turn_began = None if t is None else t + (gather if gathered else 0.0)
        step = {"index": i, "seat": seat, "action": action, "t": t, "by": by, "think": think}
        out.append(frame(step, gathered))
    out[-1]["result"] = (
        {**state.result.to_info(), "qaid": qaid(state.result, state.rules, state.match_score)} if state.result else None
    )
    return out
