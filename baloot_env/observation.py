"""The observation vector: named pieces, each with its slice and meaning (R11.3).

The vector is built from the acting seat's point of view with seats relative to it:
0 = me, 1 = next (plays after me), 2 = partner, 3 = previous. ``PIECES`` is the single
definition: the encoder writes the pieces in this order, ``piece_slice`` finds them, and the
docs/environment.md's table is generated from it (``observation_table_markdown``). Bump ``OBS_VERSION`` on any
change; checkpoints and exports carry it and refuse a mismatch.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from baloot_env.actions import HOKUM_ACTIONS, NUM_ACTIONS, PASS, RAISE_ACTIONS, SUN_ACTION
from baloot_env.cards import HOKUM_RAW_TOTAL, NUM_CARDS, NUM_SUITS, NUM_TRICKS, mask_of
from baloot_env.deal import STOCK_SIZE
from baloot_env.hand import BIDDING, DONE, HandState
from baloot_env.match import SINGLE_HAND, MatchContext, match_context  # noqa: F401 (re-exported)
from baloot_env.phases import PHASES
from baloot_env.projects import FIFTY, FOUR_HUNDRED, HUNDRED, SIRA, Project
from baloot_env.rules import HANDS_CHOICES, MAX_DEALS, TARGET_SCORE
from baloot_env.scoring import HOKUM, SUN
from baloot_env.seats import NUM_SEATS, next_seat, other_team, relative_seat, team_of

OBS_VERSION = 1


@dataclass(frozen=True)
class Piece:
    """One named slice of the observation vector."""

    name: str
    size: int
    meaning: str


# The 32-bit card-set pieces come first so they can be unpacked in one call.
CARD_PIECES = (
    Piece("hand", NUM_CARDS, "cards in my hand now (card ids, R1.2)"),
    Piece("turned_card", NUM_CARDS, "the turned card (R2.2), public all hand"),
    Piece("played_me", NUM_CARDS, "cards I have played"),
    Piece("played_next", NUM_CARDS, "cards the next seat has played"),
    Piece("played_partner", NUM_CARDS, "cards my partner has played"),
    Piece("played_previous", NUM_CARDS, "cards the previous seat has played"),
    Piece("trick_card_1", NUM_CARDS, "current trick: the leader's card"),
    Piece("trick_card_2", NUM_CARDS, "current trick: the second card"),
    Piece("trick_card_3", NUM_CARDS, "current trick: the third card"),
    Piece("no_trumps_me", NUM_CARDS, "trumps I am known not to hold (failed an overtrump duty, R5.2/R5.4)"),
    Piece("no_trumps_next", NUM_CARDS, "trumps the next seat is known not to hold"),
    Piece("no_trumps_partner", NUM_CARDS, "trumps my partner is known not to hold"),
    Piece("no_trumps_previous", NUM_CARDS, "trumps the previous seat is known not to hold"),
    Piece("project_cards_me", NUM_CARDS, "cards of my own projects (known to me from the deal, R6.1)"),
    Piece("project_cards_next", NUM_CARDS, "cards of the next seat's projects, once public (R6.2)"),
    Piece("project_cards_partner", NUM_CARDS, "cards of my partner's projects, once public (R6.2)"),
    Piece("project_cards_previous", NUM_CARDS, "cards of the previous seat's projects, once public (R6.2)"),
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
    Piece(
        "project_kinds",
        16,
        "per relative seat, counts/2 of sira, fifty, hundred, four hundred (mine always, others once public)",
    ),
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
_CARD_BLOCK = NUM_CARDS * len(CARD_PIECES)
if any(p.size != NUM_CARDS for p in CARD_PIECES):
    raise RuntimeError("every card piece is one bit per card (R1.2): encode() unpacks them as 32-bit masks")


# The privileged critic's extra input (training only), read after the observation and never by a
# player: every hidden card, as the four current hands relative to the acting seat.
HIDDEN_HANDS = Piece(
    "hidden_hands",
    NUM_SEATS * NUM_CARDS,
    "privileged, training only (after the observation, for a privileged critic): the four current hands, "
    "me, next, partner, previous (card ids as bits, R1.2)",
)
PRIVILEGED_SIZE = HIDDEN_HANDS.size


def hidden_hands(rows: Any) -> np.ndarray:
    """``HIDDEN_HANDS`` of N positions: N x 128 float32 from N rows of four hand masks in
    relative order (me, next, partner, previous), 32 bits per hand."""
    masks: np.ndarray = np.asarray(rows, dtype="<u4").reshape(-1, NUM_SEATS)
    out: np.ndarray = np.unpackbits(masks.view(np.uint8), axis=1, bitorder="little").astype(np.float32)
    return out


def seat_hidden_hands(hands: Any, seat: int) -> np.ndarray:
    """``HIDDEN_HANDS`` of one position: the four hand masks ``hands`` (by absolute seat) as
    ``seat`` sees them around the table, 128 float32."""
    out: np.ndarray = hidden_hands([[hands[(seat + k) % NUM_SEATS] for k in range(NUM_SEATS)]])[0]
    return out


def piece_slice(name: str) -> slice:
    """The slice of the vector that holds piece ``name``."""
    start = _OFFSETS[name]
    return slice(start, start + next(p.size for p in PIECES if p.name == name))


def observation_table_markdown() -> str:
    """The observation table of docs/environment.md, generated from ``PIECES``."""
    lines = [
        f"Observation version {OBS_VERSION}, {OBS_SIZE} floats in [0, 1]. Seats are relative: me, next, partner, previous.",
        "",
        "| piece | slice | size | meaning |",
        "|---|---|---|---|",
    ]
    for p in PIECES:
        s = piece_slice(p.name)
        lines.append(f"| `{p.name}` | {s.start}:{s.stop} | {p.size} | {p.meaning} |")
    h = HIDDEN_HANDS
    lines += [
        "",
        f"Not part of the observation: `{h.name}` ({h.size} floats, `{OBS_SIZE}:{OBS_SIZE + h.size}` after it), "
        f"{h.meaning}; `hidden_hands` and `seat_hidden_hands` encode it.",
    ]
    return "\n".join(lines)


_PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}
_KIND_INDEX = {SIRA: 0, FIFTY: 1, HUNDRED: 2, FOUR_HUNDRED: 3}
_MODES = {"hand": 0, "target": 1, "hands": 2}
# One-hot of a call within a seat's block: pass, hokum S/H/D/C, sun (bids); pass, the raises (doubling).
_BID_INDEX = {PASS: 0, **{a: 1 + s for s, a in enumerate(HOKUM_ACTIONS)}, SUN_ACTION: 1 + len(HOKUM_ACTIONS)}
_DOUBLING_INDEX = {PASS: 0, **{a: 1 + i for i, a in enumerate(RAISE_ACTIONS)}}
# Scales of the scalar pieces (observation version 1): raw points are divided by the Hokum total,
# 162, in Sun too, where they reach 130 at most.
RAW_SCALE = float(HOKUM_RAW_TOTAL)
HANDS_LEFT_SCALE = float(max(HANDS_CHOICES))


@lru_cache(maxsize=4096)
def _project_mask(project: Project) -> int:
    return mask_of(project.cards)


def _per_seat_width(name: str) -> int:
    """The width of one relative seat's block in a per-seat piece."""
    size = next(p.size for p in PIECES if p.name == name)
    if size % NUM_SEATS:
        raise RuntimeError(f"piece {name!r} ({size}) is not one block per relative seat")
    return size // NUM_SEATS


# Where the encoder writes, all read off PIECES: card pieces by their index in CARD_PIECES
# (relative seats in order me, next, partner, previous), the others by offset.
_CARD_INDEX = {p.name: i for i, p in enumerate(CARD_PIECES)}
_C_HAND, _C_TURNED = _CARD_INDEX["hand"], _CARD_INDEX["turned_card"]
_C_PLAYED, _C_TRICK = _CARD_INDEX["played_me"], _CARD_INDEX["trick_card_1"]
_C_NO_TRUMPS, _C_PROJECTS = _CARD_INDEX["no_trumps_me"], _CARD_INDEX["project_cards_me"]
_O = _OFFSETS
_O_PHASE, _O_DEALER, _O_ROUND = _O["phase"], _O["dealer"], _O["bid_round"]
_O_BIDS = {1: _O["bids_round_1"], 2: _O["bids_round_2"]}
_O_DOUBLING, _O_CONTRACT, _O_TRUMP = _O["doubling_calls"], _O["contract"], _O["trump"]
_O_CALLER, _O_LEVEL, _O_RAISER = _O["caller"], _O["level"], _O["last_raiser"]
_O_LEADER, _O_WINNING, _O_VOIDS = _O["trick_leader"], _O["trick_winning"], _O["voids"]
_O_KINDS, _O_BALOOT, _O_MODE = _O["project_kinds"], _O["baloot"], _O["match_mode"]
_W_BIDS, _W_DOUBLING = _per_seat_width("bids_round_1"), _per_seat_width("doubling_calls")
_W_VOIDS, _W_KINDS = _per_seat_width("voids"), _per_seat_width("project_kinds")
_CONTRACT_INDEX = {HOKUM: 0, SUN: 1}
# The scalar pieces close the vector and are written as one tail, in this order.
_TAIL = ("tricks_won", "raw_points", "trick_number", "match_score", "deals_played", "hands_left")
_O_TAIL = _O[_TAIL[0]]
if [p.name for p in PIECES[-len(_TAIL) :]] != list(_TAIL):
    raise RuntimeError("the scalar pieces must close the vector in _TAIL's order: encode() writes them as one tail")
if max(_PHASE_INDEX.values()) >= _O_DEALER - _O_PHASE or len(_BID_INDEX) != _W_BIDS:
    raise RuntimeError("PIECES' phase or bid blocks do not fit the phases and calls of R3, R9")
if len(_DOUBLING_INDEX) != _W_DOUBLING or _W_VOIDS != NUM_SUITS or _W_KINDS != len(_KIND_INDEX):
    raise RuntimeError("PIECES' doubling, void or project blocks do not fit R4, R1.2, R6.1")
_VOID_INDEX = tuple(tuple(s for s in range(NUM_SUITS) if bits >> s & 1) for bits in range(1 << NUM_SUITS))


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
    masks = [0] * len(CARD_PIECES)
    masks[_C_HAND], masks[_C_TURNED] = hand, 1 << turned
    started = bool(state.tricks)
    for i in range(NUM_SEATS):  # i: the relative seat
        s = next_seat(seat, i)
        masks[_C_PLAYED + i] = played[s]
        masks[_C_NO_TRUMPS + i] = no_trumps[s]
        if i == 0 or started or s in state.trick_seats:  # R6.2
            public[i] = True
            m = 0
            for p in projects[s]:
                m |= _project_mask(p)
            masks[_C_PROJECTS + i] = m
    for j, c in enumerate(trick_cards):
        masks[_C_TRICK + j] = 1 << c
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    out[:_CARD_BLOCK] = np.unpackbits(np.array(masks, dtype="<u4").view(np.uint8), bitorder="little")
    idx = [
        _O_PHASE + _PHASE_INDEX[state.phase],
        _O_DEALER + relative_seat(state.dealer, seat),
        _O_ROUND + state.bid_round - 1,
    ]
    for rnd, s, a in state.bids:
        idx.append(_O_BIDS[rnd] + _W_BIDS * relative_seat(s, seat) + _BID_INDEX[a])
    for s, a in state.doubling_calls:
        idx.append(_O_DOUBLING + _W_DOUBLING * relative_seat(s, seat) + _DOUBLING_INDEX[a])
    if state.contract is not None:
        idx.append(_O_CONTRACT + _CONTRACT_INDEX[state.contract])
        idx.append(_O_CALLER + relative_seat(state.caller, seat))
        if state.trump >= 0:
            idx.append(_O_TRUMP + state.trump)
        idx.append(_O_LEVEL + state.level - 1)
        if state.last_raiser >= 0:
            idx.append(_O_RAISER + relative_seat(state.last_raiser, seat))
    if trick_cards:
        idx.append(_O_LEADER + relative_seat(state.trick_seats[0], seat))
        idx.append(_O_WINNING + relative_seat(state.trick_winner, seat))
    voids = state.voids
    for i in range(NUM_SEATS):
        for suit in _VOID_INDEX[voids[next_seat(seat, i)]]:
            idx.append(_O_VOIDS + _W_VOIDS * i + suit)
    if state.baloot_announced:
        idx.append(_O_BALOOT + relative_seat(state.baloot_seat, seat))
    idx.append(_O_MODE + _MODES[match.mode])
    out[idx] = 1.0
    for i in range(NUM_SEATS):
        if public[i]:
            for p in projects[next_seat(seat, i)]:
                out[_O_KINDS + _W_KINDS * i + _KIND_INDEX[p.kind]] += 0.5
    my = team_of(seat)
    their = other_team(my)
    score = match.score
    out[_O_TAIL:] = (  # the scalar tail, in _TAIL's order
        state.tricks_won[my] / NUM_TRICKS,
        state.tricks_won[their] / NUM_TRICKS,
        state.raw[my] / RAW_SCALE,
        state.raw[their] / RAW_SCALE,
        len(state.tricks) / NUM_TRICKS,
        min(score[my] / TARGET_SCORE, 1.0),
        min(score[their] / TARGET_SCORE, 1.0),
        min(match.deals_played / MAX_DEALS, 1.0),
        match.hands_left / HANDS_LEFT_SCALE,
    )
    return out


_MASK_BYTES = (NUM_ACTIONS + 7) // 8


def action_mask(state: HandState, seat: int) -> np.ndarray:
    """int8[NUM_ACTIONS]: the legal actions of ``seat`` now (R9, R11.3); zeros when it is not to act."""
    if state.to_act != seat:
        return np.zeros(NUM_ACTIONS, dtype=np.int8)
    legal = state.legal_mask()
    bits = np.unpackbits(np.frombuffer(legal.to_bytes(_MASK_BYTES, "little"), dtype=np.uint8), bitorder="little")
    return bits[:NUM_ACTIONS].view(np.int8)


# ---------------------------------------------------------------------------- full-information state
# The state a centralised critic reads (``raw_env.state()``): never given to an agent. It is the
# observation of seat 0, whose relative seats are the absolute ones (me = seat 0, next = seat 1,
# partner = seat 2, previous = seat 3), followed by everything hidden from that view: every
# seat's hand and, while the calling goes on, the order of the undealt stock, which decides who
# gets which card (R2.3). With these the state fixes the rest of the hand given the actions.
STATE_VERSION = 1
STATE_PIECES = (
    Piece("observation", OBS_SIZE, "the observation of seat 0 (relative seats = absolute seats)"),
    Piece("hand_seat_0", NUM_CARDS, "cards in seat 0's hand now (R1.2 card ids)"),
    Piece("hand_seat_1", NUM_CARDS, "cards in seat 1's hand now"),
    Piece("hand_seat_2", NUM_CARDS, "cards in seat 2's hand now"),
    Piece("hand_seat_3", NUM_CARDS, "cards in seat 3's hand now"),
    Piece("stock_order", NUM_CARDS, "per card still in the undealt stock, (position + 1) / 11 in dealing order (R2.2, R2.3); zeros once dealt"),
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
    out[start : start + NUM_SEATS * NUM_CARDS] = np.unpackbits(
        np.array(state.hands, dtype="<u4").view(np.uint8), bitorder="little"
    )
    if state.phase == BIDDING:  # the stock is dealt when the contract is settled (R2.3)
        base = _STATE_OFFSETS["stock_order"]
        for position, card in enumerate(state.deal.stock):
            out[base + card] = (position + 1) / STOCK_SIZE
    if state.phase != DONE:
        out[_STATE_OFFSETS["to_act"] + state.to_act] = 1.0
    return out
