"""The episode around each hand: the match (R8), rewards, and the next deal (R2.1, V9).

Rewards are ``baloot_env.rewards.hand_rewards``'s: partners share team 0's reward, opponents
get its negative; "diff" pays (score0 - score1) / scale when a hand ends, "points" the same
unscaled, and in match episodes the match bonus goes to the winner (and from the loser) at the
end; "win" pays only at the episode's end, +1 / -1 / 0.
"""

from __future__ import annotations

import numpy as np

from baloot_env.batch.deal import next_deal, seed_stream, start_hand
from baloot_env.batch.jit import njit
from baloot_env.batch.state import (
    DEALER,
    DEALS_PLAYED,
    EPISODE_DONE,
    EPISODE_HAND,
    EPISODE_OVER,
    EPISODE_TARGET,
    HAND_DONE,
    HANDS_SCORED,
    M_REASON,
    M_SCORE,
    M_WINNER,
    MATCH_SCORE,
    PAY_BONUS,
    PAY_SCALE,
    QUEUE_POS,
    R_CONTRACT,
    R_GAHWA_WINNER,
    R_SCORE,
    REASON_CAP,
    REASON_GAHWA,
    REASON_HANDS,
    REASON_TARGET,
    SW_EPISODE,
    SW_HANDS,
    SW_REWARD,
    SW_ROTATION,
    SW_WIN_ABOVE,
)
from baloot_env.cards import NUM_SEATS
from baloot_env.rewards import REWARD_MODES
from baloot_env.rules import MAX_DEALS, TARGET_SCORE

REWARD_DIFF, REWARD_POINTS, REWARD_WIN = (REWARD_MODES.index(m) for m in ("diff", "points", "win"))
_NOT_OVER = -2


@njit
def end_hand(s: np.ndarray, r: np.ndarray, reward: np.ndarray, sw: np.ndarray, pay: np.ndarray, g: int) -> None:
    """After game g's hand is scored: the match's books and end (R8.1-R8.4), rewards, end flags."""
    r[g, HAND_DONE] = 1
    s0 = r[g, R_SCORE]
    s1 = r[g, R_SCORE + 1]
    diff = s0 - s1
    mode = sw[SW_REWARD]
    value = 0.0
    if mode == REWARD_DIFF:
        value += diff / pay[PAY_SCALE]
    elif mode == REWARD_POINTS:
        value += float(diff)
    episode = sw[SW_EPISODE]
    if episode == EPISODE_HAND:
        if mode == REWARD_WIN:
            value += float(np.sign(diff))
        r[g, EPISODE_DONE] = 1
        s[g, EPISODE_OVER] = 1
        reward[g] += value
        return
    thrown = r[g, R_CONTRACT] < 0
    s[g, DEALS_PLAYED] += 1
    s[g, MATCH_SCORE] += s0
    s[g, MATCH_SCORE + 1] += s1
    m0 = s[g, MATCH_SCORE]
    m1 = s[g, MATCH_SCORE + 1]
    if not thrown:
        s[g, HANDS_SCORED] += 1
    winner = _NOT_OVER
    reason = -1
    if r[g, R_GAHWA_WINNER] >= 0:  # R8.3
        winner = r[g, R_GAHWA_WINNER]
        reason = REASON_GAHWA
    elif not thrown and episode == EPISODE_TARGET:  # R8.1, V6
        top = max(m0, m1)
        reached = top > TARGET_SCORE if sw[SW_WIN_ABOVE] else top >= TARGET_SCORE
        if reached and m0 != m1:
            winner = 0 if m0 > m1 else 1
            reason = REASON_TARGET
    elif not thrown and s[g, HANDS_SCORED] >= sw[SW_HANDS] and m0 != m1:  # R8.2
        winner = 0 if m0 > m1 else 1
        reason = REASON_HANDS
    if winner == _NOT_OVER and s[g, DEALS_PLAYED] >= MAX_DEALS:  # R8.4
        winner = -1 if m0 == m1 else (0 if m0 > m1 else 1)
        reason = REASON_CAP
    if winner != _NOT_OVER:
        r[g, M_WINNER] = winner
        r[g, M_SCORE] = m0
        r[g, M_SCORE + 1] = m1
        r[g, M_REASON] = reason
        if winner >= 0:
            bonus = 1.0 if mode == REWARD_WIN else pay[PAY_BONUS]
            value += bonus if winner == 0 else -bonus
        r[g, EPISODE_DONE] = 1
        s[g, EPISODE_OVER] = 1
    reward[g] += value


@njit
def new_episode(s: np.ndarray, rng: np.ndarray, queue: np.ndarray, sw: np.ndarray, g: int) -> None:
    """Start game g's next episode: a fresh match and a deal with a random dealer (R2.1)."""
    s[g, MATCH_SCORE] = 0
    s[g, MATCH_SCORE + 1] = 0
    s[g, DEALS_PLAYED] = 0
    s[g, HANDS_SCORED] = 0
    s[g, EPISODE_OVER] = 0
    next_deal(s, rng, queue, sw, g, -1)
    start_hand(s, g)


@njit
def advance(s: np.ndarray, rng: np.ndarray, queue: np.ndarray, sw: np.ndarray, g: int) -> None:
    """Deal game g's next hand after a finished one: the match goes on with the deal moved on
    (R2.1, V9), or a new episode begins."""
    if s[g, EPISODE_OVER]:
        new_episode(s, rng, queue, sw, g)
        return
    next_deal(s, rng, queue, sw, g, (s[g, DEALER] + sw[SW_ROTATION]) % NUM_SEATS)
    start_hand(s, g)


@njit
def reset_games(s: np.ndarray, rng: np.ndarray, queue: np.ndarray, sw: np.ndarray, seed: int, reseed: bool) -> None:
    """Every game starts a new episode from its first queued deal; with ``reseed``, game g's
    stream restarts from (seed, g)."""
    for g in range(s.shape[0]):
        if reseed:
            rng[g] = seed_stream(seed, g)
        s[g, QUEUE_POS] = 0
        new_episode(s, rng, queue, sw, g)
