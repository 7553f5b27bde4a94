"""The batched kernels: legal masks, observations, steps, random play, resets (N games at once).

Every kernel takes the state's arrays (``games``, ``rng``, ``queue``), the results' arrays
(``table``, ``reward``) and the switches, and loops over the games. One game's step is
``apply_action``: it dispatches to the phase's module (``bidding``, ``doubling``, ``play``) and,
when the hand ends, scores it (``results``), closes the episode's books (``match``) and, with
automatic reset, deals again.
"""

from __future__ import annotations

import numpy as np

from baloot_env.actions import NUM_ACTIONS
from baloot_env.batch.bidding import apply_bid, legal_bids
from baloot_env.batch.bits import nth_set_bit, popcount
from baloot_env.batch.deal import below
from baloot_env.batch.doubling import apply_doubling, legal_doubling
from baloot_env.batch.jit import njit
from baloot_env.batch.match import advance, end_hand
from baloot_env.batch.observation import encode_row
from baloot_env.batch.play import legal_cards, play_card
from baloot_env.batch.results import finish_played, finish_thrown_in
from baloot_env.batch.state import (
    BIDDING,
    DONE,
    DOUBLING,
    EPISODE_DONE,
    HAND_DONE,
    PHASE,
    PLAY,
    SW_AUTO_RESET,
    TO_ACT,
)


@njit
def legal_mask(s: np.ndarray, g: int) -> int:
    """Bit ``a`` set iff action ``a`` is legal for game g's seat to act (R3, R4, R5, R9); 0 when over."""
    phase = s[g, PHASE]
    if phase == PLAY:
        return legal_cards(s, g)
    if phase == BIDDING:
        return legal_bids(s, g)
    if phase == DOUBLING:
        return legal_doubling(s, g)
    return 0


@njit
def apply_action(s, rng, queue, r, reward, sw, pay: np.ndarray, g: int, action: int) -> None:
    """Apply a legal action to game g; at a hand's end score it, keep the books and (with
    automatic reset) deal again."""
    phase = s[g, PHASE]
    if phase == PLAY:
        if not play_card(s, g, action):
            return
        finish_played(s, r, sw, g)
    elif phase == BIDDING:
        if not apply_bid(s, sw, g, action):
            return
        finish_thrown_in(s, r, g)
    else:
        apply_doubling(s, g, action)
        return
    end_hand(s, r, reward, sw, pay, g)
    if sw[SW_AUTO_RESET]:
        advance(s, rng, queue, sw, g)


@njit
def _clear_step(r: np.ndarray, reward: np.ndarray, g: int) -> None:
    reward[g] = 0.0
    r[g, HAND_DONE] = 0
    r[g, EPISODE_DONE] = 0


@njit
def step(s, rng, queue, r, reward, sw, pay: np.ndarray, actions) -> int:
    """Apply ``actions[g]`` in every game g; a game whose hand is over takes -1.

    Nothing changes unless every action is legal: returns the first game with an illegal action,
    or -1 when all were applied. The results then hold this step's rewards and ends.
    """
    n = actions.shape[0]
    for g in range(n):
        a = actions[g]
        if s[g, PHASE] == DONE:
            if a != -1:
                return g
        elif a < 0 or a >= NUM_ACTIONS or not (legal_mask(s, g) >> a) & 1:
            return g
    for g in range(n):
        _clear_step(r, reward, g)
        if s[g, PHASE] != DONE:
            apply_action(s, rng, queue, r, reward, sw, pay, g, actions[g])
    return -1


@njit
def random_steps(s, rng, queue, r, reward, sw, pay: np.ndarray, act_rng, steps: int) -> tuple[int, int]:
    """``steps`` lockstep steps with actions drawn uniformly among the legal ones in the kernel.

    ``act_rng`` is a uint64 stream per game (``deal.seed_stream``). The results hold the last
    step's rewards and ends. Returns (decisions made, hands finished).
    """
    n = s.shape[0]
    decisions = 0
    hands = 0
    for _ in range(steps):
        for g in range(n):
            _clear_step(r, reward, g)
            if s[g, PHASE] == DONE:
                continue
            m = legal_mask(s, g)
            a = nth_set_bit(m, below(act_rng, g, popcount(m)))
            apply_action(s, rng, queue, r, reward, sw, pay, g, a)
            decisions += 1
            hands += r[g, HAND_DONE]
    return decisions, hands


@njit
def legal_masks(s: np.ndarray, masks: np.ndarray) -> None:
    """``masks[g]`` (int8[42]): the legal actions of game g's seat to act (zeros when over)."""
    for g in range(masks.shape[0]):
        m = legal_mask(s, g)
        for a in range(NUM_ACTIONS):
            masks[g, a] = (m >> a) & 1


@njit
def observe(s, sw, seats, obs, masks) -> None:
    """For every game g, the observation and mask of seat ``seats[g]`` (-1: the seat to act).

    ``obs`` is float32 (N, OBS_SIZE), ``masks`` int8 (N, 42). The mask is zeros for a seat not to
    act (R11.3); a game with no seat to act (its hand over, without automatic reset) gets zeros.
    """
    for g in range(obs.shape[0]):
        seat = seats[g]
        to_act = s[g, TO_ACT]
        if seat < 0:
            seat = to_act
        m = 0
        if seat < 0:
            obs[g, :] = 0.0
        else:
            encode_row(s, sw, g, seat, obs[g])
            if seat == to_act:
                m = legal_mask(s, g)
        for a in range(NUM_ACTIONS):
            masks[g, a] = (m >> a) & 1


@njit
def sample_uniform(masks, act_rng, actions) -> None:
    """``actions[g]``: uniform among the actions set in ``masks[g]``, -1 when none is."""
    for g in range(masks.shape[0]):
        m = 0
        for a in range(NUM_ACTIONS):
            if masks[g, a]:
                m |= 1 << a
        if m == 0:
            actions[g] = -1
        else:
            actions[g] = nth_set_bit(m, below(act_rng, g, popcount(m)))


@njit
def advance_finished(s, rng, queue, sw) -> None:
    """Deal the next hand (or episode) of every game whose hand is over (R2.1)."""
    for g in range(s.shape[0]):
        if s[g, PHASE] == DONE:
            advance(s, rng, queue, sw, g)
