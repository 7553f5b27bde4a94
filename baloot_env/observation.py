"""The observation vector: named pieces, each with its slice and meaning (issue 2, R11.3).

The vector is built from the acting seat's point of view with seats relative to it:
0 = me, 1 = next (plays after me), 2 = partner, 3 = previous. ``PIECES`` is the single
definition: the encoder writes the pieces in this order, ``piece_slice`` finds them, and the
README table is generated from it (``observation_table_markdown``). Bump ``OBS_VERSION`` on any
change; checkpoints and exports carry it and refuse a mismatch.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from baloot_env.actions import PASS, SUN_ACTION
from baloot_env.cards import mask_of
from baloot_env.hand import BIDDING, DONE, DOUBLING, PLAY, HandState
from baloot_env.match import SINGLE_HAND, MatchContext, match_context  # noqa: F401 (re-exported)
from baloot_env.projects import FIFTY, FOUR_HUNDRED, HUNDRED, SIRA, Project
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
    Piece("match_mode", 3, "one-hot: single hand episode, target 152 (R8.1), fixed hands (R8.2)"),
    Piece("tricks_won", 2, "tricks won / 8: my team, their team"),
    Piece("raw_points", 2, "raw card points won / 162: my team, their team"),
    Piece("trick_number", 1, "completed tricks / 8"),
    Piece("match_score", 2, "match score / 152, capped at 1: my team, their team"),
    Piece("deals_played", 1, "deals played in this match / 99 (R8.4)"),
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


@lru_cache(maxsize=4096)
def _project_mask(project: Project) -> int:
    return mask_of(project.cards)


_O = _OFFSETS  # short alias for the fixed offsets below
_O_PHASE, _O_DEALER, _O_ROUND = _O["phase"], _O["dealer"], _O["bid_round"]
_O_BIDS = (0, _O["bids_round_1"], _O["bids_round_2"])
_O_DOUBLING, _O_CONTRACT, _O_TRUMP = _O["doubling_calls"], _O["contract"], _O["trump"]
_O_CALLER, _O_LEVEL, _O_RAISER = _O["caller"], _O["level"], _O["last_raiser"]
_O_LEADER, _O_WINNING, _O_VOIDS = _O["trick_leader"], _O["trick_winning"], _O["voids"]
_O_KINDS, _O_BALOOT, _O_TRICKS = _O["project_kinds"], _O["baloot"], _O["tricks_won"]
_O_RAW, _O_TRICKNO, _O_SCORE = _O["raw_points"], _O["trick_number"], _O["match_score"]
_O_DEALS, _O_MODE, _O_LEFT = _O["deals_played"], _O["match_mode"], _O["hands_left"]
if not (_O["hands_left"] == OBS_SIZE - 1 and _O["tricks_won"] == OBS_SIZE - 9):
    raise RuntimeError("the scalar pieces must close the vector: encode() writes them as one tail")
_MODES = {"hand": 0, "target": 1, "hands": 2}
_VOID_INDEX = tuple(tuple(s for s in range(4) if bits >> s & 1) for bits in range(16))


def encode(state: HandState, seat: int, match: MatchContext | None = None) -> np.ndarray:
    """The observation of ``seat`` (float32, length ``OBS_SIZE``); only what the seat may know.

    The fast path, straight from the engine's state (the environment and self-play batches).
    ``encode_view`` computes the same vector from a seat's ``PlayerView``; both are this one
    encoder, and tests prove them equal bit for bit.
    """
    return _encode(state, seat, state.hands[seat], state.deal.turned, match or SINGLE_HAND)


def encode_view(view: Any) -> np.ndarray:
    """The observation of a seat from its view alone (``agents.PlayerView``: what the seat may
    know, its match context included); equal to ``encode(state, view.seat, context)``."""
    return _encode(view, view.seat, view.hand, view.turned, view.context)


def _encode(state: Any, seat: int, hand: int, turned: int, match: MatchContext) -> np.ndarray:
    """The encoder. ``state`` is a ``HandState`` or a ``PlayerView``: only the fields the seat
    may know are read (its own ``hand``, the ``turned`` card, calls, cards played, what play
    has shown, projects once public, R6.2, the baloot once announced, R6.5).

    Written for speed (it runs once per decision): card sets are unpacked from bit masks in
    one call and every one-hot entry is collected into one index list.
    """
    played, no_trumps, projects = state.played_by, state.no_trumps, state.projects
    trick_cards = state.trick_cards
    public = [True, False, False, False]
    masks = [hand, 1 << turned, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    started = bool(state.tricks)
    for i in range(4):
        s = (seat + i) & 3
        masks[2 + i] = played[s]
        masks[9 + i] = no_trumps[s]
        if i == 0 or started or s in state.trick_seats:  # R6.2
            public[i] = True
            m = 0
            for p in projects[s]:
                m |= _project_mask(p)
            masks[13 + i] = m
    for j, c in enumerate(trick_cards):
        masks[6 + j] = 1 << c
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    out[:_CARD_BLOCK] = np.unpackbits(np.array(masks, dtype="<u4").view(np.uint8), bitorder="little")
    idx = [_O_PHASE + _PHASE_INDEX[state.phase], _O_DEALER + ((state.dealer - seat) & 3), _O_ROUND + state.bid_round - 1]
    for rnd, s, a in state.bids:
        idx.append(_O_BIDS[rnd] + 6 * ((s - seat) & 3) + (0 if a == PASS else 5 if a == SUN_ACTION else a - 32))
    for s, a in state.doubling_calls:
        idx.append(_O_DOUBLING + 5 * ((s - seat) & 3) + (0 if a == PASS else a - 37))
    if state.contract is not None:
        idx.append(_O_CONTRACT + (0 if state.contract == "hokum" else 1))
        idx.append(_O_CALLER + ((state.caller - seat) & 3))
        if state.trump >= 0:
            idx.append(_O_TRUMP + state.trump)
        idx.append(_O_LEVEL + state.level - 1)
        if state.last_raiser >= 0:
            idx.append(_O_RAISER + ((state.last_raiser - seat) & 3))
    if trick_cards:
        idx.append(_O_LEADER + ((state.trick_seats[0] - seat) & 3))
        idx.append(_O_WINNING + ((state.trick_winner - seat) & 3))
    voids = state.voids
    for i in range(4):
        s = (seat + i) & 3
        for suit in _VOID_INDEX[voids[s]]:
            idx.append(_O_VOIDS + 4 * i + suit)
    if state.baloot_announced:
        idx.append(_O_BALOOT + ((state.baloot_seat - seat) & 3))
    idx.append(_O_MODE + _MODES[match.mode])
    out[idx] = 1.0
    for i in range(4):
        if public[i]:
            for p in projects[(seat + i) & 3]:
                out[_O_KINDS + 4 * i + _KIND_INDEX[p.kind]] += 0.5
    my, their = seat & 1, 1 - (seat & 1)
    score = match.score
    out[_O_TRICKS:] = (  # the scalar tail, in PIECES order
        state.tricks_won[my] / 8.0,
        state.tricks_won[their] / 8.0,
        state.raw[my] / 162.0,
        state.raw[their] / 162.0,
        len(state.tricks) / 8.0,
        min(score[my] / TARGET_SCORE, 1.0),
        min(score[their] / TARGET_SCORE, 1.0),
        min(match.deals_played / MAX_DEALS, 1.0),
        match.hands_left / 11.0,
    )
    return out


def action_mask(state: HandState, seat: int) -> np.ndarray:
    """int8[42]: the legal actions of ``seat`` now (R9, R11.3); zeros when it is not to act."""
    if state.to_act != seat:
        return np.zeros(42, dtype=np.int8)
    legal = state.legal_mask()
    bits = np.unpackbits(np.frombuffer(legal.to_bytes(6, "little"), dtype=np.uint8), bitorder="little")
    return bits[:42].view(np.int8)


# ---------------------------------------------------------------------------- full-information state
# The state a centralised critic reads (``raw_env.state()``): never given to an agent. It is the
# observation of seat 0, whose relative seats are the absolute ones (me = seat 0, next = seat 1,
# partner = seat 2, previous = seat 3), followed by everything hidden from that view: every
# seat's hand and, while the calling goes on, the order of the undealt stock, which decides who
# gets which card (R2.3). With these the state fixes the rest of the hand given the actions.
STATE_VERSION = 1
STOCK_SIZE = 11  # R2.2
STATE_PIECES = (
    Piece("observation", OBS_SIZE, "the observation of seat 0 (relative seats = absolute seats)"),
    Piece("hand_seat_0", 32, "cards in seat 0's hand now (R1.2 card ids)"),
    Piece("hand_seat_1", 32, "cards in seat 1's hand now"),
    Piece("hand_seat_2", 32, "cards in seat 2's hand now"),
    Piece("hand_seat_3", 32, "cards in seat 3's hand now"),
    Piece("stock_order", 32, "per card still in the undealt stock, (position + 1) / 11 in dealing order (R2.2, R2.3); zeros once dealt"),
    Piece("to_act", 4, "one-hot absolute seat to act; zeros when the hand is over"),
)  # fmt: skip
STATE_SIZE = sum(p.size for p in STATE_PIECES)
_STATE_OFFSETS: dict[str, int] = {}
_off = 0
for _p in STATE_PIECES:
    _STATE_OFFSETS[_p.name] = _off
    _off += _p.size


def state_slice(name: str) -> slice:
    """The slice of the state vector that holds piece ``name`` (``STATE_PIECES``)."""
    start = _STATE_OFFSETS[name]
    return slice(start, start + next(p.size for p in STATE_PIECES if p.name == name))


def encode_state(state: HandState, match: MatchContext | None = None) -> np.ndarray:
    """The full-information state (float32, length ``STATE_SIZE``, values in [0, 1]).

    For centralised critics and tools only: it shows every hand and the stock, which no seat
    may see (R2.2), so it must never reach an agent's policy.
    """
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    out[:OBS_SIZE] = encode(state, 0, match)
    start = _STATE_OFFSETS["hand_seat_0"]
    out[start : start + 128] = np.unpackbits(np.array(state.hands, dtype="<u4").view(np.uint8), bitorder="little")
    if state.phase == BIDDING:  # the stock is dealt when the contract is settled (R2.3)
        base = _STATE_OFFSETS["stock_order"]
        for position, card in enumerate(state.deal.stock):
            out[base + card] = (position + 1) / STOCK_SIZE
    if state.phase != DONE:
        out[_STATE_OFFSETS["to_act"] + state.to_act] = 1.0
    return out
