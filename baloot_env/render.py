"""Readable text rendering of a hand: bids, contract, trick, scores.

The env returns this text in ``render_mode="ansi"`` and prints it in ``render_mode="human"``
(``baloot_env.aec``); both show every hand, as an observer at the table would see it.
"""

from __future__ import annotations

from baloot_env.actions import action_name
from baloot_env.cards import NUM_SUITS, SUIT_NAMES, card_name, cards_of
from baloot_env.hand import HandState
from baloot_env.seats import team_of


def _cards(mask: int) -> str:
    by_suit = []
    for s in range(NUM_SUITS):
        names = [card_name(c) for c in cards_of(mask) if c >> 3 == s]
        if names:
            by_suit.append(" ".join(names))
    return " | ".join(by_suit) or "-"


def render_hand(state: HandState, match_score: tuple[int, int] | None = None, reveal: bool = True) -> str:
    """A text table of the hand; ``reveal`` shows every hand (an observer's view)."""
    lines = []
    contract = "not settled"
    if state.contract == "hokum":
        contract = f"HOKUM in {SUIT_NAMES[state.trump]} by seat {state.caller}"
    elif state.contract == "sun":
        contract = f"SUN by seat {state.caller}"
    level = ("", "", " doubled", " three", " four", " GAHWA")[state.level]
    lines.append(f"dealer {state.dealer}  turned {card_name(state.deal.turned)}  phase {state.phase}")
    lines.append(f"contract: {contract}{level}")
    if state.bids:
        lines.append("bids: " + ", ".join(f"r{r} s{s} {action_name(a)}" for r, s, a in state.bids))
    if state.doubling_calls:
        lines.append("doubling: " + ", ".join(f"s{s} {action_name(a)}" for s, a in state.doubling_calls))
    lines.append("seat | team | hand")
    for seat in range(4):
        marker = "*" if seat == state.to_act else " "
        hand = _cards(state.hands[seat]) if reveal else f"{state.hands[seat].bit_count()} cards"
        lines.append(f"{marker} {seat}  |  {team_of(seat)}   | {hand}")
    if state.trick_cards:
        played = ", ".join(f"s{s} {card_name(c)}" for s, c in zip(state.trick_seats, state.trick_cards, strict=True))
        lines.append(f"trick {len(state.tricks) + 1}: {played}")
    elif state.tricks:
        leader, cards, winner = state.tricks[-1]
        lines.append(f"last trick ({len(state.tricks)}): {' '.join(card_name(c) for c in cards)} won by seat {winner}")
    lines.append(f"tricks {state.tricks_won[0]}-{state.tricks_won[1]}  raw {state.raw[0]}-{state.raw[1]}")
    if state.result is not None:
        r = state.result
        if r.thrown:
            lines.append("thrown in: nobody scores (R3.5)")
        else:
            outcome = "callers won" if r.callers_won else "callers lost"
            lines.append(f"hand result: {outcome}{' KABOOT' if r.kaboot else ''}, score {r.score[0]}-{r.score[1]}")
    if match_score is not None:
        lines.append(f"match score {match_score[0]}-{match_score[1]}")
    return "\n".join(lines)
