"""``random``: a uniform choice among the legal actions (R9), from a seeded generator."""

from __future__ import annotations

from agents.base import Agent, PlayerView
from baloot_env.cards import cards_of


class RandomAgent(Agent):
    """Plays uniformly at random among the legal actions of the view (bids, calls and cards)."""

    name = "random"
    deterministic = False

    def act(self, view: PlayerView) -> int:
        legal = cards_of(view.legal_mask)
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action in the {view.phase} phase")
        return legal[self.rng.randrange(len(legal))]
