"""The observation vector: named pieces, each with its slice and meaning (issue 2, R11.3).

The vector is built from the acting seat's point of view with seats relative to it:
0 = me, 1 = next (plays after me), 2 = partner, 3 = previous. ``PIECES`` is the single
definition: the encoder writes the pieces in this order, ``piece_slice`` finds them, and the
README table is generated from it (``observation_table_markdown``). Bump ``OBS_VERSION`` on any
change; checkpoints and exports carry it and refuse a mismatch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from baloot_env.actions import PASS, SUN_ACTION
from baloot_env.cards import NUM_SEATS, SUIT_MASKS, mask_of
from baloot_env.hand import BIDDING, DONE, DOUBLING, PLAY, HandState
from baloot_env.projects import FIFTY, FOUR_HUNDRED, HUNDRED, SIRA
from baloot_env.rules import MAX_DEALS, TARGET_SCORE

OBS_VERSION = 1


@dataclass(frozen=True)
class Piece:
    """One named slice of the observation vector."""

    name: str
    size: int
    meaning: str


# The 32-bit card-set pieces come first so they can be unpacked in one call.
CARD_PIECES = (
    Piece("hand", 32, "cards in my hand now (card ids, R1.2)"),
    Piece("turned_card", 32, "the turned card (R2.2), public all hand"),
    Piece("played_me", 32, "cards I have played"),
    Piece("played_next", 32, "cards the next seat has played"),
    Piece("played_partner", 32, "cards my partner has played"),
    Piece("played_previous", 32, "cards the previous seat has played"),
    Piece("trick_card_1", 32, "current trick: the leader's card"),
    Piece("trick_card_2", 32, "current trick: the second card"),
    Piece("trick_card_3", 32, "current trick: the third card"),
    Piece("no_trumps_me", 32, "trumps I am known not to hold (failed an overtrump duty, R5.2/R5.4)"),
    Piece("no_trumps_next", 32, "trumps the next seat is known not to hold"),
    Piece("no_trumps_partner", 32, "trumps my partner is known not to hold"),
    Piece("no_trumps_previous", 32, "trumps the previous seat is known not to hold"),
    Piece("project_cards_me", 32, "cards of my own projects (known to me from the deal, R6.1)"),
    Piece("project_cards_next", 32, "cards of the next seat's projects, once public (R6.2)"),
    Piece("project_cards_partner", 32, "cards of my partner's projects, once public (R6.2)"),
    Piece("project_cards_previous", 32, "cards of the previous seat's projects, once public (R6.2)"),
)
OTHER_PIECES = (
    Piece("phase", 4, "one-hot: bidding, doubling, play, done"),
    Piece("dealer", 4, "one-hot relative seat of the dealer"),
    Piece("bid_round", 2, "one-hot: calling round 1 or 2 (R3.1, R3.4)"),
    Piece("bids_round_1", 24, "per relative seat, one-hot of its round-1 call: pass, hokum S/H/D/C, sun"),
    Piece("bids_round_2", 24, "per relative seat, one-hot of its round-2 call: pass, hokum S/H/D/C, sun"),
    Piece("doubling_calls", 20, "per relative seat: passed, double, three, four, gahwa said (R4)"),
    Piece("contract", 2, "one-hot: hokum, sun (zeros until settled)"),
    Piece("trump", 4, "one-hot trump suit S H D C in Hokum"),
    Piece("caller", 4, "one-hot relative seat of the caller (who took the turned card, R2.3)"),
    Piece("level", 5, "one-hot doubling level 1-5 (R4.1)"),
    Piece("last_raiser", 4, "one-hot relative seat that raised last (R7.1)"),
    Piece("trick_leader", 4, "one-hot relative seat that led the current trick"),
    Piece("trick_winning", 4, "one-hot relative seat winning the current trick as it stands"),
    Piece("voids", 16, "per relative seat, suits S H D C it is known to lack (R5.2, R5.4)"),
    Piece("project_kinds", 16, "per relative seat, counts/2 of sira, fifty, hundred, four hundred (mine always, others once public)"),
    Piece("baloot", 4, "one-hot relative seat that announced the baloot (R6.5)"),
    Piece("tricks_won", 2, "tricks won / 8: my team, their team"),
    Piece("raw_points", 2, "raw card points won / 162: my team, their team"),
    Piece("trick_number", 1, "completed tricks / 8"),
    Piece("match_score", 2, "match score / 152, capped at 1: my team, their team"),
    Piece("deals_played", 1, "deals played in this match / 99 (R8.4)"),
    Piece("match_mode", 3, "one-hot: single hand episode, target 152 (R8.1), fixed hands (R8.2)"),
    Piece("hands_left", 1, "in hands mode, scored hands still to play / 11"),
)
PIECES = CARD_PIECES + OTHER_PIECES
OBS_SIZE = sum(p.size for p in PIECES)
_OFFSETS: dict[str, int] = {}
_off = 0
for _p in PIECES:
    _OFFSETS[_p.name] = _off
    _off += _p.size
_CARD_BLOCK = 32 * len(CARD_PIECES)


def piece_slice(name: str) -> slice:
    """The slice of the vector that holds piece ``name``."""
    start = _OFFSETS[name]
    return slice(start, start + next(p.size for p in PIECES if p.name == name))


def observation_table_markdown() -> str:
    """The README's observation table, generated from ``PIECES``."""
    lines = [
        f"Observation version {OBS_VERSION}, {OBS_SIZE} floats in [0, 1]. Seats are relative: me, next, partner, previous.",
        "",
        "| piece | slice | size | meaning |",
        "|---|---|---|---|",
    ]
    for p in PIECES:
        s = piece_slice(p.name)
        lines.append(f"| `{p.name}` | {s.start}:{s.stop} | {p.size} | {p.meaning} |")
    return "\n".join(lines)


_PHASE_INDEX = {BIDDING: 0, DOUBLING: 1, PLAY: 2, DONE: 3}
_KIND_INDEX = {SIRA: 0, FIFTY: 1, HUNDRED: 2, FOUR_HUNDRED: 3}


@dataclass(frozen=True)
class MatchContext:
    """What the observation needs to know about the match around a hand."""

    mode: str = "hand"  # "hand" (single-hand episode), "target" or "hands"
    score: tuple[int, int] = (0, 0)  # absolute teams 0 and 1
    deals_played: int = 0
    hands_left: int = 0


def _bid_column(action: int) -> int:
    return 0 if action == PASS else 5 if action == SUN_ACTION else action - 32  # hokum 33-36 -> 1-4


def encode(state: HandState, seat: int, match: MatchContext | None = None) -> np.ndarray:
    """The observation of ``seat`` (float32, length ``OBS_SIZE``); only what the seat may know."""
    match = match or MatchContext()
    rel = [(seat + i) % NUM_SEATS for i in range(NUM_SEATS)]  # relative index -> absolute seat
    trump = state.trump
    masks = np.zeros(len(CARD_PIECES), dtype="<u4")
    masks[0] = state.hands[seat]
    masks[1] = 1 << state.deal.turned
    for i in range(4):
        s = rel[i]
        masks[2 + i] = state.played_by[s]
        masks[9 + i] = state.no_trumps[s]
        if i == 0 or state.projects_public(s):
            masks[13 + i] = mask_of(c for p in state.projects[s] for c in p.cards)
    for j, c in enumerate(state.trick_cards):
        masks[6 + j] = 1 << c
    out = np.empty(OBS_SIZE, dtype=np.float32)
    out[:_CARD_BLOCK] = np.unpackbits(masks.view(np.uint8), bitorder="little")
    o = out[_CARD_BLOCK:]
    o[:] = 0.0
    base = -_CARD_BLOCK

    def at(name: str) -> int:
        return _OFFSETS[name] + base

    o[at("phase") + _PHASE_INDEX[state.phase]] = 1.0
    o[at("dealer") + (state.dealer - seat) % 4] = 1.0
    o[at("bid_round") + state.bid_round - 1] = 1.0
    b1, b2 = at("bids_round_1"), at("bids_round_2")
    for rnd, s, a in state.bids:
        o[(b1 if rnd == 1 else b2) + 6 * ((s - seat) % 4) + _bid_column(a)] = 1.0
    dc = at("doubling_calls")
    for s, a in state.doubling_calls:
        o[dc + 5 * ((s - seat) % 4) + (0 if a == PASS else a - 37)] = 1.0
    if state.contract is not None:
        o[at("contract") + (0 if state.contract == "hokum" else 1)] = 1.0
        o[at("caller") + (state.caller - seat) % 4] = 1.0
        if trump >= 0:
            o[at("trump") + trump] = 1.0
        o[at("level") + state.level - 1] = 1.0
        if state.last_raiser >= 0:
            o[at("last_raiser") + (state.last_raiser - seat) % 4] = 1.0
    if state.trick_seats:
        o[at("trick_leader") + (state.trick_seats[0] - seat) % 4] = 1.0
        o[at("trick_winning") + (state.trick_winner - seat) % 4] = 1.0
    v, pk = at("voids"), at("project_kinds")
    for i in range(4):
        s = rel[i]
        bits = state.voids[s]
        for suit in range(4):
            if bits >> suit & 1:
                o[v + 4 * i + suit] = 1.0
        if i == 0 or state.projects_public(s):
            for p in state.projects[s]:
                o[pk + 4 * i + _KIND_INDEX[p.kind]] += 0.5
    if state.baloot_announced:
        o[at("baloot") + (state.baloot_seat - seat) % 4] = 1.0
    my, their = seat % 2, 1 - seat % 2
    t = at("tricks_won")
    o[t], o[t + 1] = state.tricks_won[my] / 8.0, state.tricks_won[their] / 8.0
    r = at("raw_points")
    o[r], o[r + 1] = state.raw[my] / 162.0, state.raw[their] / 162.0
    o[at("trick_number")] = len(state.tricks) / 8.0
    m = at("match_score")
    o[m] = min(match.score[my] / TARGET_SCORE, 1.0)
    o[m + 1] = min(match.score[their] / TARGET_SCORE, 1.0)
    o[at("deals_played")] = min(match.deals_played / MAX_DEALS, 1.0)
    o[at("match_mode") + ("hand", "target", "hands").index(match.mode)] = 1.0
    o[at("hands_left")] = match.hands_left / 11.0
    return out


def action_mask(state: HandState, seat: int) -> np.ndarray:
    """int8[42]: the legal actions of ``seat`` now (R9, R11.3); zeros when it is not to act."""
    out = np.zeros(42, dtype=np.int8)
    if state.to_act == seat:
        legal = state.legal_mask()
        out[:] = np.unpackbits(np.array([legal], dtype="<u8").view(np.uint8), bitorder="little")[:42]
    return out


SUIT_BITS = SUIT_MASKS  # re-exported for decoders in tests
