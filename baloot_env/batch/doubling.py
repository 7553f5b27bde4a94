"""Doubling (R4; V1 for Sun): the entitled team speaks, each raise one level up."""

from __future__ import annotations

import numpy as np

from baloot_env.actions import DOUBLE, GAHWA_ACTION, PASS
from baloot_env.batch.bidding import start_play
from baloot_env.batch.jit import njit
from baloot_env.batch.state import CONTRACT, DOUBLING_CALLS, DOUBLING_PASSES, LAST_RAISER, LEVEL, SUN, TO_ACT
from baloot_env.cards import NUM_SEATS


@njit
def legal_doubling(s: np.ndarray, g: int) -> int:
    """Pass, or the next raise with none skipped (R4.1)."""
    return 1 << PASS | 1 << (DOUBLE - 1 + s[g, LEVEL])


@njit
def apply_doubling(s: np.ndarray, g: int, action: int) -> None:
    """R4.2: the entitled team's two players speak in turn; a raise hands the turn over."""
    seat = s[g, TO_ACT]
    if action == PASS:
        s[g, DOUBLING_CALLS + seat] |= 1
        s[g, DOUBLING_PASSES] += 1
        if s[g, DOUBLING_PASSES] == 2:
            start_play(s, g)
        else:
            s[g, TO_ACT] = (seat + 2) % NUM_SEATS  # the entitled team's other player
        return
    s[g, DOUBLING_CALLS + seat] |= 1 << (action - DOUBLE + 1)
    s[g, LEVEL] += 1
    s[g, LAST_RAISER] = seat
    s[g, DOUBLING_PASSES] = 0
    if action == GAHWA_ACTION or s[g, CONTRACT] == SUN:  # R4.2: gahwa closes; V1: one double
        start_play(s, g)
    else:
        s[g, TO_ACT] = (seat + 1) % NUM_SEATS  # the other team, first after the raiser
