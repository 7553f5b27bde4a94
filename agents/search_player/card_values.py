"""One search of a card decision: every legal card's value in every world played.

The mean over the worlds is the search's value of a card; the spread over the worlds is how
sure it is. Every world plays every legal card, so the error of the difference between two
cards is taken on their paired values, world by world, and is much smaller than either card's
own error when the worlds move both alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from agents.judgement import Values


@dataclass(frozen=True)
class CardValues:
    """The legal ``cards`` (``cards_of`` order), their ``sums`` over the worlds and playouts, and
    ``per_world`` (worlds x cards) each world's value (the mean over its ``playouts``)."""

    cards: tuple[int, ...]
    sums: np.ndarray
    per_world: np.ndarray
    playouts: int

    @property
    def worlds(self) -> int:
        return int(self.per_world.shape[0])

    def values(self) -> Values:
        """Every card's mean value (game points)."""
        n = self.worlds * self.playouts
        return {c: float(self.sums[i]) / n for i, c in enumerate(self.cards)}

    def errors(self) -> np.ndarray:
        """Each card's standard error (game points; NaN with fewer than two worlds)."""
        if self.worlds < 2:
            return np.full(len(self.cards), np.nan)
        out: np.ndarray = self.per_world.std(axis=0, ddof=1) / math.sqrt(self.worlds)
        return out

    def gap_errors(self, card: int) -> Values:
        """The standard error of every card's value difference to ``card``'s, from the paired
        per-world differences (0 at ``card``; NaN with fewer than two worlds)."""
        i = self.cards.index(card)
        if self.worlds < 2:
            return {c: (0.0 if c == card else math.nan) for c in self.cards}
        gaps = self.per_world[:, i : i + 1] - self.per_world
        se = gaps.std(axis=0, ddof=1) / math.sqrt(self.worlds)
        return {c: float(se[j]) for j, c in enumerate(self.cards)}
