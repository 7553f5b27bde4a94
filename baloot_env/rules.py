"""Rule variants (RULES.md V1-V9) as one frozen dataclass.

The defaults are the rules written in R1-R8; every field is a documented variant switch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from baloot_env.config import from_mapping
from baloot_env.errors import ConfigError
from baloot_env.errors import shown as quoted
from baloot_env.seats import next_seat

TARGET_SCORE = 152  # R8.1
MAX_DEALS = 99  # R8.4
# One team's most in one hand (R7): a Sun kaboot, 44 (R7.6), with 100 of projects (16 cards as
# four A, 40, and three other fours, 20 each, R6.1), doubled once (V1, R7.7). Hokum tops out
# lower: (25 + 40 of projects + 2 baloot) x 4 = 268. A gahwa ends the match (R8.3).
MAX_HAND_SCORE = 288
MATCH_MODES = ("target", "hands")
HANDS_CHOICES = (5, 9, 11)  # R8.2
TIE_RULES = ("rounding", "last_digit")  # V5
FOUR_ACES_HOKUM = ("four_hundred", "hundred")  # V7
DEAL_ROTATIONS = ("left", "right")  # V9
# The switches that take one of a few values, with those values (the checks below and the JSON
# schema of ``baloot_env.schema`` read them here).
RULE_CHOICES: dict[str, tuple[Any, ...]] = {
    "match": MATCH_MODES,
    "hands": HANDS_CHOICES,
    "tie_rule": TIE_RULES,
    "four_aces_hokum": FOUR_ACES_HOKUM,
    "deal_rotation": DEAL_ROTATIONS,
}


@dataclass(frozen=True)
class RuleConfig:
    """Every variant switch of RULES.md; defaults are the normative rules.

    Attributes:
        sun_double: V1, Sun hands may be doubled once (level 2) by the defenders.
        projects: V2, projects and the baloot score (R6).
        doubling: V3, the doubling phase of R4.
        match: V4, "target" (play to 152, R8.1) or "hands" (a fixed number of hands, R8.2).
        hands: V4, number of scored hands in hands mode: 5, 9 or 11.
        tie_rule: V5, "rounding" (R7.3) or "last_digit".
        win_above: V6, in target mode a team must exceed 152, not reach it.
        four_aces_hokum: V7, "four_hundred" or "hundred" (four A in Hokum).
        baloot_kept: V8, the baloot's 2 points always go to its holder's team, never multiplied.
        deal_rotation: V9, "left" (dealer = (dealer + 3) % 4, R2.1) or "right" ((dealer + 1) % 4).
    """

    sun_double: bool = False
    projects: bool = True
    doubling: bool = True
    match: str = "target"
    hands: int = 5
    tie_rule: str = "rounding"
    win_above: bool = False
    four_aces_hokum: str = "four_hundred"
    baloot_kept: bool = False
    deal_rotation: str = "left"

    def __post_init__(self) -> None:
        for name in ("sun_double", "projects", "doubling", "win_above", "baloot_kept"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"RuleConfig.{name} must be True or False, got {quoted(getattr(self, name))}")
        for name, allowed in RULE_CHOICES.items():
            if name != "hands" and getattr(self, name) not in allowed:
                raise ConfigError(f"RuleConfig.{name} must be one of {allowed}, got {quoted(getattr(self, name))}")
        # A real int: 5.0 == 5 and True == 1, but neither is a number of hands (nor JSON's int).
        if not isinstance(self.hands, int) or isinstance(self.hands, bool) or self.hands not in HANDS_CHOICES:
            raise ConfigError(f"RuleConfig.hands must be one of {HANDS_CHOICES}, got {quoted(self.hands)}")

    def next_dealer(self, dealer: int) -> int:
        """The dealer after ``dealer`` (R2.1, V9)."""
        return next_seat(dealer, -1) if self.deal_rotation == "left" else next_seat(dealer)

    def changes(self) -> dict[str, Any]:
        """The switches that differ from the RULES.md defaults (``{}``: the rules as written)."""
        default = asdict(RuleConfig())
        return {k: v for k, v in asdict(self).items() if v != default[k]}

    def describe(self) -> str:
        """One line for messages: ``RULES.md`` or ``RULES.md with sun_double=True, ...``."""
        changes = self.changes()
        return "RULES.md" + (" with " + ", ".join(f"{k}={v}" for k, v in changes.items()) if changes else "")

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of every switch (for manifests, saved states and logs)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object) -> RuleConfig:
        """Build from a mapping (``config.from_mapping``); unknown keys or wrong types raise ``ConfigError``."""

        return from_mapping(cls, data, "RuleConfig key")


def match_score_problem(score: tuple[int, int], rules: RuleConfig) -> str | None:
    """Why ``score`` cannot be a match's score before a hand under ``rules`` (R8), or None.

    The bounds follow from when a match ends, so a hand-edited score is caught:

    - never negative (hands add non-negative scores, R7);
    - level scores: at most ``(MAX_DEALS - 1) * MAX_HAND_SCORE`` each, 98 hands before the last
      deal (R8.4), whatever the mode (level scores go on in both, R8.1, R8.2);
    - target mode, scores differing: no team has reached 152 (V6: passed 152), else the
      match would be over (R8.1);
    - hands mode, scores differing: fewer than ``rules.hands`` hands were scored (else the match
      would be over, R8.2), so each team has at most ``(hands - 1) * MAX_HAND_SCORE``.

    Args:
        score: two ints, team 0 then team 1 (the caller checks the types).
        rules: the match's rules (``match``, ``hands``, ``win_above``).
    """
    shown = f"[{', '.join(quoted(v) for v in score)}]"
    if min(score) < 0:
        return f"a match score is never negative (R7, R8), got {shown}"
    top = max(score)
    if score[0] == score[1]:
        limit = (MAX_DEALS - 1) * MAX_HAND_SCORE
        if top > limit:
            return f"{shown} is more than {MAX_DEALS - 1} deals can score ({limit} at most, R8.4)"
        return None
    if rules.match == "target":
        over = top > TARGET_SCORE if rules.win_above else top >= TARGET_SCORE
        if over:
            what = "passed" if rules.win_above else "reached"
            return f"{shown}: a team has {what} {TARGET_SCORE} with the scores differing, so the match is over (R8.1)"
        return None
    limit = (rules.hands - 1) * MAX_HAND_SCORE
    if top > limit:
        return (
            f"{shown}: differing scores in a {rules.hands}-hand match mean at most {rules.hands - 1} scored hands "
            f"(R8.2), so at most {limit} a team"
        )
    return None
