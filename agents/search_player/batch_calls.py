"""Searched calls on the batched core: the value of every legal bid in sampled deals.

For one bidding decision (R3) the Python side (``agents.search_player.calls``) samples candidate
deals consistent with the seat's view (its own five cards and the turned card, R2.2) and builds
the core row of the hand's start (``template``). One kernel call, ``call_sums``, then, for every
candidate deal in order:

1. puts the deal in the template's row (the first hands, the turned card, the stock, R2.2);
2. replays the calls made so far (``observed``, in order). With ``condition`` set, a deal in which
   the ``heuristic`` would not have made another seat's observed call is rejected: the world
   model is that the other seats bid by the heuristic's bars (they do in ``search`` and
   ``heuristic``; for other players it is an approximation). The seat's own earlier calls are
   its own and are not tested;
3. for every legal call: the call applied, then the rest of the hand (the other calls, the
   doubling R4 and the play R5) by the heuristic kernel for every seat, to the hand's end;
4. adds the value (the deciding team's hand score minus the other's, R7; 0 for a thrown-in
   deal, R3.5) to the call's sum,

and stops once ``worlds`` deals have been accepted. The ``heuristic`` kernel is the Python
player's exact twin, so every value equals the engine's own playout of the same deal
(``tests/agents/test_call_search.py``).
"""

from __future__ import annotations

import numpy as np

from agents.rule_based.batch_heuristic.batched import heuristic_action
from agents.search_player.jit import njit
from baloot_env.batch.bits import bit_index
from baloot_env.batch.core import apply_action
from baloot_env.batch.deal import below
from baloot_env.batch.state import DEAL, DEAL_ROW, DONE, HANDS, NUM_RESULTS, PHASE, R_SCORE, TO_ACT
from baloot_env.batch.view import VIEW_SIZE
from baloot_env.cards import NUM_CARDS, NUM_SEATS

FIRST = 5  # cards per seat before the contract (R2.2)


@njit
def set_deal(s: np.ndarray, g: int, deal: np.ndarray) -> None:
    """Game g's row (at the hand's start) takes ``deal``: 32 cards in the core's deal order
    (seat s's first five at 5s..5s+4, the turned card, the stock) and the first hands."""
    for i in range(NUM_CARDS):
        s[g, DEAL + i] = deal[i]
    for seat in range(NUM_SEATS):
        m = 0
        for i in range(FIRST):
            m |= 1 << deal[FIRST * seat + i]
        s[g, HANDS + seat] = m


@njit
def call_sums(template, deals, observed, actions, sw, pay, bars, team, me, condition, worlds, sums) -> int:
    """``sums[i]`` += the value of ``actions[i]`` in every accepted deal (module docstring).

    Args:
        template: int64[NUM_FIELDS], the hand's start (bidding, nobody has called).
        deals: int64[D, 32], the candidate deals in the core's deal order.
        observed: int64[K, 2], the calls so far: (seat, action) in order.
        actions: int64[L], the legal calls of seat ``me``.
        sw, pay: the rule switches (a hand episode, no automatic reset) and the payoff.
        bars: the heuristic's bars (``heuristic_bars``).
        team: ``me``'s team.
        condition: reject deals in which the heuristic would not make the others' calls.
        worlds: stop after this many accepted deals.
        sums: float64[L], added to.

    Returns:
        The number of deals accepted (at most ``worlds``).
    """
    s = np.empty((1, template.shape[0]), dtype=np.int64)
    start = np.empty((1, template.shape[0]), dtype=np.int64)
    r = np.zeros((1, NUM_RESULTS), dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)  # not read: no automatic reset, no random move
    queue = np.zeros((1, 1, DEAL_ROW), dtype=np.int8)
    reward = np.zeros(1, dtype=np.float64)
    v = np.empty(VIEW_SIZE, dtype=np.int64)
    accepted = 0
    for d in range(deals.shape[0]):
        if accepted >= worlds:
            break
        start[0, :] = template
        set_deal(start, 0, deals[d])
        ok = True
        for k in range(observed.shape[0]):
            seat, action = observed[k, 0], observed[k, 1]
            if start[0, TO_ACT] != seat:
                raise ValueError("the observed calls are not in turn order")
            if condition and seat != me and heuristic_action(start, 0, bars, v) != action:
                ok = False
                break
            apply_action(start, rng, queue, r, reward, sw, pay, 0, action)
        if not ok:
            continue
        if start[0, TO_ACT] != me or start[0, PHASE] == DONE:
            raise ValueError("after the observed calls it is not the deciding seat's turn")
        accepted += 1
        for i in range(actions.shape[0]):
            s[0, :] = start[0, :]
            apply_action(s, rng, queue, r, reward, sw, pay, 0, actions[i])
            while s[0, PHASE] != DONE:
                apply_action(s, rng, queue, r, reward, sw, pay, 0, heuristic_action(s, 0, bars, v))
            sums[i] += float(r[0, R_SCORE + team] - r[0, R_SCORE + 1 - team])
    return accepted


@njit
def calls_agree(template, worlds, played_by, turned, caller, observed, me, sw, bars, rng, ok) -> None:
    """``ok[w]``: whether world w agrees with the calls made (R3) under the heuristic model.

    A world gives every seat its cards now; with what each seat has played that is its 8 cards
    (R2.3). Each other seat's first five are drawn uniformly from its 8 (the caller's from its 8
    less the turned card it took, R2.3), from stream ``rng[0]``, and the world agrees when the
    heuristic, holding those five, makes every observed call of the other seats. Accepting a
    world with this probability weights it by the chance of the calls given its cards: the
    sampler's worlds, so filtered, are drawn from the worlds given the calls as well.

    Args:
        template: int64[NUM_FIELDS], the hand's start (``calls._start_row``).
        worlds: int64[W, 4], each seat's cards now.
        played_by: int64[4], the cards each seat has played.
        turned, caller: the turned card and the caller.
        observed: int64[K, 2], every call of the bidding, (seat, action) in order.
        me: the deciding seat (its own calls are not tested).
        sw: the rule switches.
        bars: the heuristic's bars.
        rng: uint64[1], the stream of the draws.
        ok: int64[W], written.
    """
    s = np.empty((1, template.shape[0]), dtype=np.int64)
    r = np.zeros((1, NUM_RESULTS), dtype=np.int64)
    pay = np.zeros(2, dtype=np.float64)
    stream = np.zeros(1, dtype=np.uint64)
    queue = np.zeros((1, 1, DEAL_ROW), dtype=np.int8)
    reward = np.zeros(1, dtype=np.float64)
    v = np.empty(VIEW_SIZE, dtype=np.int64)
    pool = np.empty(8, dtype=np.int64)
    for w in range(worlds.shape[0]):
        s[0, :] = template
        for seat in range(NUM_SEATS):
            full = worlds[w, seat] | played_by[seat]
            if seat == caller:
                full &= ~(1 << turned)
            n = 0
            while full:
                low = full & -full
                pool[n] = bit_index(low)
                n += 1
                full ^= low
            m = 0
            for i in range(FIRST):  # a partial Fisher-Yates shuffle: five of the n, uniformly
                j = i + below(rng, 0, n - i)
                pool[i], pool[j] = pool[j], pool[i]
                m |= 1 << pool[i]
            s[0, HANDS + seat] = m
        agree = 1
        last = observed.shape[0] - 1
        for k in range(last + 1):
            seat, action = observed[k, 0], observed[k, 1]
            if seat != me and heuristic_action(s, 0, bars, v) != action:
                agree = 0
                break
            if k < last:  # the last call settles the contract and deals the stock: not needed
                apply_action(s, stream, queue, r, reward, sw, pay, 0, action)
        ok[w] = agree
