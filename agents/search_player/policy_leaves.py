"""Search playouts continued by a network's policy instead of the heuristic.

``batch_search`` values a card in a world by playing the hand out with the heuristic kernel for
every seat. A lookahead whose continuation is the heuristic judges a card by how it fares among
heuristic players, which caps a student taught by it near ``search``'s own strength. Here every
seat of the playout plays the network's greedy card instead, each from its own observation in
that world (what that seat would see: its hand, the calls, the cards played), so the search asks
how a card fares when the rest of the hand is played as the network plays it. For every (world,
legal card) row, all rows in lockstep:

1. the world's row (``batch_search.set_world``), the card played (R5); a hand over is its exact
   value (``leaf_value``, R7), a hand at ``endgame_cards`` cards left the exact alpha-beta of the
   last tricks (``solve_row``), as the heuristic playouts do;
2. otherwise, while any row is still being played: the observation of each row's seat to act
   (``encode_row``: ``observation.encode``'s layout) and its legal cards (``legal_mask``, R5.1-R5.4),
   one batched forward pass of the network's trunk and card head, the best legal card by its
   logits played in every row (ties: the lowest card), and rows that end or reach the endgame
   valued as in 1.

``policy_values`` gives each card's value in each world, as ``search_values`` does for playouts.
``playout_net`` gives the network in the number format its forward passes run in: a bf16 copy
on a processor with bf16 in hardware is about 6x faster than fp32 at these batches of a few
hundred rows (``agents.neural.precision``).
The playout of a row is checked against the engine played card by card with the network as a
``PolicyAgent`` in ``tests/agents/test_policy_leaves.py``.
"""

from __future__ import annotations

import copy

import numpy as np
import torch

from agents.neural.network import BalootNet
from agents.neural.precision import resolve_precision
from agents.search_player.batch_endgame import LEAF_CACHE_SIZE, NO_VALUE, claim_stamps, leaf_value, solve_row
from agents.search_player.batch_search import set_world
from agents.search_player.jit import njit
from baloot_env.batch.bits import lowest_index
from baloot_env.batch.core import legal_mask
from baloot_env.batch.observation import encode_row
from baloot_env.batch.play import play_card
from baloot_env.batch.state import NUM_FIELDS, NUM_RESULTS, RAW, TO_ACT, TRICK_SIZE, TRICKS_PLAYED, TRICKS_WON
from baloot_env.cards import NUM_CARDS, NUM_SEATS
from baloot_env.observation import OBS_SIZE

PAD = 32  # the batches' row counts are multiples of this (policy_values)


@njit
def _settle(
    s: np.ndarray,
    k: int,
    w: int,
    team: int,
    endgame_cards: int,
    over: bool,
    world_rows: np.ndarray,
    r: np.ndarray,
    sw: np.ndarray,
    caches: np.ndarray,
    values: np.ndarray,
    active: np.ndarray,
    table: np.ndarray,
    stamp: int,
) -> None:
    """Row k after a card: its exact value if the hand is ``over`` or in its endgame; else the
    seat to act's only legal card, if it has one, played at once (the network's greedy choice
    without asking it) and the row settled again; else active, for the network's card."""
    world = world_rows[w : w + 1]
    while True:
        if over:
            values[k] = float(leaf_value(world, r, sw, team, s[k, RAW], s[k, TRICKS_WON], caches[w]))
            active[k] = False
            return
        left = NUM_CARDS - NUM_SEATS * s[k, TRICKS_PLAYED] - s[k, TRICK_SIZE]
        if left <= endgame_cards:
            values[k] = solve_row(s, k, team, world, r, sw, caches[w], table, stamp + w)
            active[k] = False
            return
        legal = legal_mask(s, k)
        if legal & (legal - 1):
            active[k] = True
            return
        over = play_card(s, k, lowest_index(legal))


@njit
def start_rows(
    template: np.ndarray,
    worlds: np.ndarray,
    cards: np.ndarray,
    sw: np.ndarray,
    team: int,
    endgame_cards: int,
    s: np.ndarray,
    world_rows: np.ndarray,
    caches: np.ndarray,
    values: np.ndarray,
    active: np.ndarray,
    table: np.ndarray,
    stamp: int,
) -> None:
    """Row ``w * len(cards) + i``: world w with ``cards[i]`` played, settled (``_settle``)."""
    r = np.zeros((1, NUM_RESULTS), dtype=np.int64)
    base = np.empty((1, NUM_FIELDS), dtype=np.int64)
    n_cards = cards.shape[0]
    for w in range(worlds.shape[0]):
        base[0, :] = template
        set_world(base, 0, worlds[w], sw)
        world_rows[w, :] = base[0, :]  # leaf_value's scratch copy of the world's row
        caches[w, :] = NO_VALUE  # the leaf depends on the world only
        for i in range(n_cards):
            k = w * n_cards + i
            s[k, :] = base[0, :]
            over = play_card(s, k, cards[i])
            _settle(s, k, w, team, endgame_cards, over, world_rows, r, sw, caches, values, active, table, stamp)


@njit
def encode_rows(s: np.ndarray, sw: np.ndarray, rows: np.ndarray, obs: np.ndarray, legal: np.ndarray) -> None:
    """``obs[j]``: the observation of the seat to act in row ``rows[j]``; ``legal[j]`` its legal cards."""
    for j in range(rows.shape[0]):
        k = rows[j]
        encode_row(s, sw, k, s[k, TO_ACT], obs[j])
        legal[j] = legal_mask(s, k)


@njit
def play_best(
    s: np.ndarray,
    sw: np.ndarray,
    rows: np.ndarray,
    logits: np.ndarray,
    legal: np.ndarray,
    n_cards: int,
    team: int,
    endgame_cards: int,
    world_rows: np.ndarray,
    caches: np.ndarray,
    values: np.ndarray,
    active: np.ndarray,
    table: np.ndarray,
    stamp: int,
) -> None:
    """Row ``rows[j]`` plays its legal card of the highest logit (the lowest card of equal ones),
    then is settled (``_settle``)."""
    r = np.zeros((1, NUM_RESULTS), dtype=np.int64)
    for j in range(rows.shape[0]):
        k = rows[j]
        best, card = -np.inf, -1
        for c in range(NUM_CARDS):
            if (legal[j] >> c) & 1 and logits[j, c] > best:
                best, card = logits[j, c], c
        over = play_card(s, k, card)
        _settle(s, k, k // n_cards, team, endgame_cards, over, world_rows, r, sw, caches, values, active, table, stamp)


def playout_net(net: BalootNet, precision: str) -> BalootNet:
    """``net`` itself when ``precision`` resolves to fp32, else a frozen bf16 copy of it (made
    once, when the search is built: the playouts read it, the original is never changed)."""
    if resolve_precision(precision) == "fp32":
        return net
    return copy.deepcopy(net).to(torch.bfloat16).eval()


def policy_values(
    net: BalootNet,
    template: np.ndarray,
    worlds: np.ndarray,
    cards: np.ndarray,
    sw: np.ndarray,
    team: int,
    endgame_cards: int,
) -> np.ndarray:
    """Each card's value in each world (worlds x cards, game points for ``team``, R7), every
    playout continued by ``net``'s greedy card play (module docstring)."""
    n_worlds, n_cards = worlds.shape[0], cards.shape[0]
    n = n_worlds * n_cards
    dtype = next(net.parameters()).dtype  # the playout_net's number format
    s = np.empty((n, NUM_FIELDS), dtype=np.int64)
    world_rows = np.empty((n_worlds, NUM_FIELDS), dtype=np.int64)
    caches = np.empty((n_worlds, LEAF_CACHE_SIZE), dtype=np.int64)
    values = np.zeros(n, dtype=np.float64)
    active = np.zeros(n, dtype=np.bool_)
    table, stamp = claim_stamps(n_worlds)
    start_rows(template, worlds, cards, sw, team, endgame_cards, s, world_rows, caches, values, active, table, stamp)
    # Batches padded to a multiple of PAD rows (the padding's rows are left over, their logits
    # unread): oneDNN prepares its bf16 kernels for each batch size it meets, and forced cards
    # played at once (_settle) leave the rows of a playout unequal in length, so unpadded batches
    # would take a new size at almost every card.
    obs = np.zeros((-(-n // PAD) * PAD, OBS_SIZE), dtype=np.float32)
    legal = np.empty(n, dtype=np.int64)
    while True:
        rows = np.flatnonzero(active)
        if len(rows) == 0:
            break
        m = len(rows)
        encode_rows(s, sw, rows, obs[:m], legal[:m])
        padded = -(-m // PAD) * PAD
        with torch.inference_mode():
            logits = net.card_logits(torch.from_numpy(obs[:padded]).to(dtype)).float().numpy()
        play_best(
            s,
            sw,
            rows,
            logits,
            legal[:m],
            n_cards,
            team,
            endgame_cards,
            world_rows,
            caches,
            values,
            active,
            table,
            stamp,
        )
    out: np.ndarray = values.reshape(n_worlds, n_cards)
    return out
