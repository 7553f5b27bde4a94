"""A seat's view as plain JSON data, by names (``PlayerView.to_struct`` / ``PlayerView.from_struct``).

For agents that read text rather than 697 floats (a language model, a script in another
language): every field of ``PlayerView`` with cards, suits and calls by name (``"TH"``, ``"H"``,
``"hokum_H"``, ``"double"``; R1.2, R9), the legal actions by name, and the calls, the current
trick and the tricks played in order. ``from_struct`` reads it back into the same ``PlayerView``,
so nothing a seat may know is missing from the JSON: ``tests/baloot_env/test_view_struct.py``
plays the heuristic from views that went through JSON and back, over 2,000 deals, and it plays
exactly as from the original views. ``actions.parse_action`` reads an action's name back to its id.

Standard library only, like the rest of the engine.
"""

from __future__ import annotations

from typing import Any

from baloot_env.actions import action_name, parse_action
from baloot_env.cards import SUIT_NAMES, card_name, cards_of, mask_of, parse_card
from baloot_env.projects import Project
from baloot_env.rules import RuleConfig
from baloot_env.view import PlayerView

STRUCT_FORMAT = "baloot-view-1"


def _cards(mask: int) -> list[str]:
    return [card_name(c) for c in cards_of(mask)]


def _mask(names: list[str]) -> int:
    return mask_of(parse_card(n) for n in names)


def _suits(bits: int) -> list[str]:
    return [SUIT_NAMES[s] for s in range(len(SUIT_NAMES)) if bits >> s & 1]


def _suit_bits(names: list[str]) -> int:
    return sum(1 << SUIT_NAMES.index(n) for n in names)


def to_struct(view: PlayerView) -> dict[str, Any]:
    """``view`` as JSON-ready data by names (module docstring)."""
    return {
        "format": STRUCT_FORMAT,
        "seat": view.seat,
        "phase": view.phase,
        "to_act": view.to_act,
        "dealer": view.dealer,
        "hand": _cards(view.hand),
        "full_hand": _cards(view.full_hand),
        "legal_actions": [action_name(a) for a in view.legal_actions],
        "turned": card_name(view.turned),
        "bid_round": view.bid_round,
        "bids": [{"round": r, "seat": s, "call": action_name(a)} for r, s, a in view.bids],
        "doubling": [{"seat": s, "call": action_name(a)} for s, a in view.doubling_calls],
        "contract": view.contract,
        "trump": SUIT_NAMES[view.trump] if view.trump >= 0 else None,
        "caller": view.caller,
        "level": view.level,
        "last_raiser": view.last_raiser,
        "trick": [{"seat": s, "card": card_name(c)} for s, c in zip(view.trick_seats, view.trick_cards, strict=True)],
        "trick_winner": view.trick_winner,
        "tricks": [
            {"leader": leader, "cards": [card_name(c) for c in cards], "winner": winner}
            for leader, cards, winner in view.tricks
        ],
        "played_by": [_cards(m) for m in view.played_by],
        "voids": [_suits(v) for v in view.voids],
        "no_trumps": [_cards(m) for m in view.no_trumps],
        "projects": [
            [{"kind": p.kind, "run": p.is_run, "top": p.top, "cards": [card_name(c) for c in p.cards]} for p in ps]
            for ps in view.projects
        ],
        "baloot_seat": view.baloot_seat,
        "baloot_announced": view.baloot_announced,
        "tricks_won": list(view.tricks_won),
        "raw": list(view.raw),
        "rules": view.rules.to_dict(),
        "match": {
            "mode": view.match_mode,
            "score": list(view.match_score),
            "deals_played": view.deals_played,
            "hands_left": view.hands_left,
        },
    }


def from_struct(data: dict[str, Any]) -> PlayerView:
    """The ``PlayerView`` that ``to_struct`` wrote.

    Raises:
        ValueError: not a view of this format, or a card, suit or call that is not a name of ours.
        KeyError: a field is missing.
    """
    if not isinstance(data, dict) or data.get("format") != STRUCT_FORMAT:
        raise ValueError(f"a view's data must be a mapping of format {STRUCT_FORMAT!r}")
    match = data["match"]
    trump = data["trump"]
    return PlayerView(
        seat=int(data["seat"]),
        phase=str(data["phase"]),
        to_act=int(data["to_act"]),
        dealer=int(data["dealer"]),
        hand=_mask(data["hand"]),
        full_hand=_mask(data["full_hand"]),
        legal_mask=sum(1 << parse_action(a) for a in data["legal_actions"]),
        turned=parse_card(data["turned"]),
        bid_round=int(data["bid_round"]),
        bids=tuple((int(b["round"]), int(b["seat"]), parse_action(b["call"])) for b in data["bids"]),
        doubling_calls=tuple((int(d["seat"]), parse_action(d["call"])) for d in data["doubling"]),
        contract=data["contract"],
        trump=SUIT_NAMES.index(trump) if trump is not None else -1,
        caller=int(data["caller"]),
        level=int(data["level"]),
        last_raiser=int(data["last_raiser"]),
        trick_seats=tuple(int(t["seat"]) for t in data["trick"]),
        trick_cards=tuple(parse_card(t["card"]) for t in data["trick"]),
        trick_winner=int(data["trick_winner"]),
        tricks=tuple(
            (int(t["leader"]), tuple(parse_card(c) for c in t["cards"]), int(t["winner"])) for t in data["tricks"]
        ),
        played_by=tuple(_mask(cards) for cards in data["played_by"]),
        voids=tuple(_suit_bits(v) for v in data["voids"]),
        no_trumps=tuple(_mask(cards) for cards in data["no_trumps"]),
        projects=tuple(
            tuple(
                Project(p["kind"], bool(p["run"]), int(p["top"]), tuple(parse_card(c) for c in p["cards"])) for p in ps
            )
            for ps in data["projects"]
        ),
        baloot_seat=int(data["baloot_seat"]),
        baloot_announced=bool(data["baloot_announced"]),
        tricks_won=(int(data["tricks_won"][0]), int(data["tricks_won"][1])),
        raw=(int(data["raw"][0]), int(data["raw"][1])),
        rules=RuleConfig.from_dict(data["rules"]),
        match_mode=str(match["mode"]),
        match_score=(int(match["score"][0]), int(match["score"][1])),
        deals_played=int(match["deals_played"]),
        hands_left=int(match["hands_left"]),
    )


__all__ = ["STRUCT_FORMAT", "from_struct", "to_struct"]
