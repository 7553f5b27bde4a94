"""The end of a hand: R6.3-R6.5 and R7 applied and the R11.4 result written; and read back.

The kernels write each result into the ``BatchResults`` table; ``hand_result_info`` and
``match_result_info`` read one game's back in the engine's R11.4 / R11.5 dict form.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from baloot_env.batch.jit import njit
from baloot_env.batch.projects import project_winner
from baloot_env.batch.scoring import score_hand
from baloot_env.batch.state import (
    BALOOT_SEAT,
    CALLER,
    CONTRACT,
    DEALER,
    DONE,
    HOKUM,
    LEVEL,
    M_REASON,
    M_SCORE,
    M_WINNER,
    MATCH_SCORE,
    PHASE,
    PROJECT_KINDS,
    R_BALOOT,
    R_CALLER,
    R_CALLERS_WON,
    R_CONTRACT,
    R_DEALER,
    R_GAHWA_WINNER,
    R_KABOOT,
    R_LEVEL,
    R_PROJECTS,
    R_RAW,
    R_SCORE,
    R_TRICKS,
    R_TRUMP,
    RAW,
    REASONS,
    SW_BALOOT_KEPT,
    SW_LAST_DIGIT,
    TO_ACT,
    TRICKS_WON,
    TRUMP,
    BatchResults,
)
from baloot_env.batch.tables import KIND_VALUE
from baloot_env.projects import BALOOT_POINTS
from baloot_env.scoring import HOKUM as _HOKUM_NAME
from baloot_env.scoring import SUN as _SUN_NAME

_TEAM_PROJECTS = 4  # two seats, at most two projects each


@njit
def finish_played(s: np.ndarray, r: np.ndarray, sw: np.ndarray, g: int) -> None:
    """R7: score game g's played hand (its eighth trick has closed) and record the result."""
    contract = s[g, CONTRACT]
    col = 0 if contract == HOKUM else 1
    proj0 = 0
    proj1 = 0
    for i in range(2 * _TEAM_PROJECTS):
        r[g, R_PROJECTS + i] = -1
    team = project_winner(s, g)
    if team >= 0 and s[g, TRICKS_WON + team] > 0:  # R6.3, R6.4
        n = 0
        for seat in (team, team + 2):
            for i in range(2):
                k = s[g, PROJECT_KINDS + 2 * seat + i]
                if k >= 0:
                    v = KIND_VALUE[k, col]
                    r[g, R_PROJECTS + _TEAM_PROJECTS * team + n] = v
                    n += 1
                    if team == 0:
                        proj0 += v
                    else:
                        proj1 += v
    bal0 = 0
    bal1 = 0
    if s[g, BALOOT_SEAT] >= 0:  # R6.5
        if s[g, BALOOT_SEAT] % 2 == 0:
            bal0 = BALOOT_POINTS
        else:
            bal1 = BALOOT_POINTS
    s0, s1, callers_won, _winner, kaboot, gahwa_winner = score_hand(
        contract,
        s[g, CALLER],
        s[g, LEVEL],
        s[g, RAW],
        s[g, RAW + 1],
        s[g, TRICKS_WON],
        s[g, TRICKS_WON + 1],
        proj0,
        proj1,
        bal0,
        bal1,
        sw[SW_LAST_DIGIT] != 0,
        sw[SW_BALOOT_KEPT] != 0,
        s[g, MATCH_SCORE],
        s[g, MATCH_SCORE + 1],
    )
    r[g, R_CONTRACT] = contract
    r[g, R_TRUMP] = s[g, TRUMP]
    r[g, R_CALLER] = s[g, CALLER]
    r[g, R_LEVEL] = s[g, LEVEL]
    for t in range(2):
        r[g, R_RAW + t] = s[g, RAW + t]
        r[g, R_TRICKS + t] = s[g, TRICKS_WON + t]
    r[g, R_BALOOT] = bal0
    r[g, R_BALOOT + 1] = bal1
    r[g, R_KABOOT] = kaboot
    r[g, R_CALLERS_WON] = callers_won
    r[g, R_SCORE] = s0
    r[g, R_SCORE + 1] = s1
    r[g, R_GAHWA_WINNER] = gahwa_winner
    r[g, R_DEALER] = s[g, DEALER]
    s[g, PHASE] = DONE
    s[g, TO_ACT] = -1


@njit
def finish_thrown_in(s: np.ndarray, r: np.ndarray, g: int) -> None:
    """R3.5: all passed twice; nobody scores."""
    r[g, R_CONTRACT] = -1
    r[g, R_TRUMP] = -1
    r[g, R_CALLER] = -1
    r[g, R_LEVEL] = 1
    for t in range(2):
        r[g, R_RAW + t] = 0
        r[g, R_TRICKS + t] = 0
        r[g, R_BALOOT + t] = 0
        r[g, R_SCORE + t] = 0
    for i in range(2 * _TEAM_PROJECTS):
        r[g, R_PROJECTS + i] = -1
    r[g, R_KABOOT] = 0
    r[g, R_CALLERS_WON] = -1
    r[g, R_GAHWA_WINNER] = -1
    r[g, R_DEALER] = s[g, DEALER]
    s[g, PHASE] = DONE
    s[g, TO_ACT] = -1


def _or_none(x: int) -> int | None:
    return None if x < 0 else int(x)


def _pair(row: np.ndarray, col: int) -> list[int]:
    return [int(row[col]), int(row[col + 1])]


def hand_result_info(results: BatchResults, g: int) -> dict[str, Any]:
    """Game g's last hand result as ``HandResult.to_info()`` gives it (R11.4, plus the dealer)."""
    row = results.table[g]
    contract = int(row[R_CONTRACT])
    callers_won = int(row[R_CALLERS_WON])
    projects = row[R_PROJECTS : R_PROJECTS + 2 * _TEAM_PROJECTS].reshape(2, _TEAM_PROJECTS)
    return {
        "contract": None if contract < 0 else (_HOKUM_NAME if contract == HOKUM else _SUN_NAME),
        "trump": _or_none(row[R_TRUMP]),
        "caller": _or_none(row[R_CALLER]),
        "level": int(row[R_LEVEL]),
        "raw": _pair(row, R_RAW),
        "tricks": _pair(row, R_TRICKS),
        "projects": [[int(v) for v in team if v >= 0] for team in projects],
        "baloot": _pair(row, R_BALOOT),
        "kaboot": bool(row[R_KABOOT]),
        "callers_won": None if callers_won < 0 else bool(callers_won),
        "score": _pair(row, R_SCORE),
        "gahwa_winner": _or_none(row[R_GAHWA_WINNER]),
        "dealer": int(row[R_DEALER]),
    }


def match_result_info(results: BatchResults, g: int) -> dict[str, Any]:
    """Game g's last match result as ``MatchResult.to_info()`` gives it (R11.5, plus the reason)."""
    row = results.table[g]
    return {"winner": _or_none(row[M_WINNER]), "score": _pair(row, M_SCORE), "reason": REASONS[int(row[M_REASON])]}
