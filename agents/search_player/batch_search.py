"""The search player's playouts on the batched core: ``backend="core"``.

For one card decision (R5) the Python side samples the worlds (``sampling.WorldSampler``: exact,
and it reads only the view) and builds one row of the core (``baloot_env.batch.state``) from the
view: ``world_row`` is ``build_world`` (the engine's ``HandState`` of a world) through
``baloot_env.batch.convert.state_row``. One kernel call, ``search_values``, then does the rest for
every (world, legal card) row:

1. the world's row: the template with the world's holdings, and every seat's projects and
   baloot recomputed from its 8 cards (R6.1, R6.5), as ``build_world`` does (``set_world``);
2. the card applied, then the hand played by the heuristic kernel (``batch_heuristic``'s
   ``seat_view`` and ``card_action``: ``card_play.choose_card``'s exact equal) for every seat
   until ``endgame_cards`` cards are left, then the exact alpha-beta of the last tricks
   (``batch_endgame.solve_row``), as ``SearchAgent._finish``;
3. the value (own team's hand score minus the other's, R7) added to the world's and card's
   entry, over the playouts, in the same order as the Python backend; values are whole game
   points, so their sums over the worlds, and the means, are equal to the bit.

With ``epsilon`` > 0 a playout move is a random legal card with that chance, drawn from the
kernel's own stream (``rng``, splitmix64): the same distribution as the Python backend, not the
same draws.
"""

from __future__ import annotations

import numpy as np

from agents.rule_based.batch_heuristic import card_action
from agents.search_player.batch_endgame import LEAF_CACHE_SIZE, NO_VALUE, leaf_value, solve_row
from agents.search_player.jit import njit
from baloot_env.batch.bits import nth_set_bit, popcount
from baloot_env.batch.core import legal_mask
from baloot_env.batch.deal import below, next_u64
from baloot_env.batch.play import play_card
from baloot_env.batch.projects import declare_projects, has_baloot
from baloot_env.batch.state import (
    BALOOT_ANNOUNCED,
    BALOOT_SEAT,
    CONTRACT,
    HANDS,
    HOKUM,
    NUM_FIELDS,
    NUM_RESULTS,
    PLAYED_BY,
    PROJECT_CARDS,
    PROJECT_KEY,
    PROJECT_KINDS,
    RAW,
    SW_ACES_HUNDRED,
    SW_PROJECTS,
    TRICK_SIZE,
    TRICKS_PLAYED,
    TRICKS_WON,
    TRUMP,
)
from baloot_env.batch.view import VIEW_SIZE, seat_view
from baloot_env.cards import KING, NUM_CARDS, NUM_SEATS, QUEEN

_U53 = np.uint64(11)
_TWO_53 = float(1 << 53)


@njit
def set_world(s: np.ndarray, g: int, hands: np.ndarray, sw: np.ndarray) -> None:
    """Game g's row takes the world's holdings ``hands[seat]``; every seat's projects and the
    baloot are declared from its 8 cards (held and played), as ``player.build_world``."""
    hokum = s[g, CONTRACT] == HOKUM
    trump = s[g, TRUMP]
    baloot_seat = -1
    announced = 0
    for seat in range(NUM_SEATS):
        s[g, HANDS + seat] = hands[seat]
        kind0, kind1, cards, key = -1, -1, 0, 0
        if sw[SW_PROJECTS]:  # R6.1, R6.5, R6.6
            full = hands[seat] | s[g, PLAYED_BY + seat]
            kind0, kind1, cards, key = declare_projects(full, hokum, sw[SW_ACES_HUNDRED] != 0)
            if hokum and has_baloot(full, trump):
                baloot_seat = seat
                both = (1 << (8 * trump + KING)) | (1 << (8 * trump + QUEEN))
                announced = 1 if s[g, PLAYED_BY + seat] & both == both else 0  # R6.5
        s[g, PROJECT_KINDS + 2 * seat] = kind0
        s[g, PROJECT_KINDS + 2 * seat + 1] = kind1
        s[g, PROJECT_CARDS + seat] = cards
        s[g, PROJECT_KEY + seat] = key
    s[g, BALOOT_SEAT] = baloot_seat
    s[g, BALOOT_ANNOUNCED] = announced


@njit
def _uniform(rng: np.ndarray) -> float:
    """A float in [0, 1) from stream ``rng[0]`` (53 random bits)."""
    return float(next_u64(rng, 0) >> _U53) / _TWO_53


@njit
def playout(s, card, team, endgame_cards, epsilon, rng, v, world, r, sw, cache, table, stamp) -> float:
    """Play ``card`` in the 1-row ``s``, then the hand to its end (``SearchAgent._finish``):
    heuristic card play until ``endgame_cards`` cards are left, then the exact endgame."""
    if play_card(s, 0, card):
        return float(leaf_value(world, r, sw, team, s[0, RAW], s[0, TRICKS_WON], cache))
    while True:
        left = NUM_CARDS - NUM_SEATS * s[0, TRICKS_PLAYED] - s[0, TRICK_SIZE]
        if left <= endgame_cards:
            return solve_row(s, 0, team, world, r, sw, cache, table, stamp)
        if epsilon > 0.0 and _uniform(rng) < epsilon:
            m = legal_mask(s, 0)
            c = nth_set_bit(m, below(rng, 0, popcount(m)))
        else:
            seat_view(s, 0, v)
            c = card_action(v)
        if play_card(s, 0, c):
            return float(leaf_value(world, r, sw, team, s[0, RAW], s[0, TRICKS_WON], cache))


@njit
def search_values(
    template, worlds, cards, sw, team, endgame_cards, epsilon, playouts, rng, values, table, stamp
) -> None:
    """``values[w, i]`` += the value of ``cards[i]`` in world w, every playout (module docstring).

    Args:
        template: int64[NUM_FIELDS], the decision's row (``world_row``); its seat's turn.
        worlds: int64[W, 4], each world's holdings.
        cards: int64[L], the legal cards.
        sw: the rule switches (``rule_switches``).
        team: the deciding seat's team.
        endgame_cards: cards left when the exact search takes over.
        epsilon, playouts: ``SearchConfig``'s.
        rng: uint64[1], the random stream for ``epsilon``.
        values: float64[W, L], added to.
        table, stamp: the endgame's transposition table and world w's stamp ``stamp + w``
            (``batch_endgame.claim_stamps``).
    """
    base = np.empty((1, NUM_FIELDS), dtype=np.int64)
    s = np.empty((1, NUM_FIELDS), dtype=np.int64)
    world = np.empty((1, NUM_FIELDS), dtype=np.int64)  # leaf_value's scratch row
    r = np.zeros((1, NUM_RESULTS), dtype=np.int64)
    v = np.empty(VIEW_SIZE, dtype=np.int64)
    cache = np.empty(LEAF_CACHE_SIZE, dtype=np.int64)
    for w in range(worlds.shape[0]):
        base[0, :] = template
        set_world(base, 0, worlds[w], sw)
        world[0, :] = base[0, :]
        cache[:] = NO_VALUE  # the leaf depends on the world only
        for i in range(cards.shape[0]):
            for _ in range(playouts):
                s[0, :] = base[0, :]
                values[w, i] += playout(
                    s, cards[i], team, endgame_cards, epsilon, rng, v, world, r, sw, cache, table, stamp + w
                )


@njit
def world_rows(template: np.ndarray, worlds: np.ndarray, sw: np.ndarray, out: np.ndarray) -> None:
    """``out[w]``: the row of world w (the template with ``set_world``), for tests and tools."""
    for w in range(worlds.shape[0]):
        out[w, :] = template
        set_world(out, w, worlds[w], sw)
