"""The ``heuristic`` player as numba kernels over the batched core's state (issue 16).

The readable player (``agents.rule_based.heuristic``, ``card_play``) is the reference; these
kernels choose, for a game of the batched core (``baloot_env.batch``), the action that
``HeuristicAgent(config=config).act(view)`` chooses for the view of the seat to act, bid for
bid, double for double, card for card (``tests/test_batch_heuristic.py``,
``benchmarks/batch_heuristic.py``). The agent is deterministic (its seed is never read), so
there is no random tie-break to reproduce: every tie is broken as Python's ``min``/``max``
break them, by the first card in ascending id order, and the one float comparison of card play
(the lead cost, ``0.2 * length``) is computed with the same operations in the same order.

What the seat may know (``agents.base.PlayerView``). A decision is taken in two steps:

1. ``seat_view(games, g, v)`` copies out of game g's row, into the int64 row ``v`` (``VIEW_SIZE``
   columns, ``VIEW_FIELDS``), what the seat to act may know and the player reads: its own
   cards, the turned card, the calling so far (round, the round-1 hokum caller, R3), the
   contract (trump, caller), the cards each seat has played, the voids and missing trumps the
   play has shown (R5.2, R5.4), the trick on the table, and its legal actions (from the core's
   ``legal_mask``, which reads only the seat's own cards and public columns). It reads no other
   seat's cards, no stock, no hidden project: ``HANDS`` only at the seat to act.
2. ``decide(v, bars)`` chooses from ``v`` alone; it never sees ``games``.

The view row is this player's subset of the ``PlayerView`` (projects, the baloot and the
scores are public there but the player ignores them). Two states that differ only in the
other seats' hidden cards give the same view row and the same action (tested).

API (every kernel nopython, cached on disk; ``bars`` is ``heuristic_bars(config)``, float64[8]):

- ``heuristic_actions(games, bars, idx, actions)``: ``actions[i]`` for game ``idx[i]``; -1 for
  a game whose hand is over. ``act(games, config, idx)`` is its Python face.
- ``heuristic_actions_all(games, bars, actions)``: every game.
- ``heuristic_action(games, g, bars, v)``: one game, for other kernels (``v`` a scratch row).
- ``heuristic_steps(...)``: like ``core.random_steps``, every seat played by the heuristic.
- ``seat_view``, ``decide``, ``card_action``: the two steps, for kernels that build a view
  row of their own (a search playout's world, say).
"""

from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from agents.rule_based import card_play as _card_play
from agents.rule_based import heuristic as _heuristic
from agents.rule_based.card_play import RICH_TRICK
from agents.rule_based.heuristic import TRUMP_VALUE, HeuristicConfig
from baloot_env.actions import DOUBLE, FOUR, GAHWA_ACTION, HOKUM_BASE, PASS, SUN_ACTION, THREE
from baloot_env.batch import jit as _batch_jit
from baloot_env.cards import ACE, ALL_CARDS_MASK, HIGHER_PLAIN, KING, NUM_RANKS, NUM_SUITS, PLAIN_POINTS, TEN
from baloot_env.cards import PLAIN_STRENGTH as _PLAIN_STRENGTH
from baloot_env.cards import SUITS_CARDS as _SUITS_CARDS
from baloot_env.cards import TRUMP_STRENGTH as _TRUMP_STRENGTH
from baloot_env.rules import RuleConfig
from baloot_env.seats import NUM_SEATS

# ---------------------------------------------------------------------- cache guard
# numba keys a cached kernel on this file alone; the kernels also freeze in the batched core's
# kernels and tables and the heuristic's constants. As ``baloot_env.batch.jit`` does for its
# package: hash all of that, and drop this module's cache files when the hash changes.
_HERE = Path(__file__).resolve()
_CACHE = _HERE.parent / "__pycache__"
_STAMP = f"{_HERE.stem}_sources.sha256"
_CONSTANT_TYPES = (bool, int, float, str, tuple, dict)


def _sources_digest() -> str:
    h = hashlib.sha256(numba.__version__.encode())
    h.update(_HERE.read_bytes())
    h.update(_batch_jit._sources_digest().encode())  # the core's kernels, tables and engine constants
    for module in (_heuristic, _card_play, importlib.import_module("baloot_env.seats")):
        for name, value in sorted(vars(module).items()):
            if not name.startswith("__") and isinstance(value, _CONSTANT_TYPES):
                text = repr(value)
                if " at 0x" not in text:
                    h.update(f"{module.__name__}.{name}={text}".encode())
    return h.hexdigest()


def _clear_stale_cache() -> None:
    _batch_jit.clear_stale_cache(_CACHE, _STAMP, _sources_digest(), (_HERE.stem,))


_clear_stale_cache()

from baloot_env.batch.bits import popcount  # noqa: E402  (kernels: after the guard)
from baloot_env.batch.core import apply_action, legal_mask  # noqa: E402
from baloot_env.batch.state import (  # noqa: E402
    BID_ROUND,
    BIDDING,
    CALLER,
    DEAL,
    DEAL_TURNED,
    DEALER,
    DONE,
    DOUBLING,
    EPISODE_DONE,
    HAND_DONE,
    HANDS,
    HOKUM_BIDDER,
    NO_TRUMPS,
    PHASE,
    PLAY,
    PLAYED_BY,
    TO_ACT,
    TRICK_CARDS,
    TRICK_SIZE,
    TRICK_WIN_CARD,
    TRICK_WINNER,
    TRUMP,
    VOIDS,
)
from baloot_env.batch.tables import CARD_POINTS, HIGHER_TRUMP, SUIT_MASK  # noqa: E402

njit = _batch_jit.njit  # numba.njit(cache=True)

# ---------------------------------------------------------------------- tables (from the engine)
_TRUMP_VALUE = np.array(TRUMP_VALUE, dtype=np.float64)
_HIGHER_PLAIN = np.array(HIGHER_PLAIN, dtype=np.int64)
_VOID_MASK = np.array(_SUITS_CARDS, dtype=np.int64)  # card_play.VOID_MASK
_PLAIN_POINTS = np.array(PLAIN_POINTS, dtype=np.int64)
_PLAIN_STRENGTH = np.array(_PLAIN_STRENGTH, dtype=np.int64)
_TRUMP_STRENGTH = np.array(_TRUMP_STRENGTH, dtype=np.int64)
_SUN_ROW = NUM_SUITS  # CARD_POINTS row of Sun (no trump)

# ---------------------------------------------------------------------- bars
BARS = tuple(HeuristicConfig.__dataclass_fields__)  # the order of ``heuristic_bars``
(B_HOKUM, B_SUN, B_SUN_OVER_PARTNER, B_DEALER_DISCOUNT, B_DOUBLE, B_THREE, B_FOUR, B_GAHWA) = range(len(BARS))
if BARS != (
    "hokum_bar", "sun_bar", "sun_over_partner", "dealer_discount", "double_bar", "three_bar", "four_bar", "gahwa_bar"
):  # fmt: skip
    raise ImportError(f"HeuristicConfig's fields changed ({BARS}); batch_heuristic reads them by position")


def heuristic_bars(config: HeuristicConfig | None = None) -> np.ndarray:
    """The float64[8] array of ``config``'s bars (default ``HeuristicConfig()``), in ``BARS`` order."""
    cfg = config or HeuristicConfig()
    return np.array([float(getattr(cfg, name)) for name in BARS], dtype=np.float64)


# ---------------------------------------------------------------------- the view row
VIEW_FIELDS: dict[str, tuple[int, int, str]] = {}


def _col(name: str, width: int, meaning: str) -> int:
    start = sum(w for _, w, _ in VIEW_FIELDS.values())
    VIEW_FIELDS[name] = (start, width, meaning)
    return start


V_SEAT = _col("seat", 1, "the seat to act (the view's owner)")
V_PHASE = _col("phase", 1, "BIDDING, DOUBLING, PLAY or DONE")
V_DEALER = _col("dealer", 1, "the dealer (R2.1)")
V_HAND = _col("hand", 1, "the seat's own cards (its 8 cards while doubling, R4.4)")
V_LEGAL = _col("legal", 1, "its legal actions, bit a for action a (R9)")
V_TURNED = _col("turned", 1, "the turned card (R2.2)")
V_BID_ROUND = _col("bid_round", 1, "1 or 2 (R3.1, R3.4)")
V_HOKUM_BIDDER = _col("hokum_bidder", 1, "the seat that said hokum in round 1, -1 none (R3.3)")
V_TRUMP = _col("trump", 1, "the trump suit, -1 in Sun or before the contract")
V_CALLER = _col("caller", 1, "the caller, -1 before the contract (R3.6)")
V_PLAYED = _col("played", NUM_SEATS, "per seat, the cards it has played (public)")
V_VOIDS = _col("voids", NUM_SEATS, "per seat, suits it has shown it lacks (R5.2, R5.4)")
V_NO_TRUMPS = _col("no_trumps", NUM_SEATS, "per seat, trumps it has shown it cannot hold (R5.2, R5.4)")
V_TRICK_CARDS = _col("trick_cards", NUM_SEATS, "the trick so far, in play order")
V_TRICK_SIZE = _col("trick_size", 1, "cards on the table")
V_TRICK_WINNER = _col("trick_winner", 1, "the seat winning the trick so far")
V_TRICK_WIN_CARD = _col("trick_win_card", 1, "the card winning it")
# Derived by ``card_action`` from the columns above (``card_play.Table``), not copied.
V_UNSEEN = _col("unseen", 1, "derived: cards neither played nor its own")
V_POSSIBLE = _col("possible", NUM_SEATS, "derived: per other seat, the unseen cards it may hold; 0 for itself")
VIEW_SIZE = sum(w for _, w, _ in VIEW_FIELDS.values())


@njit
def seat_view(s: np.ndarray, g: int, v: np.ndarray) -> None:
    """Copy into ``v`` what game g's seat to act may know and the player reads (module docstring).

    The only function here that reads the state: the seat's own ``HANDS`` column, public
    columns, and the core's ``legal_mask`` (own cards and public columns).
    """
    seat = s[g, TO_ACT]
    v[V_SEAT] = seat
    v[V_PHASE] = s[g, PHASE]
    v[V_DEALER] = s[g, DEALER]
    v[V_HAND] = s[g, HANDS + seat]
    v[V_LEGAL] = legal_mask(s, g)
    v[V_TURNED] = s[g, DEAL + DEAL_TURNED]
    v[V_BID_ROUND] = s[g, BID_ROUND]
    v[V_HOKUM_BIDDER] = s[g, HOKUM_BIDDER]
    v[V_TRUMP] = s[g, TRUMP]
    v[V_CALLER] = s[g, CALLER]
    for r in range(NUM_SEATS):
        v[V_PLAYED + r] = s[g, PLAYED_BY + r]
        v[V_VOIDS + r] = s[g, VOIDS + r]
        v[V_NO_TRUMPS + r] = s[g, NO_TRUMPS + r]
        v[V_TRICK_CARDS + r] = s[g, TRICK_CARDS + r]
    v[V_TRICK_SIZE] = s[g, TRICK_SIZE]
    v[V_TRICK_WINNER] = s[g, TRICK_WINNER]
    v[V_TRICK_WIN_CARD] = s[g, TRICK_WIN_CARD]


# ---------------------------------------------------------------------- R3, R4 (heuristic.py)
@njit
def hokum_strength(mask: int, trump: int) -> float:
    """``heuristic.hokum_strength``: the same sums in the same order."""
    trumps = (mask >> (8 * trump)) & 0xFF
    score = 0.0
    n_trumps = 0
    for r in range(NUM_RANKS):
        if trumps >> r & 1:
            score += _TRUMP_VALUE[r]
            n_trumps += 1
    for s in range(NUM_SUITS):
        if s == trump:
            continue
        b = (mask >> (8 * s)) & 0xFF
        if b >> ACE & 1:
            score += 1.5
            if b >> TEN & 1:
                score += 1.0
        elif b == 0 and n_trumps >= 3:
            score += 0.5
    return score


@njit
def sun_strength(mask: int) -> float:
    """``heuristic.sun_strength``."""
    score = 0.0
    for s in range(NUM_SUITS):
        b = (mask >> (8 * s)) & 0xFF
        if b == 0:
            continue
        n = popcount(b)
        ace = b >> ACE & 1
        ten = b >> TEN & 1
        if ace:
            score += 3.0 + 0.5 * max(0, n - 3)
        if ten:
            score += 2.0 if ace else (1.0 if n >= 2 else 0.5)
        if b >> KING & 1 and (ace or ten):
            score += 0.5
    return score


@njit
def defence_strength(mask: int, trump: int) -> float:
    """``heuristic.defence_strength``."""
    trumps = (mask >> (8 * trump)) & 0xFF
    score = 0.0
    for r in range(NUM_RANKS):
        if trumps >> r & 1:
            score += _TRUMP_VALUE[r]
    for s in range(NUM_SUITS):
        if s != trump and mask >> (8 * s + ACE) & 1:
            score += 1.0
    return score


@njit
def _bid(v: np.ndarray, bars: np.ndarray) -> int:
    """``HeuristicAgent._bid`` (R3)."""
    legal = v[V_LEGAL]
    seat = v[V_SEAT]
    mine = v[V_HAND] | (1 << v[V_TURNED])  # R2.3: the caller takes the turned card
    turned_suit = v[V_TURNED] >> 3
    sun = sun_strength(mine)
    discount = bars[B_DEALER_DISCOUNT] if seat == v[V_DEALER] and v[V_BID_ROUND] == 2 else 0.0
    if v[V_BID_ROUND] == 1:
        bidder = v[V_HOKUM_BIDDER]
        if bidder >= 0:  # R3.3: only sun can still be said
            bar = bars[B_SUN_OVER_PARTNER] if bidder == (seat + 2) % NUM_SEATS else bars[B_SUN]
            return SUN_ACTION if sun >= bar else PASS
        hokum = hokum_strength(mine, turned_suit)
        hokum_action = HOKUM_BASE + turned_suit
    else:
        best = -1
        hokum = 0.0
        for suit in range(NUM_SUITS):  # max((strength, -suit)): the first suit of the best strength
            if legal >> (HOKUM_BASE + suit) & 1:
                h = hokum_strength(mine, suit)
                if best < 0 or h > hokum:
                    best, hokum = suit, h
        hokum_action = HOKUM_BASE + best
    sun_margin = sun - (bars[B_SUN] - discount)
    hokum_margin = hokum - (bars[B_HOKUM] - discount)
    if sun_margin >= 0 and sun_margin >= hokum_margin:
        return SUN_ACTION
    if hokum_margin >= 0 and legal >> hokum_action & 1:
        return hokum_action
    return PASS


@njit
def _double(v: np.ndarray, bars: np.ndarray) -> int:
    """``HeuristicAgent._double`` (R4; V1 in Sun). The hand is the full 8 cards (R4.4)."""
    legal = v[V_LEGAL]
    hand = v[V_HAND]
    trump = v[V_TRUMP]
    if trump < 0:
        return DOUBLE if legal >> DOUBLE & 1 and sun_strength(hand) >= bars[B_SUN] + 4 else PASS
    strength = defence_strength(hand, trump)
    if legal >> DOUBLE & 1:
        return DOUBLE if strength >= bars[B_DOUBLE] else PASS
    if legal >> THREE & 1:
        return THREE if strength >= bars[B_THREE] else PASS
    if legal >> FOUR & 1:
        return FOUR if strength >= bars[B_FOUR] else PASS
    if legal >> GAHWA_ACTION & 1:
        return GAHWA_ACTION if strength >= bars[B_GAHWA] else PASS
    return PASS


# ---------------------------------------------------------------------- R5 (card_play.py)
@njit
def _higher(card: int, trump: int) -> int:
    return HIGHER_TRUMP[card] if card >> 3 == trump else _HIGHER_PLAIN[card]


@njit
def _points(card: int, trump: int) -> int:
    return CARD_POINTS[trump if trump >= 0 else _SUN_ROW, card]


@njit
def _order(card: int, trump: int) -> int:
    """``card_play.order``: plain strength 0-7, trumps 8-15."""
    return _TRUMP_STRENGTH[card & 7] + NUM_RANKS if card >> 3 == trump else _PLAIN_STRENGTH[card & 7]


@njit
def _is_master(v: np.ndarray, card: int) -> bool:
    return (v[V_UNSEEN] & _higher(card, v[V_TRUMP])) == 0


@njit
def _likely_void(v: np.ndarray, r: int, suit: int) -> bool:
    return (v[V_VOIDS + r] >> suit & 1) != 0 or popcount(v[V_POSSIBLE + r] & SUIT_MASK[suit]) <= 1


@njit
def _can_beat(v: np.ndarray, r: int, card: int, led: int) -> bool:
    """``Table.can_beat``: seat r, still to play, might take a trick ``card`` is winning."""
    trump = v[V_TRUMP]
    poss = v[V_POSSIBLE + r]
    if card >> 3 == trump:
        if not poss & HIGHER_TRUMP[card]:
            return False
        return led == trump or _likely_void(v, r, led)
    if poss & _HIGHER_PLAIN[card]:
        return True
    return trump >= 0 and (poss & SUIT_MASK[trump]) != 0 and _likely_void(v, r, led)


@njit
def _ruff_risk(v: np.ndarray, suit: int) -> bool:
    """``Table.ruff_risk``: an opponent might trump a lead of ``suit`` (R5.4)."""
    trump = v[V_TRUMP]
    if trump < 0 or suit == trump:
        return False
    tm = SUIT_MASK[trump]
    seat = v[V_SEAT]
    for r in ((seat + 1) % NUM_SEATS, (seat + 3) % NUM_SEATS):
        if v[V_POSSIBLE + r] & tm and _likely_void(v, r, suit):
            return True
    return False


@njit
def _beats(card: int, best: int, trump: int) -> bool:
    if card >> 3 == best >> 3:
        return (_higher(best, trump) >> card & 1) != 0
    return card >> 3 == trump


@njit
def _any_opp_beats(v: np.ndarray, card: int, led: int) -> bool:
    """Whether an opponent still to play after the seat might beat ``card``."""
    seat = v[V_SEAT]
    for k in range(1, NUM_SEATS - v[V_TRICK_SIZE]):
        r = (seat + k) % NUM_SEATS
        if (r & 1) != (seat & 1) and _can_beat(v, r, card, led):
            return True
    return False


@njit
def _low(v: np.ndarray, legal: int) -> int:
    """``card_play._low``: min of (is trump, points + 6 for a master, order), first on ties."""
    trump = v[V_TRUMP]
    best, best_key = -1, 0
    m = legal
    while m:
        c = _lowest(m)
        m &= m - 1
        key = (1000 if c >> 3 == trump else 0) + 32 * (_points(c, trump) + (6 if _is_master(v, c) else 0))
        key += _order(c, trump)
        if best < 0 or key < best_key:
            best, best_key = c, key
    return best


@njit
def _smear(v: np.ndarray, legal: int) -> int:
    """``card_play._smear``: give the partner points, keep trumps and masters."""
    trump = v[V_TRUMP]
    plain = legal & ~SUIT_MASK[trump] if trump >= 0 else legal
    if not plain:
        return _min_by_trump_strength(legal)
    best, best_key = -1, 0
    m = plain
    while m:
        c = _lowest(m)
        m &= m - 1
        key = 16 * (_PLAIN_POINTS[c & 7] - (6 if _is_master(v, c) else 0)) - _PLAIN_STRENGTH[c & 7]
        if best < 0 or key > best_key:
            best, best_key = c, key
    return best


@njit
def _lowest(m: int) -> int:
    return popcount((m & -m) - 1)


@njit
def _min_by_trump_strength(cards: int) -> int:
    best = -1
    m = cards
    while m:
        c = _lowest(m)
        m &= m - 1
        if best < 0 or _TRUMP_STRENGTH[c & 7] < _TRUMP_STRENGTH[best & 7]:
            best = c
    return best


@njit
def _max_by_trump_strength(cards: int) -> int:
    best = -1
    m = cards
    while m:
        c = _lowest(m)
        m &= m - 1
        if best < 0 or _TRUMP_STRENGTH[c & 7] > _TRUMP_STRENGTH[best & 7]:
            best = c
    return best


@njit
def _lead(v: np.ndarray, legal: int) -> int:
    """``card_play._lead``."""
    trump = v[V_TRUMP]
    hand = v[V_HAND]
    seat = v[V_SEAT]
    if trump >= 0:
        tm = SUIT_MASK[trump]
        mine = hand & tm
        opp_trumps = (v[V_POSSIBLE + (seat + 1) % NUM_SEATS] | v[V_POSSIBLE + (seat + 3) % NUM_SEATS]) & tm
        if mine and opp_trumps:
            n = popcount(mine)
            top = _max_by_trump_strength(mine)
            ours = (v[V_CALLER] & 1) == (seat & 1)
            if _is_master(v, top) and (ours or n >= 3):
                return top  # draw trumps with the master
            if ours and seat == v[V_CALLER] and n >= 4:
                return _min_by_trump_strength(mine)
    # Cash sure winners: masters nobody is likely to trump (the first of the most points).
    best, best_pts = -1, -1
    m = legal
    while m:
        c = _lowest(m)
        m &= m - 1
        if c >> 3 == trump or not _is_master(v, c) or _ruff_risk(v, c >> 3):
            continue
        p = _PLAIN_POINTS[c & 7]
        if p > best_pts:
            best, best_pts = c, p
    if best >= 0:
        return best
    plain = legal & ~SUIT_MASK[trump] if trump >= 0 else legal
    if not plain:
        top = _max_by_trump_strength(legal)
        return top if _is_master(v, top) else _min_by_trump_strength(legal)
    # Lead low from the suit that costs least; the cost is a float, computed as Python does
    # (an int, then ``+= 0.2 * length`` or ``-= 0.2 * length``), suits in ascending order.
    best_cost = 1e9
    choice = _lowest(plain)
    unseen = v[V_UNSEEN]
    for suit in range(NUM_SUITS):
        cards = plain & SUIT_MASK[suit]
        if not cards:
            continue
        low, low_key = -1, 0
        m = cards
        while m:
            c = _lowest(m)
            m &= m - 1
            key = 8 * _PLAIN_POINTS[c & 7] + _PLAIN_STRENGTH[c & 7]
            if low < 0 or key < low_key:
                low, low_key = c, key
        icost = _PLAIN_POINTS[low & 7]
        if hand >> (8 * suit + TEN) & 1 and unseen >> (8 * suit + ACE) & 1:
            icost += 6  # leading the suit exposes our ten to their ace
        if _ruff_risk(v, suit):
            icost += 3
        if trump >= 0:
            cost = icost + 0.2 * popcount(cards)
        else:
            cost = icost - 0.2 * popcount(cards)
        if cost < best_cost:
            best_cost, choice = cost, low
    return choice


@njit
def _follow(v: np.ndarray, legal: int) -> int:
    """``card_play._follow``."""
    trump = v[V_TRUMP]
    seat = v[V_SEAT]
    size = v[V_TRICK_SIZE]
    led = v[V_TRICK_CARDS] >> 3
    win_card = v[V_TRICK_WIN_CARD]
    if v[V_TRICK_WINNER] == (seat + 2) % NUM_SEATS:
        if not _any_opp_beats(v, win_card, led):
            return _smear(v, legal)
        return _low(v, legal)
    winners = 0
    m = legal
    while m:
        c = _lowest(m)
        m &= m - 1
        if _beats(c, win_card, trump):
            winners |= 1 << c
    if winners:
        safe = 0
        m = winners
        while m:
            c = _lowest(m)
            m &= m - 1
            if not _any_opp_beats(v, c, led):
                safe |= 1 << c
        if safe:
            plain = safe & ~SUIT_MASK[trump] if trump >= 0 else safe
            if plain:
                opp_after = size <= 2  # the next seat, an opponent, has yet to play
                best, best_key = -1, 0
                m = plain
                while m:
                    c = _lowest(m)
                    m &= m - 1
                    if opp_after:
                        key = -_PLAIN_STRENGTH[c & 7]  # min strength
                    else:
                        key = 16 * _PLAIN_POINTS[c & 7] - _PLAIN_STRENGTH[c & 7]  # max (points, -strength)
                    if best < 0 or key > best_key:
                        best, best_key = c, key
                return best
            return _min_by_trump_strength(safe)
        trick_pts = 0
        for i in range(size):
            trick_pts += _points(v[V_TRICK_CARDS + i], trump)
        if trick_pts >= RICH_TRICK and size >= 2:  # the partner has played: nobody of ours after
            best = -1
            m = winners
            while m:
                c = _lowest(m)
                m &= m - 1
                if best < 0 or _order(c, trump) > _order(best, trump):
                    best = c
            return best
    return _low(v, legal)


@njit
def card_action(v: np.ndarray) -> int:
    """``card_play.choose_card`` on the view row ``v`` (fills its derived columns)."""
    legal = v[V_LEGAL] & ALL_CARDS_MASK
    if legal & (legal - 1) == 0:
        return _lowest(legal)
    seat = v[V_SEAT]
    played = 0
    for r in range(NUM_SEATS):
        played |= v[V_PLAYED + r]
    unseen = ~(played | v[V_HAND]) & ALL_CARDS_MASK
    v[V_UNSEEN] = unseen
    for r in range(NUM_SEATS):
        v[V_POSSIBLE + r] = 0 if r == seat else unseen & ~_VOID_MASK[v[V_VOIDS + r]] & ~v[V_NO_TRUMPS + r]
    if v[V_TRICK_SIZE] == 0:
        return _lead(v, legal)
    return _follow(v, legal)


@njit
def decide(v: np.ndarray, bars: np.ndarray) -> int:
    """``HeuristicAgent.act`` on the view row ``v``; -1 when the hand is over."""
    phase = v[V_PHASE]
    if phase == PLAY:
        return card_action(v)
    if phase == BIDDING:
        action = _bid(v, bars)
    elif phase == DOUBLING:
        action = _double(v, bars)
    else:
        return -1
    if not v[V_LEGAL] >> action & 1:  # as the agent: never an illegal call
        action = PASS
    return action


# ---------------------------------------------------------------------- batched kernels
@njit
def heuristic_action(s: np.ndarray, g: int, bars: np.ndarray, v: np.ndarray) -> int:
    """The heuristic's action for game g's seat to act (-1 when over); ``v`` is a scratch view row."""
    if s[g, PHASE] == DONE:
        return -1
    seat_view(s, g, v)
    return decide(v, bars)


@njit
def heuristic_actions(s: np.ndarray, bars: np.ndarray, idx: np.ndarray, actions: np.ndarray) -> None:
    """``actions[i]``: the heuristic's action in game ``idx[i]`` (-1 when its hand is over)."""
    v = np.empty(VIEW_SIZE, dtype=np.int64)
    for i in range(idx.shape[0]):
        actions[i] = heuristic_action(s, idx[i], bars, v)


@njit
def heuristic_actions_all(s: np.ndarray, bars: np.ndarray, actions: np.ndarray) -> None:
    """``actions[g]``: the heuristic's action in every game g (-1 when its hand is over)."""
    v = np.empty(VIEW_SIZE, dtype=np.int64)
    for g in range(s.shape[0]):
        actions[g] = heuristic_action(s, g, bars, v)


@njit
def heuristic_steps(s, rng, queue, r, reward, sw, pay, bars: np.ndarray, steps: int) -> tuple[int, int]:
    """``steps`` lockstep steps with every seat played by the heuristic, as ``core.random_steps``.

    Returns (decisions made, hands finished); the results hold the last step's rewards and ends.
    """
    v = np.empty(VIEW_SIZE, dtype=np.int64)
    decisions = 0
    hands = 0
    for _ in range(steps):
        for g in range(s.shape[0]):
            r[g, HAND_DONE] = 0  # as core._clear_step
            r[g, EPISODE_DONE] = 0
            reward[g] = 0.0
            if s[g, PHASE] == DONE:
                continue
            seat_view(s, g, v)
            apply_action(s, rng, queue, r, reward, sw, pay, g, decide(v, bars))
            decisions += 1
            hands += r[g, HAND_DONE]
    return decisions, hands


def act(games: np.ndarray, config: HeuristicConfig | None = None, idx: np.ndarray | None = None) -> np.ndarray:
    """The heuristic's actions (int64) for the games ``idx`` (default all) of a ``games`` matrix."""
    bars = heuristic_bars(config)
    if idx is None:
        out = np.empty(games.shape[0], dtype=np.int64)
        heuristic_actions_all(games, bars, out)
        return out
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    out = np.empty(idx.shape[0], dtype=np.int64)
    heuristic_actions(games, bars, idx, out)
    return out


# ---------------------------------------------------------------------- the differential check
@dataclass
class HeuristicDiffStats:
    """What ``run_heuristic_differential`` compared: decisions by phase, the ones with a real
    choice (two legal actions or more), hands and matches compared to their end, and the time
    spent in the Python agent's ``act`` (``python_act_s``) and in building its views."""

    decisions: int = 0
    choices: int = 0
    bids: int = 0
    doubles: int = 0
    cards: int = 0
    heuristic_moves: int = 0  # decisions where both sides played the heuristic's action
    hands: int = 0
    matches: int = 0
    python_act_s: float = 0.0
    python_view_s: float = 0.0

    def add(self, other: HeuristicDiffStats) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def run_heuristic_differential(
    rules: RuleConfig,
    episode: str,
    num_games: int,
    decisions: int,
    seed: int,
    explore: tuple[float, ...] = (0.0, 0.0, 0.05, 0.2),
    config: HeuristicConfig | None = None,
) -> HeuristicDiffStats:
    """The kernel against ``HeuristicAgent.act`` at every decision; raises ``Mismatch``.

    The batched core (``BatchGame``) and the engine (``HandState``/``MatchState``, started and
    finished with ``baloot_env.batch.differential``'s helpers) play the same deals. At every
    decision the seat to act must agree and the kernel's action (``heuristic_actions_all`` on
    the core's state) must equal ``HeuristicAgent(config=config).act(view)`` on the engine's
    ``PlayerView`` of that seat. Each game draws an exploration rate from ``explore``: with that
    chance a move is a uniform legal action (the same on both sides), so that positions the
    heuristic would not reach are compared too; otherwise the core plays the kernel's action
    and the engine the agent's. Games at rate 0 are whole games (hands, matches) played by the
    kernel on one side and the Python agent on the other: every hand's result (R11.4), the
    match's books and its result (R11.5) are compared.

    Args:
        rules, episode: the variants and "hand" or "match".
        num_games: games in lockstep.
        decisions: stop after at least this many decisions compared.
        seed: the deals (the core's streams) and the exploration draws.
        explore: per game, drawn from these: the chance of a random legal move.
        config: the heuristic's bars (default ``HeuristicConfig()``).
    """
    import time

    from agents.base import PlayerView
    from agents.rule_based.heuristic import HeuristicAgent
    from baloot_env.batch.differential import DiffStats, _check, _finish, _start
    from baloot_env.batch.game import BatchGame
    from baloot_env.match import MatchState, match_context

    agent = HeuristicAgent(seed, config)
    bars = heuristic_bars(config)
    rng = np.random.default_rng(seed)
    core = BatchGame(num_games, rules, episode, seed=seed)
    rate = rng.choice(np.array(explore, dtype=np.float64), size=num_games)
    matches = [MatchState(rules) if episode == "match" else None for _ in range(num_games)]
    taken = [0] * num_games
    engine = [_start(core, g, matches[g], [], taken, rules, "given") for g in range(num_games)]
    stats = HeuristicDiffStats()
    results = DiffStats()
    kernel = np.zeros(num_games, dtype=np.int64)
    actions = np.zeros(num_games, dtype=np.int64)
    while stats.decisions < decisions:
        heuristic_actions_all(core.state.games, bars, kernel)
        python = [0] * num_games
        for g in range(num_games):
            hand = engine[g]
            seat = hand.to_act
            _check(int(core.to_act[g]) == seat, core, g, hand, f"seat to act: core {core.to_act[g]}, engine {seat}")
            t0 = time.perf_counter()
            view = PlayerView.from_state(hand, seat, match_context(matches[g]))
            t1 = time.perf_counter()
            want = agent.act(view)
            stats.python_act_s += time.perf_counter() - t1
            stats.python_view_s += t1 - t0
            got = int(kernel[g])
            _check(got == want, core, g, hand, f"seat {seat} ({view.phase}): kernel {got}, HeuristicAgent {want}")
            legal = view.legal_mask
            stats.choices += legal & (legal - 1) != 0
            stats.bids += view.phase == "bidding"
            stats.doubles += view.phase == "doubling"
            stats.cards += view.phase == "play"
            if rate[g] > 0 and rng.random() < rate[g]:
                acts = view.legal_actions
                actions[g] = python[g] = acts[rng.integers(len(acts))]
            else:
                actions[g], python[g] = got, want  # each side its own player's action
                stats.heuristic_moves += 1
        stats.decisions += num_games
        res = core.step(actions)
        for g in range(num_games):
            hand = engine[g]
            hand.apply(python[g])
            _check(bool(res.hand_done[g]) == hand.done, core, g, hand, "hand over: core and engine disagree")
            if not hand.done:
                continue
            _finish(core, g, hand, matches[g], rules, results)
            match = matches[g]
            if match is not None and match.result is not None:
                matches[g] = MatchState(rules)
            engine[g] = _start(core, g, matches[g], [], taken, rules, "given")
    stats.hands = results.hands
    stats.matches = results.matches
    return stats


__all__ = [
    "BARS", "VIEW_FIELDS", "VIEW_SIZE", "act", "card_action", "decide", "heuristic_action", "heuristic_actions",
    "heuristic_actions_all", "heuristic_bars", "heuristic_steps", "run_heuristic_differential", "seat_view",
]  # fmt: skip
