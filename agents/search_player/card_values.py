"""One search of a card decision: every legal card's value in every world played.

The mean over the worlds is the search's value of a card; the spread over the worlds is how
sure it is. Every world plays every legal card, so the error of the difference between two
cards is taken on their paired values, world by world, and is much smaller than either card's
own error when the worlds move both alike.

With ``weights`` (``netsearch``'s belief-weighted worlds, ``beliefs``) the means are weighted,
and an error is the self-normalised one: sqrt(sum w^2 (x - mean)^2 / (1 - sum w^2)) with the
weights summing to 1, which is the plain standard error when every world weighs alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from agents.judgement import Values


@dataclass(frozen=True)
class CardValues:
    """The legal ``cards`` (``cards_of`` order), their ``sums`` over the worlds and playouts, and
    ``per_world`` (worlds x cards) each world's value (the mean over its ``playouts``);
    ``weights`` (one per world, None: alike) weigh the worlds."""

    cards: tuple[int, ...]
    sums: np.ndarray
    per_world: np.ndarray
    playouts: int
    weights: np.ndarray | None = None

    @property
    def worlds(self) -> int:
        return int(self.per_world.shape[0])

    def values(self) -> Values:
        """Every card's mean value (game points)."""
        if self.weights is not None:
            means = self._share() @ self.per_world
            return {c: float(means[i]) for i, c in enumerate(self.cards)}
        n = self.worlds * self.playouts
        return {c: float(self.sums[i]) / n for i, c in enumerate(self.cards)}

    def errors(self) -> np.ndarray:
        """Each card's standard error (game points; NaN with fewer than two worlds)."""
        if self.worlds < 2:
            return np.full(len(self.cards), np.nan)
        return self._error(self.per_world)

    def _share(self) -> np.ndarray:
        """The worlds' weights summing to 1."""
        assert self.weights is not None
        out: np.ndarray = self.weights / self.weights.sum()
        return out

    def _error(self, x: np.ndarray) -> np.ndarray:
        """The standard error of each column's (weighted) mean over the worlds (module docstring)."""
        if self.weights is None:
            out: np.ndarray = x.std(axis=0, ddof=1) / math.sqrt(self.worlds)
            return out
        w = self._share()
        spread = w**2 @ (x - w @ x) ** 2
        rest = 1.0 - float(w @ w)
        return np.sqrt(spread / rest) if rest > 0 else np.full(x.shape[1], np.nan)

    def gap_errors(self, card: int) -> Values:
        """The standard error of every card's value difference to ``card``'s, from the paired
        per-world differences (0 at ``card``; NaN with fewer than two worlds)."""
        i = self.cards.index(card)
        if self.worlds < 2:
            return {c: (0.0 if c == card else math.nan) for c in self.cards}
        se = self._error(self.per_world[:, i : i + 1] - self.per_world)
        return {c: float(se[j]) for j, c in enumerate(self.cards)}

    def settled(self, z: float) -> bool:
        """Whether the best card (of the highest mean) is ahead of every other card by more than
        ``z`` standard errors of their paired difference, or plays alike in every world (an
        equivalent card): more worlds would not change the choice (``SearchConfig.stop_z``)."""
        if self.worlds < 2:
            return False
        values = self.values()
        best = max(self.cards, key=lambda c: values[c])
        errors = self.gap_errors(best)
        i = self.cards.index(best)
        for j, c in enumerate(self.cards):
            if c == best or np.array_equal(self.per_world[:, i], self.per_world[:, j]):
                continue
            if not values[best] - values[c] > z * errors[c]:  # NaN errors: not settled
                return False
        return True
