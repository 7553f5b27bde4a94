"""A match (R8): hands in sequence, the deal moving on, and the ways a match ends.

Also what a seat knows of the match around its hand (``MatchContext``: the mode, the score, the
deals played, the hands left), which the observation encodes and ``PlayerView`` carries, and
the match's saved form as plain data (``MatchState.to_data`` / ``from_data``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from baloot_env.deal import Deal
from baloot_env.hand import HandState
from baloot_env.results import HandResult
from baloot_env.rules import MATCH_MODES, MAX_DEALS, TARGET_SCORE, RuleConfig

HAND_EPISODE = "hand"  # a MatchContext's mode when the hand is played on its own
CONTEXT_MODES = (HAND_EPISODE, *MATCH_MODES)


@dataclass(frozen=True)
class MatchResult:
    """R11.5 ``match_result``: ``winner`` 0, 1 or None for a draw; final ``score``."""

    winner: int | None
    score: tuple[int, int]
    reason: str  # "target", "hands", "gahwa" or "cap"

    def to_info(self) -> dict[str, Any]:
        return {"winner": self.winner, "score": list(self.score), "reason": self.reason}


@dataclass(frozen=True)
class MatchContext:
    """What every seat knows of the match around a hand (public, R8; the observation's
    ``match_mode``, ``match_score``, ``deals_played`` and ``hands_left`` pieces).

    Attributes:
        mode: "hand" (a single-hand episode), "target" (R8.1) or "hands" (R8.2).
        score: the match score, absolute teams 0 and 1 (before the current hand while it runs).
        deals_played: deals finished in this match, thrown-in ones included (R8.4).
        hands_left: in hands mode, scored hands still to play (R8.2); 0 otherwise.
    """

    mode: str = HAND_EPISODE
    score: tuple[int, int] = (0, 0)
    deals_played: int = 0
    hands_left: int = 0


SINGLE_HAND = MatchContext()  # the context of a hand played on its own


def match_context(match: MatchState | None) -> MatchContext:
    """The ``MatchContext`` of a live match (None: a single-hand episode)."""
    if match is None:
        return SINGLE_HAND
    rules = match.rules
    left = max(rules.hands - match.hands_scored, 0) if rules.match == "hands" else 0
    return MatchContext(rules.match, (match.score[0], match.score[1]), match.deals_played, left)


class MatchState:
    """Score keeping across hands (R8). Deals are supplied by the caller, one per hand.

    Usage: ``hand = match.start_hand(deal)``, play it, then ``match.end_hand()``; repeat until
    ``match.result`` is set.
    """

    def __init__(self, rules: RuleConfig | None = None):
        if rules is not None and not isinstance(rules, RuleConfig):
            raise TypeError(
                f"rules must be a RuleConfig or None, got {type(rules).__name__} (RuleConfig.from_dict reads a dict)"
            )
        self.rules = rules or RuleConfig()
        self.score = [0, 0]
        self.deals_played = 0  # thrown-in deals count (R8.4)
        self.hands_scored = 0  # thrown-in deals don't count (R8.2)
        self.hand: HandState | None = None
        self.results: list[HandResult] = []
        self.result: MatchResult | None = None

    def clone(self) -> MatchState:
        new = MatchState.__new__(MatchState)
        new.rules = self.rules
        new.score = self.score[:]
        new.deals_played = self.deals_played
        new.hands_scored = self.hands_scored
        new.hand = self.hand.clone() if self.hand is not None else None
        new.results = self.results[:]
        new.result = self.result
        return new

    def next_dealer(self) -> int | None:
        """The dealer of the next deal (R2.1, V9), or None before the first."""
        if not self.results:
            return None
        return self.rules.next_dealer(self.results[-1].dealer)

    def start_hand(self, deal: Deal) -> HandState:
        """Begin the next deal; the match score goes in for a gahwa (R8.3)."""
        if self.result is not None:
            raise ValueError("the match is over; no more hands")
        self.hand = HandState(deal, self.rules, (self.score[0], self.score[1]))
        return self.hand

    def end_hand(self) -> HandResult:
        """Record the finished hand and decide whether the match is over (R8.1-R8.4)."""
        hand = self.hand
        if hand is None or hand.result is None:
            raise ValueError("the current hand is not finished")
        res = hand.result
        self.results.append(res)
        self.deals_played += 1
        self.score[0] += res.score[0]
        self.score[1] += res.score[1]
        self.hand = None
        score = (self.score[0], self.score[1])
        if not res.thrown:
            self.hands_scored += 1
        if res.gahwa_winner is not None:  # R8.3
            self.result = MatchResult(res.gahwa_winner, score, "gahwa")
        elif not res.thrown and self.rules.match == "target":  # R8.1, V6
            top = max(score)
            reached = top > TARGET_SCORE if self.rules.win_above else top >= TARGET_SCORE
            if reached and score[0] != score[1]:
                self.result = MatchResult(0 if score[0] > score[1] else 1, score, "target")
        elif not res.thrown and self.hands_scored >= self.rules.hands and score[0] != score[1]:  # R8.2
            self.result = MatchResult(0 if score[0] > score[1] else 1, score, "hands")
        if self.result is None and self.deals_played >= MAX_DEALS:  # R8.4
            winner = None if score[0] == score[1] else (0 if score[0] > score[1] else 1)
            self.result = MatchResult(winner, score, "cap")
        return res

    # ------------------------------------------------------------------ saving
    def to_data(self) -> dict[str, Any]:
        """The match as plain data (JSON and ``torch.load(weights_only=True)`` safe). Its current
        hand is not included (save it with ``HandState.to_json``); ``in_hand`` says there is one."""
        return {
            "score": list(self.score),
            "deals_played": self.deals_played,
            "hands_scored": self.hands_scored,
            "results": [r.to_info() for r in self.results],
            "result": self.result.to_info() if self.result else None,
            "in_hand": self.hand is not None,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any], rules: RuleConfig, hand: HandState | None) -> MatchState:
        """Restore ``to_data()``; ``hand`` is the match's current hand, saved beside it.

        Raises:
            ValueError (or KeyError, TypeError): malformed data.
        """
        m = cls(rules)
        m.score = [int(x) for x in data["score"]]
        m.deals_played, m.hands_scored = int(data["deals_played"]), int(data["hands_scored"])
        m.results = [_result_from_info(r) for r in data["results"]]
        r = data["result"]
        m.result = MatchResult(r["winner"], (r["score"][0], r["score"][1]), r["reason"]) if r is not None else None
        if data["in_hand"]:
            if hand is None:
                raise ValueError("a saved match is in a hand, but none was given")
            m.hand = hand
        return m


def _tuples(x: Any) -> Any:
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


def _result_from_info(info: dict[str, Any]) -> HandResult:
    """``HandResult.to_info()`` back to the result (its lists as the tuples they were)."""
    res = HandResult(**{f.name: _tuples(info[f.name]) for f in fields(HandResult)})
    if res.to_info() != info:
        raise ValueError(f"a saved hand result does not read back: {info}")
    return res
