"""What a client is sent: a seat's view of the hand as JSON, built from ``agents.PlayerView``.

A seat's message is made only from that seat's ``PlayerView`` (which holds exactly what the
seat may know: its own cards, the turned card, the calls, the cards played, projects once
public, R6.2, the baloot once announced, R6.5), so a client never receives another seat's
cards. The "all four" view, which shows every hand, is built from the full state and is only
for tables without a person (watch mode) and for finished hands (replays); a spectator of a
listed table where people play gets the public view, what every seat sees.

Cards are written as names (R1.2: ``"TH"``), actions as R9 ids; the page translates both into
English or Arabic.
"""

from __future__ import annotations

from typing import Any

from baloot_env.actions import action_name
from baloot_env.cards import NUM_SEATS, card_name, cards_of, strength
from baloot_env.deal import FIRST_HAND_SIZE
from baloot_env.hand import PLAY, HandState
from baloot_env.match import MatchContext
from baloot_env.view import PlayerView

SUITS = "SHDC"


RED_SUITS = (1, 2)  # hearts and diamonds (R1.2: S=0 H=1 D=2 C=3)


def suit_order(present: set[int], trump: int) -> list[int]:
    """The suits of a hand in display order: trump first, then the colours alternating wherever
    the suits held allow (black, red, black, red), as players sort their cards."""
    rest: list[int] = [s for s in (0, 1, 3, 2) if s in present]  # spades, hearts, clubs, diamonds
    order = [trump] if trump in rest else []
    rest = [s for s in rest if s not in order]
    while rest:
        if order:
            red = order[-1] not in RED_SUITS  # the other colour
        else:  # start with the colour held in more suits, so that the other one falls between
            reds = sum(s in RED_SUITS for s in rest)
            red = reds > len(rest) - reds
        pick = next((s for s in rest if (s in RED_SUITS) == red), rest[0])
        order.append(pick)
        rest.remove(pick)
    return order


def _hand_order(cards: list[int], trump: int) -> list[str]:
    """A hand sorted for display: by suit (``suit_order``), then strongest first within a suit."""
    rank = {s: i for i, s in enumerate(suit_order({c >> 3 for c in cards}, trump))}
    ordered = sorted(cards, key=lambda c: (rank[c >> 3], -strength(c, trump)))
    return [card_name(c) for c in ordered]


def _projects(projects: tuple[Any, ...]) -> list[list[dict[str, Any]]]:
    return [[p.to_dict() for p in ps] for ps in projects]


def hand_sizes(view: PlayerView) -> list[int]:
    """How many cards each seat holds, which every seat may know: five each before the contract
    (R2.2), then eight (R2.3) less the cards it has played."""
    if view.contract is None:
        return [FIRST_HAND_SIZE] * NUM_SEATS
    return [8 - view.played_by[s].bit_count() for s in range(NUM_SEATS)]


def view_message(view: PlayerView) -> dict[str, Any]:
    """The hand as ``view.seat`` may see it (``PlayerView``'s fields, cards as names)."""
    last = view.tricks[-1] if view.tricks else None
    return {
        "seat": view.seat,
        "phase": view.phase,
        "to_act": view.to_act,
        "dealer": view.dealer,
        "hand": _hand_order(view.hand_cards, view.trump),
        "hand_sizes": hand_sizes(view),
        "legal": [{"id": a, "name": action_name(a)} for a in view.legal_actions],
        "turned": card_name(view.turned),
        "bid_round": view.bid_round,
        "bids": [list(b) for b in view.bids],
        "doubling": [list(d) for d in view.doubling_calls],
        "contract": view.contract,
        "trump": SUITS[view.trump] if view.trump >= 0 else None,
        "caller": view.caller,
        "level": view.level,
        "last_raiser": view.last_raiser,
        "trick": [[s, card_name(c)] for s, c in zip(view.trick_seats, view.trick_cards, strict=True)],
        "trick_winner": view.trick_winner,
        "last_trick": None
        if last is None
        else {
            "leader": last[0],
            "cards": [[(last[0] + i) % NUM_SEATS, card_name(c)] for i, c in enumerate(last[1])],
            "winner": last[2],
        },
        "trick_number": len(view.tricks),
        "tricks_won": list(view.tricks_won),
        "raw": list(view.raw),
        "projects": _projects(view.projects),
        "baloot_seat": view.baloot_seat,
        "match": {
            "mode": view.match_mode,
            "score": list(view.match_score),
            "deals_played": view.deals_played,
            "hands_left": view.hands_left,
        },
    }


def all_message(state: HandState, context: MatchContext) -> dict[str, Any]:
    """Every hand at once (watch mode, replays of finished hands): seat 0's view, then all four
    hands and every project. Never sent to a table where a person plays (module docstring)."""
    msg = view_message(PlayerView.from_state(state, 0, context))
    msg["seat"] = None
    msg["legal"] = []
    msg["hands"] = [_hand_order(cards_of(state.hands[s]), state.trump) for s in range(NUM_SEATS)]
    del msg["hand"]
    msg["projects"] = [[p.to_dict() for p in state.projects[s]] for s in range(NUM_SEATS)]
    msg["baloot_seat"] = state.baloot_seat
    return msg


def public_message(state: HandState, context: MatchContext) -> dict[str, Any]:
    """What the whole table sees (a spectator of a listed table where people play): seat 0's
    view without what only seat 0 may know: no cards in hand (``hand_sizes`` shows how many),
    no legal actions, projects once public (R6.2), the baloot once announced (R6.5)."""
    msg = view_message(PlayerView.from_state(state, 0, context))
    msg["seat"] = None
    msg["hand"] = []
    msg["legal"] = []
    msg["projects"] = [
        [p.to_dict() for p in state.projects[s]] if state.projects_public(s) else [] for s in range(NUM_SEATS)
    ]
    msg["baloot_seat"] = state.baloot_seat if state.baloot_announced else -1
    return msg


def turn_kind(state: HandState | None) -> str:
    """Which clock a turn runs on (R10.1): "card" in the play, "call" in bidding and doubling."""
    return "card" if state is not None and state.phase == PLAY else "call"
