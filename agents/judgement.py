"""A teacher's judgement of one decision: what it plays and what every option is worth.

The search agents judge a card decision by sampled worlds (``agents.search_player``); labelling
turns their judgements into targets (``train.labels``), and the teacher's noise is measured on
them (``train.teacher_noise``).
"""

from __future__ import annotations

from dataclasses import dataclass

Values = dict[int, float]  # action id -> game points (the hand's score, own team minus the other, R7)


@dataclass(frozen=True)
class Judgement:
    """One decision as a teacher judges it.

    Attributes:
        action: the action it plays.
        values: for a searched choice, every legal action's value (mean game points of the hand,
            own team minus the other, R7); None elsewhere (forced, or not searched).
        errors: where the values are means over sampled worlds, the standard error of each legal
            action's value difference to ``action``'s (0 at ``action``; game points, from the
            spread over the worlds, which play every action); None elsewhere.
    """

    action: int
    values: Values | None = None
    errors: Values | None = None
