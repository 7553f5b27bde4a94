"""Rewards: the one definition used by ``baloot_v0``, self-play training and warm-start labels.

Rewards go to teams (R1.1): partners get the same reward, opponents its negative. They are
given when a hand ends (R11.1):

- ``"diff"`` (default): (my team's hand score - theirs) / ``scale``. ``REWARD_SCALE`` = 44 is a
  Sun kaboot (R7.6), so ordinary hands fall in [-1, 1]; doubled hands and a gahwa exceed it.
- ``"points"``: the same difference unscaled, in game points (R7).
- ``"win"``: only at the episode's end, +1 / -1 / 0: for the hand in a hand episode (by its
  score), for the match in a match episode (a draw at the 99-deal cap, R8.4, is 0).

In match episodes ``match_bonus`` is added for the winner and subtracted for the loser when the
match ends, in the "diff" and "points" modes.

Standard library only, like the rest of the engine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from baloot_env.match import MatchResult
from baloot_env.results import HandResult

REWARD_SCALE = 44.0  # a Sun kaboot (R7.6): ordinary hands land in [-1, 1]
REWARD_MODES = ("diff", "points", "win")


@dataclass(frozen=True)
class Reward:
    """How a game pays its teams (module docstring).

    Attributes:
        mode: "diff", "points" or "win".
        scale: the divisor of the "diff" mode (> 0).
        match_bonus: added (winner) and subtracted (loser) when a match ends ("diff", "points").
    """

    mode: str = "diff"
    scale: float = REWARD_SCALE
    match_bonus: float = 1.0

    def __post_init__(self) -> None:
        if self.mode not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {self.mode!r}")
        if isinstance(self.scale, bool) or not isinstance(self.scale, (int, float)) or not self.scale > 0:
            raise ValueError(f"reward scale must be a number > 0, got {self.scale!r}")
        if isinstance(self.match_bonus, bool) or not isinstance(self.match_bonus, (int, float)):
            raise ValueError(f"match_bonus must be a number, got {self.match_bonus!r}")
        if not (math.isfinite(self.scale) and math.isfinite(self.match_bonus)):
            raise ValueError(f"reward scale and match_bonus must be finite, got {self.scale!r}, {self.match_bonus!r}")


def _sign(x: int) -> float:
    return float((x > 0) - (x < 0))


def hand_rewards(
    reward: Reward, hand: HandResult, *, match_episode: bool, match: MatchResult | None = None
) -> tuple[float, float]:
    """The rewards of teams 0 and 1 when a hand ends.

    Args:
        reward: the mode, scale and match bonus.
        hand: the hand's result (R11.4); a thrown-in hand scores 0 (R3.5).
        match_episode: True in match episodes (R8), False when the hand is the episode.
        match: the match's result when this hand ended the match, else None.
    """
    out = []
    for team in (0, 1):
        diff = hand.score[team] - hand.score[1 - team]
        if reward.mode == "win":
            if not match_episode:
                r = _sign(diff)
            elif match is not None and match.winner is not None:
                r = 1.0 if match.winner == team else -1.0
            else:
                r = 0.0
        else:
            r = diff / reward.scale if reward.mode == "diff" else float(diff)
            if match is not None and match.winner is not None:
                r += reward.match_bonus if match.winner == team else -reward.match_bonus
        out.append(r)
    return out[0], out[1]
