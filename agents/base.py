"""The agent interface: how an agent answers a seat's ``PlayerView`` (``baloot_env.view``).

Evaluation, self-play and play against humans all drive agents through this one interface.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Sequence
from typing import Any

from baloot_env.view import PlayerView

__all__ = ["Agent"]


class Agent(abc.ABC):
    """A player: given a ``PlayerView`` at its turn, return a legal action id (R9).

    Randomness comes only from ``reset(seed)``: the same seed gives the same actions.
    Agents may be asked to act for any seat; they keep no state between calls that the view
    does not hold, except their random generator.

    Attributes:
        name: a short label used in reports.
        deterministic: True when the actions do not depend on the seed.
    """

    name: str = "agent"
    deterministic: bool = False

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def reset(self, seed: int) -> None:
        """Re-seed; called by the evaluator before every hand."""
        self.rng = random.Random(seed)

    @abc.abstractmethod
    def act(self, view: PlayerView) -> int:
        """A legal action for ``view.seat`` (``view.legal_mask`` bit set)."""

    def act_batch(self, views: Sequence[PlayerView]) -> list[int]:
        """Actions for several views at once; agents that can batch (networks) override it."""
        return [self.act(v) for v in views]

    def describe(self) -> dict[str, Any]:
        """JSON-ready description for reports."""
        return {"agent": self.name}
