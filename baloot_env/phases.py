"""The phases of a hand (R3, R4, R5) and the name of a finished one.

A hand moves BIDDING -> (DOUBLING) -> PLAY -> DONE, or BIDDING -> DONE when thrown in (R3.5).
Each phase has its own module (``bidding``, ``doubling``, ``play``); ``hand.HandState`` holds the
state they share and sends each action to the module of the current phase.
"""

from __future__ import annotations

BIDDING, DOUBLING, PLAY, DONE = "bidding", "doubling", "play", "done"
PHASES = (BIDDING, DOUBLING, PLAY, DONE)
