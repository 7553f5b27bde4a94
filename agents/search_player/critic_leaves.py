"""Search leaves valued by a network's privileged critic instead of a heuristic playout.

``batch_search`` values a card in a world by playing the hand out with the heuristic kernel for
every seat, then solving the last tricks exactly. The heuristic continuation is the search's
weak point: every seat plays it, so a card is judged by how it fares among heuristic players. A
network trained by self-play or expert iteration with a *privileged critic* (``BalootNet`` with
``privileged_critic``: the value head reads all four hands beside the acting seat's
observation) estimates instead the hand's outcome under its own, stronger play, from the full
state. Here, for every (world, legal card) row:

1. the world's row (``batch_search.set_world``), the card played (R5);
2. if the hand is over, its exact value (``leaf_value``, R7); if at most ``endgame_cards`` cards
   are left, the exact alpha-beta of the last tricks (``solve_row``), as the playout search;
3. otherwise the observation of the seat to act now (``encode_row``: ``observation.encode``'s
   layout) and the four hands relative to it (``observation.HIDDEN_HANDS``'s layout) are written
   out, and one batched forward pass of the value head gives that seat's team's expected
   reward; the deciding team's value is it, or its negative, times the reward scale (44 game
   points, the env's ``reward="diff"``).

``leaf_rows`` is the kernel; ``critic_values`` gives each card's value in each world, as
``search_values`` does for playouts. Which seat the rows are written for and with which sign is
checked against the engine's own observations in ``tests/agents/test_critic_leaves.py``.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.neural.network import BalootNet
from agents.search_player.batch_endgame import LEAF_CACHE_SIZE, NO_VALUE, claim_stamps, leaf_value, solve_row
from agents.search_player.batch_search import set_world
from agents.search_player.jit import njit
from baloot_env.batch.observation import encode_row
from baloot_env.batch.play import play_card
from baloot_env.batch.state import HANDS, NUM_FIELDS, NUM_RESULTS, RAW, TO_ACT, TRICK_SIZE, TRICKS_PLAYED, TRICKS_WON
from baloot_env.cards import NUM_CARDS, NUM_SEATS
from baloot_env.observation import OBS_SIZE, PRIVILEGED_SIZE
from baloot_env.rewards import REWARD_SCALE  # game points per unit of the critic's value (reward "diff")


@njit
def leaf_rows(
    template: np.ndarray,
    worlds: np.ndarray,
    cards: np.ndarray,
    sw: np.ndarray,
    team: int,
    endgame_cards: int,
    exact: np.ndarray,
    rows: np.ndarray,
    sign: np.ndarray,
    table: np.ndarray,
    stamp: int,
) -> int:
    """Write every (world w, card i) leaf: ``exact[w, i]`` its exact value when the hand ends or
    reaches the endgame (``sign[w, i]`` 0 then), else the network input of the seat to act into
    ``rows[k]`` (observation, then the four hands from that seat: me, next, partner, previous)
    with ``sign[w, i]`` +1 or -1 (that seat's team is the deciding ``team`` or not) and
    ``exact[w, i]`` = k, the row's index. Returns the number of rows written."""
    base = np.empty((1, NUM_FIELDS), dtype=np.int64)
    s = np.empty((1, NUM_FIELDS), dtype=np.int64)
    world = np.empty((1, NUM_FIELDS), dtype=np.int64)
    r = np.zeros((1, NUM_RESULTS), dtype=np.int64)
    cache = np.empty(LEAF_CACHE_SIZE, dtype=np.int64)
    k = 0
    for w in range(worlds.shape[0]):
        base[0, :] = template
        set_world(base, 0, worlds[w], sw)
        world[0, :] = base[0, :]
        cache[:] = NO_VALUE
        for i in range(cards.shape[0]):
            s[0, :] = base[0, :]
            sign[w, i] = 0
            if play_card(s, 0, cards[i]):
                exact[w, i] = float(leaf_value(world, r, sw, team, s[0, RAW], s[0, TRICKS_WON], cache))
                continue
            left = NUM_CARDS - NUM_SEATS * s[0, TRICKS_PLAYED] - s[0, TRICK_SIZE]
            if left <= endgame_cards:
                exact[w, i] = solve_row(s, 0, team, world, r, sw, cache, table, stamp + w)
                continue
            seat = s[0, TO_ACT]
            encode_row(s, sw, 0, seat, rows[k, :OBS_SIZE])
            for rel in range(NUM_SEATS):
                held = s[0, HANDS + ((seat + rel) & 3)]
                for c in range(NUM_CARDS):
                    rows[k, OBS_SIZE + rel * NUM_CARDS + c] = float((held >> c) & 1)
            sign[w, i] = 1 if (seat & 1) == team else -1
            exact[w, i] = float(k)
            k += 1
    return k


def critic_values(
    net: BalootNet,
    template: np.ndarray,
    worlds: np.ndarray,
    cards: np.ndarray,
    sw: np.ndarray,
    team: int,
    endgame_cards: int,
) -> np.ndarray:
    """Each card's value in each world (worlds x cards, game points for ``team``, R7): exact
    where the hand ends or is in its endgame, else the critic's estimate (module docstring).

    Raises:
        ValueError: ``net`` has no privileged critic (its value head would not see the hands).
    """
    if not net.spec.privileged_critic:
        raise ValueError("critic leaves need a network with a privileged critic (net.privileged_critic)")
    n_worlds, n_cards = worlds.shape[0], cards.shape[0]
    exact = np.zeros((n_worlds, n_cards), dtype=np.float64)
    sign = np.zeros((n_worlds, n_cards), dtype=np.int64)
    rows = np.zeros((n_worlds * n_cards, OBS_SIZE + PRIVILEGED_SIZE), dtype=np.float32)
    table, stamp = claim_stamps(n_worlds)
    k = leaf_rows(template, worlds, cards, sw, team, endgame_cards, exact, rows, sign, table, stamp)
    values = exact.copy()
    if k:
        with torch.no_grad():
            v = net.value(torch.from_numpy(rows[:k])).double().numpy() * REWARD_SCALE
        at = sign != 0
        values[at] = sign[at] * v[exact[at].astype(np.int64)]
    return values
