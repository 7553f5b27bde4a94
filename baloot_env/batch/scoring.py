"""Scoring a hand (qaid, R7), as ``baloot_env.scoring.score_hand``, in integers throughout."""

from __future__ import annotations

import numpy as np

from baloot_env.batch.jit import njit
from baloot_env.batch.state import HOKUM, SUN
from baloot_env.cards import HOKUM_TOTAL, NUM_TRICKS, SUN_TOTAL
from baloot_env.rules import TARGET_SCORE
from baloot_env.scoring import GAHWA, KABOOT_VALUE, ROUNDING_UNIT
from baloot_env.scoring import HOKUM as _HOKUM_NAME
from baloot_env.scoring import SUN as _SUN_NAME

# Per contract (HOKUM, SUN): the hand's total (R7.2), the kaboot (R7.6), the rounding unit (R7.3).
_HAND_TOTAL = np.array([HOKUM_TOTAL, SUN_TOTAL], dtype=np.int64)
_KABOOT = np.array([KABOOT_VALUE[_HOKUM_NAME], KABOOT_VALUE[_SUN_NAME]], dtype=np.int64)
_UNIT = np.array([ROUNDING_UNIT[_HOKUM_NAME], ROUNDING_UNIT[_SUN_NAME]], dtype=np.int64)
if HOKUM != 0 or SUN != 1:
    raise RuntimeError("the per-contract tables are indexed HOKUM = 0, SUN = 1")


@njit
def convert_raw(raw: int, contract: int) -> int:
    """R7.2: game points of the counting team's raw points."""
    if contract == HOKUM:
        return (raw + 4) // 10
    if raw % 10 == 5:
        return raw // 5
    return 2 * ((raw + 4) // 10)


@njit
def counting_team(caller: int, level: int) -> int:
    """R7.1: the callers after double or four, else the defenders (the level tells who raised last)."""
    callers = caller % 2
    return callers if level == 2 or level == 4 else 1 - callers


@njit
def tie_winner(
    contract: int, callers: int, counting: int, raw0: int, raw1: int, g0: int, g1: int, last_digit: bool
) -> int:
    """Winner when both totals are equal (R7.3, or V5 "last_digit")."""
    if last_digit:
        digit = (raw0 if counting == 0 else raw1) % 10
        wins = (2 <= digit <= 5) if contract == HOKUM else (2 <= digit <= 4)
        return counting if wins else 1 - counting
    u = _UNIT[contract]
    loss0 = raw0 - u * g0
    loss1 = raw1 - u * g1
    if loss0 == loss1:
        return callers
    return 0 if loss0 > loss1 else 1


@njit
def score_hand(
    contract: int,
    caller: int,
    level: int,
    raw0: int,
    raw1: int,
    tricks0: int,
    tricks1: int,
    proj0: int,
    proj1: int,
    bal0: int,
    bal1: int,
    last_digit: bool,
    baloot_kept: bool,
    match0: int,
    match1: int,
) -> tuple[int, int, int, int, bool, int]:
    """Game points of one hand (R7); ``proj`` are the teams' summed scoring projects (R6.3).

    Returns:
        (score of team 0, score of team 1, callers won (0/1), winning team, kaboot,
        gahwa winner or -1).
    """
    callers = caller % 2
    proj0 = proj0 if tricks0 > 0 else 0  # R6.4
    proj1 = proj1 if tricks1 > 0 else 0
    all_projects = proj0 + proj1
    total = _HAND_TOTAL[contract]
    counting = counting_team(caller, level)
    if counting == 0:  # R7.2
        g0 = convert_raw(raw0, contract)
        g1 = total - g0
    else:
        g1 = convert_raw(raw1, contract)
        g0 = total - g1
    t0 = g0 + proj0 + bal0  # R7.3
    t1 = g1 + proj1 + bal1
    t_callers, t_defenders = (t0, t1) if callers == 0 else (t1, t0)
    kaboot_team = 0 if tricks0 == NUM_TRICKS else 1 if tricks1 == NUM_TRICKS else -1
    if kaboot_team >= 0:  # R7.6
        winner = kaboot_team
    elif t_callers != t_defenders:
        winner = callers if t_callers > t_defenders else 1 - callers
    else:
        winner = tie_winner(contract, callers, counting, raw0, raw1, g0, g1, last_digit)
    own0, own1 = (0, 0) if baloot_kept else (bal0, bal1)  # V8: the baloot outside every product
    own_winner = own0 if winner == 0 else own1
    s0 = 0
    s1 = 0
    gahwa_winner = -1
    if level == GAHWA:  # R7.8, R8.3
        gahwa_winner = winner
        gain = max(0, TARGET_SCORE - (match0 if winner == 0 else match1))
        s0, s1 = (gain, 0) if winner == 0 else (0, gain)
    elif kaboot_team >= 0 or level > 1:  # R7.6, R7.7: a kaboot is multiplied in a doubled hand
        base = _KABOOT[contract] if kaboot_team >= 0 else total
        gain = (base + all_projects + own_winner) * level
        s0, s1 = (gain, 0) if winner == 0 else (0, gain)
    elif winner == callers:  # R7.4
        s0 = g0 + proj0 + own0
        s1 = g1 + proj1 + own1
    else:  # R7.5
        gain = total + all_projects + own_winner
        s0, s1 = (gain, 0) if winner == 0 else (0, gain)
    if baloot_kept:
        s0 += bal0
        s1 += bal1
    return s0, s1, 1 if winner == callers else 0, winner, kaboot_team >= 0, gahwa_winner


@njit
def score_hands(inputs: np.ndarray, out: np.ndarray) -> None:
    """``score_hand`` over rows (for tests and tools).

    ``inputs[i]``: contract, caller, level, raw0, raw1, tricks0, tricks1, proj0, proj1, bal0,
    bal1, last_digit, baloot_kept, match0, match1. ``out[i]``: score0, score1, callers_won,
    winner, kaboot, gahwa_winner.
    """
    for i in range(inputs.shape[0]):
        x = inputs[i]
        r = score_hand(
            x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11] != 0, x[12] != 0, x[13], x[14]
        )
        out[i, 0] = r[0]
        out[i, 1] = r[1]
        out[i, 2] = r[2]
        out[i, 3] = r[3]
        out[i, 4] = r[4]
        out[i, 5] = r[5]
