"""``decide`` and the batched kernels around it: the heuristic's action for games of the core."""

from __future__ import annotations

import numpy as np

from agents.rule_based.batch_heuristic.bidding import _bid, _double
from agents.rule_based.batch_heuristic.jit import njit  # the guard first: before any kernel is defined
from agents.rule_based.batch_heuristic.play import card_action
from agents.rule_based.batch_heuristic.tables import (
    heuristic_bars,
)
from agents.rule_based.heuristic import HeuristicConfig
from baloot_env.actions import PASS
from baloot_env.batch.core import apply_action
from baloot_env.batch.state import (
    BIDDING,
    DONE,
    DOUBLING,
    EPISODE_DONE,
    HAND_DONE,
    PHASE,
    PLAY,
)
from baloot_env.batch.view import (
    V_LEGAL,
    V_PHASE,
    VIEW_SIZE,
    seat_view,
)


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
