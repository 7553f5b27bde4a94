"""Seats and teams (R1.1): four seats in play order, two partnerships.

Seats are numbered 0-3 in play order (counter-clockwise, R1.1); seats 0 and 2 are team 0,
seats 1 and 3 team 1. Every piece of seat arithmetic in the project goes through these names,
so that no two-player shortcut (``1 - player``) can creep into a four-seat game.
"""

from __future__ import annotations

NUM_SEATS = 4  # R1.1
NUM_TEAMS = 2  # R1.1: seats 0 and 2 against seats 1 and 3
NO_SEAT = -1  # no seat: nobody to act in a finished hand, no caller before the contract, ...


def team_of(seat: int) -> int:
    """The team of ``seat``: 0 for seats 0 and 2, 1 for seats 1 and 3 (R1.1)."""
    return seat & 1


def other_team(team: int) -> int:
    """The opposing team of ``team`` (R1.1)."""
    return team ^ 1


def partner_of(seat: int) -> int:
    """The partner of ``seat``, sitting opposite (R1.1)."""
    return (seat + 2) & 3


def next_seat(seat: int, steps: int = 1) -> int:
    """The seat ``steps`` places after ``seat`` in play order (R1.1, R5.1)."""
    return (seat + steps) & 3


def relative_seat(seat: int, observer: int) -> int:
    """``seat`` as the observer sees it: 0 me, 1 next, 2 partner, 3 previous."""
    return (seat - observer) & 3


def team_seats(team: int) -> tuple[int, int]:
    """The two seats of ``team`` (R1.1)."""
    return (team, team + 2)
