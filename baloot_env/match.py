"""A match (R8): hands in sequence, the deal moving on, and the ways a match ends."""

from __future__ import annotations

from dataclasses import dataclass

from baloot_env.deal import Deal
from baloot_env.hand import HandState
from baloot_env.results import HandResult
from baloot_env.rules import MAX_DEALS, TARGET_SCORE, RuleConfig


@dataclass(frozen=True)
class MatchResult:
    """R11.5 ``match_result``: ``winner`` 0, 1 or None for a draw; final ``score``."""

    winner: int | None
    score: tuple[int, int]
    reason: str  # "target", "hands", "gahwa" or "cap"

    def to_info(self) -> dict:
        return {"winner": self.winner, "score": list(self.score), "reason": self.reason}


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
