"""``random``: a uniform choice among the legal actions (R9), from a seeded generator."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from agents.base import Agent
from baloot_env.cards import cards_of
from baloot_env.view import PlayerView

if TYPE_CHECKING:
    from baloot_env.lockstep_core import CoreRows


class RandomAgent(Agent):
    """Plays uniformly at random among the legal actions of the view (bids, calls and cards)."""

    name = "random"
    deterministic = False

    def act(self, view: PlayerView) -> int:
        legal = cards_of(view.legal_mask)
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action in the {view.phase} phase")
        return legal[self.rng.randrange(len(legal))]

    def core_actions(self, rows: CoreRows) -> list[int]:
        """``act`` on the batched core's games (``baloot_env.lockstep_core.CoreRows``): the same
        draw from the same legal actions, in ascending order, with the same generator."""
        out = []
        for m in rows.masks():
            legal = np.flatnonzero(m)
            out.append(int(legal[self.rng.randrange(len(legal))]))
        return out
