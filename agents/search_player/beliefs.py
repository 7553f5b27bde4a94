"""Belief-weighted worlds: each sampled world weighted by how likely a network makes the cards
the other seats have played in it.

The search's sampler draws the hidden hands uniformly among those the view allows (the cards
not seen, the suits a seat has shown it lacks, R5.2, R5.4). Real players' cards say more than
that: a seat that led a small card of a suit it could have won with, in a world where it held
the suit's ace, played unlike any good player. Skat and Belote programs weight each world by
the probability that a policy gives to the moves actually seen, and report large gains at the
same number of worlds. Here, for every world and every card that another seat chose (a choice of
two legal cards or more; forced cards say nothing):

1. the hand's row at the start of the play (R5): the view's public history before the first
   trick (``start_view``, through ``world_row``) with the world's 8-card hands (its holdings
   plus the cards each seat has played) and every seat's projects and baloot declared from them
   (``batch_search.set_world``);
2. the cards played so far replayed in order on that row (``play_card``); before each card of
   another seat, that seat's observation in the world (``encode_row``: what it saw then, its
   own hand included) and its legal cards;
3. one batched forward pass of the network's card head over every such row; the probability of
   the card the seat played, its masked softmax mixed with ``mix`` of the uniform choice among
   its legal cards (a floor: the network is a model of the players, not the players).

The log-likelihood of a world is the sum over its rows; its weight ``exp(power x (log-likelihood
- the largest))``, so ``power`` 0 is the plain search and 1 trusts the network fully. The calls
(R3, R4) are not weighted here: they are made on five cards before the rest is dealt.
``tests/agents/test_beliefs.py`` checks the replayed observations against the engine's own
views of the same hand.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from agents.neural.network import BalootNet
from agents.search_player.batch_search import set_world
from agents.search_player.jit import njit
from agents.search_player.player import world_row
from agents.search_player.policy_leaves import PAD
from baloot_env.batch.core import legal_mask
from baloot_env.batch.observation import encode_row
from baloot_env.batch.play import play_card
from baloot_env.batch.state import HANDS, NUM_FIELDS
from baloot_env.cards import NUM_CARDS, NUM_SEATS
from baloot_env.observation import OBS_SIZE
from baloot_env.seats import NO_SEAT, next_seat
from baloot_env.view import PlayerView

_BITS = np.arange(NUM_CARDS, dtype=np.int64)


def played_cards(view: PlayerView) -> tuple[np.ndarray, np.ndarray]:
    """The seats and the cards of every card played in the hand so far, in the order played
    (the completed tricks from their leaders, then the trick on the table)."""
    seats: list[int] = []
    cards: list[int] = []
    for leader, trick, _winner in view.tricks:
        seats += [next_seat(leader, i) for i in range(len(trick))]
        cards += trick
    seats += view.trick_seats
    cards += view.trick_cards
    return np.array(seats, dtype=np.int64), np.array(cards, dtype=np.int64)


def start_view(view: PlayerView) -> PlayerView:
    """``view`` as it was before the first card of the hand (R5): no trick, nothing played,
    nothing shown lacking, no points; the first trick's leader to act. Only the fields that
    ``world_row`` reads are rewound (the calls and the contract stay as they are)."""
    if view.tricks:
        first = view.tricks[0][0]
    else:
        first = view.trick_seats[0] if view.trick_seats else view.to_act
    nothing = (0,) * NUM_SEATS
    return dataclasses.replace(
        view,
        to_act=first,
        hand=view.full_hand,
        trick_seats=(),
        trick_cards=(),
        trick_winner=NO_SEAT,
        tricks=(),
        played_by=nothing,
        voids=nothing,
        no_trumps=nothing,
        tricks_won=(0, 0),
        raw=(0, 0),
        baloot_announced=False,
        _cache={},
    )


@njit
def start_rows(start: np.ndarray, worlds: np.ndarray, played_by: np.ndarray, sw: np.ndarray) -> np.ndarray:
    """Each world's row at the start of the play: ``start`` with the world's 8-card hands (its
    holdings and the cards each seat has played) and their projects (``set_world``)."""
    s = np.empty((worlds.shape[0], NUM_FIELDS), dtype=np.int64)
    full = np.empty(NUM_SEATS, dtype=np.int64)
    for w in range(worlds.shape[0]):
        for seat in range(NUM_SEATS):
            full[seat] = worlds[w, seat] | played_by[seat]
        s[w, :] = start
        set_world(s, w, full, sw)
    return s


@njit
def history_rows(
    start: np.ndarray,
    worlds: np.ndarray,
    played_by: np.ndarray,
    seats: np.ndarray,
    cards: np.ndarray,
    me: int,
    sw: np.ndarray,
    obs: np.ndarray,
    legal: np.ndarray,
    chosen: np.ndarray,
    pair_world: np.ndarray,
    pair_row: np.ndarray,
) -> tuple[int, int]:
    """Steps 1 and 2 of the module docstring for every world, each distinct row once: row j's
    ``obs[j]`` is the observation of a seat about to play ``chosen[j]``, ``legal[j]`` its legal
    cards; pair k says that world ``pair_world[k]`` meets row ``pair_row[k]``. A seat's
    observation at a card depends on the world only through that seat's own hand (the rest is
    the public history, which every world shares), so worlds that give it the same hand share
    the row: late in the hand most do. Returns the rows and the pairs filled.

    Args:
        start: int64[NUM_FIELDS], the start of the play (``world_row`` of ``start_view``).
        worlds: int64[W, 4], each world's holdings now.
        played_by: int64[4], the cards each seat has played (the view's).
        seats, cards: ``played_cards``.
        me: the deciding seat (its own cards are not weighted).
    """
    n_worlds = worlds.shape[0]
    s = start_rows(start, worlds, played_by, sw)
    held = np.empty(n_worlds, dtype=np.int64)  # the hand of each row of the current card
    m = 0
    k = 0
    for t in range(seats.shape[0]):
        seat = seats[t]
        first = m
        for w in range(n_worlds):
            if seat != me:
                mask = legal_mask(s, w)
                if mask & (mask - 1):  # a choice: the card tells something
                    hand = s[w, HANDS + seat]
                    j = first
                    while j < m and held[j - first] != hand:
                        j += 1
                    if j == m:
                        encode_row(s, sw, w, seat, obs[m])
                        legal[m] = mask
                        chosen[m] = cards[t]
                        held[m - first] = hand
                        m += 1
                    pair_world[k] = w
                    pair_row[k] = j
                    k += 1
            play_card(s, w, cards[t])
    return m, k


def log_likelihoods(
    net: BalootNet, view: PlayerView, start: np.ndarray, worlds: np.ndarray, sw: np.ndarray, mix: float
) -> np.ndarray:
    """Each world's log-likelihood of the other seats' chosen cards under ``net`` (module
    docstring, steps 1-3): float64[W], 0 where nobody else has had a choice yet."""
    seats, cards = played_cards(view)
    n_worlds = worlds.shape[0]
    most = n_worlds * int(np.count_nonzero(seats != view.seat))
    out = np.zeros(n_worlds, dtype=np.float64)
    if most == 0:
        return out
    obs = np.empty((-(-most // PAD) * PAD, OBS_SIZE), dtype=np.float32)  # encode_row writes a whole row
    legal, chosen, pair_world, pair_row = (np.empty(most, dtype=np.int64) for _ in range(4))
    played_by = np.array(view.played_by, dtype=np.int64)
    m, k = history_rows(start, worlds, played_by, seats, cards, view.seat, sw, obs, legal, chosen, pair_world, pair_row)
    if m == 0:
        return out
    padded = -(-m // PAD) * PAD  # the batch sizes the playouts' passes use (policy_leaves.PAD)
    obs[m:padded] = 0.0  # the padding's rows, their logits unread
    dtype = next(net.parameters()).dtype
    with torch.inference_mode():
        logits = net.card_logits(torch.from_numpy(obs[:padded]).to(dtype)).float().numpy()[:m]
    allowed = ((legal[:m, None] >> _BITS) & 1).astype(bool)
    logits = np.where(allowed, logits.astype(np.float64), -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    p = probs[np.arange(m), chosen[:m]]
    p = (1.0 - mix) * p + mix / allowed.sum(axis=1)
    np.add.at(out, pair_world[:k], np.log(p)[pair_row[:k]])
    return out


def weights(log_likelihood: np.ndarray, power: float) -> np.ndarray:
    """The worlds' weights from their log-likelihoods: ``exp(power x (ll - max ll))``, the most
    likely world weighing 1."""
    if len(log_likelihood) == 0:
        return np.ones(0)
    out: np.ndarray = np.exp(power * (log_likelihood - log_likelihood.max()))
    return out


def world_weights(
    net: BalootNet, power: float, mix: float, view: PlayerView, worlds: np.ndarray, sw: np.ndarray
) -> np.ndarray:
    """The weight of each of a card decision's ``worlds`` (module docstring): ``SearchAgent``'s
    ``world_weights`` once ``net``, ``power`` and ``mix`` are bound (``netsearch``'s ``belief``
    and ``belief_mix``)."""
    full = [int(h) | p for h, p in zip(worlds[0], view.played_by, strict=True)]
    start = world_row(start_view(view), full)
    return weights(log_likelihoods(net, view, start, worlds, sw, mix), power)
