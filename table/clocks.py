"""The club's clocks and auto-play at a live table (RULES.md R10), with an injectable clock.

``ClubClock`` is R10 for one table as a small state machine over plain numbers: the turn clock
(R10.1), timeouts and the autopilot they lead to (R10.2), connection holds, the bot that plays
an absent seat and leaving for good (R10.3), and its saved form (R10.4). It never reads the time
itself: every method takes ``now`` from a clock (``SystemClock``, or ``FakeClock`` in tests),
so a test moves time by hand and a restarted server resumes every clock from the saved form.

Seat statuses (``ClubClock.status``):

=============  ==============================================================  ============
status         meaning                                                          who plays
=============  ==============================================================  ============
``bot``        an agent's seat                                                  the agent
``human``      a person plays; the turn clock runs                              the person
``autopilot``  three timeouts in a row (R10.2): until the person acts again     the stand-in
``hold``       the connection dropped: the seat is kept (60 s, 10 s if closed)  the person
``away``       the hold ran out (R10.3): until the person returns               the stand-in
``left``       the person left on purpose (R10.3): for the rest of the match    the stand-in
=============  ==============================================================  ============

Standard library only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from baloot_env.cards import NUM_SEATS


@dataclass(frozen=True)
class Tempo:
    """Time allowed for one turn (R10.1), in seconds: a card, and a call (bids and doubling)."""

    name: str
    card: float
    call: float

    def limit(self, kind: str) -> float:
        """Seconds for a turn of ``kind`` ("card" or "call")."""
        return self.card if kind == CARD else self.call

    def to_dict(self) -> dict[str, str | float]:
        """The tempo as the pages are sent it (its name, a card's and a call's seconds)."""
        return {"name": self.name, "card": self.card, "call": self.call}


CARD, CALL = "card", "call"
TEMPOS = {
    "relaxed": Tempo("relaxed", 60.0, 75.0),  # R10.1
    "normal": Tempo("normal", 30.0, 40.0),
    "fast": Tempo("fast", 15.0, 25.0),
}
TIMEOUTS_FOR_AUTOPILOT = 3  # R10.2: three timed-out turns in a row
HOLD_SECONDS = 60.0  # R10.3: a dropped connection keeps the seat this long
HOLD_CLOSED_SECONDS = 10.0  # R10.3: when the player is known to have closed the game

BOT, HUMAN, AUTOPILOT, HOLD, AWAY, LEFT = "bot", "human", "autopilot", "hold", "away", "left"
STATUSES = (BOT, HUMAN, AUTOPILOT, HOLD, AWAY, LEFT)
PERSON_PLAYS = (HUMAN, HOLD)  # the turn clock runs for these; the others are played by a bot
CLOCK_FORMAT = "baloot-club-clock-1"


class Clock(Protocol):
    """A source of time in seconds. ``poll`` is the longest real wait between looks at it
    (a fake clock moves by hand, so its watchers look often). ``now`` runs the clocks; ``wall``
    is a time that processes share (the server's heartbeat and its saves, R10.4)."""

    poll: float

    def now(self) -> float: ...

    def wall(self) -> float: ...


class SystemClock:
    """Monotonic real time (not the wall clock, which may jump)."""

    poll = 3600.0  # a real clock is waited on exactly: deadlines are seconds away

    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()


class FakeClock:
    """Time that moves only when told to (tests of R10)."""

    poll = 0.01

    def __init__(self, start: float = 1000.0):
        self.t = float(start)

    def now(self) -> float:
        return self.t

    def wall(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"a clock does not go back ({seconds} s)")
        self.t += seconds


class ClubClock:
    """R10 for one table (module docstring). Seats whose ``humans`` flag is False are ``bot``.

    Args:
        tempo: one of ``TEMPOS`` (R10.1).
        humans: per seat, whether a person plays it.
    """

    def __init__(self, tempo: Tempo, humans: list[bool]):
        if len(humans) != NUM_SEATS:
            raise ValueError(f"humans must name {NUM_SEATS} seats, got {len(humans)}")
        self.tempo = tempo
        self.status = [HUMAN if h else BOT for h in humans]
        self.timeouts = [0] * NUM_SEATS  # timed-out turns in a row (R10.2)
        self.hold_until: list[float | None] = [None] * NUM_SEATS
        self.turn_seat = -1  # the seat whose turn clock runs, -1 when none does
        self.turn_kind = CARD
        self.deadline: float | None = None

    # ------------------------------------------------------------------ turns (R10.1, R10.2)
    def start_turn(self, seat: int, kind: str, now: float) -> None:
        """The turn passes to ``seat`` (-1: nobody); its clock starts with the tempo's time."""
        self.turn_seat, self.turn_kind = seat, kind
        self.deadline = now + self.tempo.limit(kind) if seat >= 0 else None

    def remaining(self, now: float) -> float | None:
        """Seconds left on the running turn clock (None when no turn runs)."""
        return None if self.deadline is None else max(0.0, self.deadline - now)

    def person_plays(self, seat: int) -> bool:
        """Whether the seat waits for its person (the clock runs) rather than a bot."""
        return self.status[seat] in PERSON_PLAYS

    def timed_out(self, now: float) -> bool:
        """The running turn clock of a person's seat has run out (R10.2)."""
        return (
            self.deadline is not None
            and self.turn_seat >= 0
            and self.person_plays(self.turn_seat)
            and now >= self.deadline
        )

    def record_timeout(self, seat: int) -> bool:
        """A move was made for ``seat`` on timeout (R10.2); True when this put it on autopilot."""
        self.timeouts[seat] += 1
        if self.timeouts[seat] >= TIMEOUTS_FOR_AUTOPILOT and self.status[seat] == HUMAN:
            self.status[seat] = AUTOPILOT
            return True
        return False

    def record_person_move(self, seat: int) -> None:
        """The person played (R10.2: acting ends the autopilot and the run of timeouts)."""
        self.timeouts[seat] = 0
        if self.status[seat] in (AUTOPILOT, AWAY, HOLD):
            self.status[seat] = HUMAN
            self.hold_until[seat] = None

    def take_over(self, seat: int) -> None:
        """The person chose "take over" (R10.2)."""
        self.record_person_move(seat)

    # ------------------------------------------------------------------ connections (R10.3)
    def disconnected(self, seat: int, now: float, closed: bool = False) -> None:
        """The seat's last connection dropped: hold the seat (60 s, or 10 s when closed)."""
        if self.status[seat] in (HUMAN, HOLD):
            self.status[seat] = HOLD
            self.hold_until[seat] = now + (HOLD_CLOSED_SECONDS if closed else HOLD_SECONDS)

    def connected(self, seat: int) -> None:
        """The person is back: the hold ends, and a bot that stood in gives the seat back."""
        if self.status[seat] in (HOLD, AWAY):
            self.status[seat] = HUMAN
            self.hold_until[seat] = None

    def expire_holds(self, now: float) -> list[int]:
        """Seats whose hold ran out become ``away`` (a bot plays them, R10.3); returns them."""
        gone = []
        for seat in range(NUM_SEATS):
            until = self.hold_until[seat]
            if self.status[seat] == HOLD and until is not None and now >= until:
                self.status[seat] = AWAY
                self.hold_until[seat] = None
                gone.append(seat)
        return gone

    def leave(self, seat: int) -> None:
        """The person left on purpose: a bot plays the seat for the rest of the match (R10.3)."""
        self.status[seat] = LEFT
        self.hold_until[seat] = None

    def next_deadline(self) -> float | None:
        """The earliest moment something happens by itself: a turn runs out or a hold ends."""
        times = [t for s, t in enumerate(self.hold_until) if t is not None and self.status[s] == HOLD]
        if self.deadline is not None and self.turn_seat >= 0 and self.person_plays(self.turn_seat):
            times.append(self.deadline)
        return min(times) if times else None

    # ------------------------------------------------------------------ saving (R10.4)
    def to_data(self, now: float) -> dict[str, Any]:
        """Plain data; running clocks are saved as the seconds they have left, so a restarted
        table resumes each one where it stood (R10.4)."""
        return {
            "format": CLOCK_FORMAT,
            "tempo": self.tempo.name,
            "status": self.status[:],
            "timeouts": self.timeouts[:],
            "hold_left": [None if t is None else max(0.0, t - now) for t in self.hold_until],
            "turn_seat": self.turn_seat,
            "turn_kind": self.turn_kind,
            "turn_left": self.remaining(now),
        }

    @classmethod
    def from_data(cls, data: dict[str, Any], now: float) -> ClubClock:
        """Restore ``to_data``; ``now`` is the restarted clock's time.

        Raises:
            ValueError: malformed data (naming the field).
        """
        if not isinstance(data, dict) or data.get("format") != CLOCK_FORMAT:
            raise ValueError(f"saved club clock must be a dict of format {CLOCK_FORMAT!r}")
        if data.get("tempo") not in TEMPOS:
            raise ValueError(f"saved club clock tempo must be one of {list(TEMPOS)}, got {data.get('tempo')!r}")
        status = data.get("status")
        if not (isinstance(status, list) and len(status) == NUM_SEATS and all(s in STATUSES for s in status)):
            raise ValueError(f"saved club clock status must be 4 of {STATUSES}, got {status!r}")
        clock = cls(TEMPOS[data["tempo"]], [s != BOT for s in status])
        clock.status = list(status)
        clock.timeouts = [int(x) for x in data["timeouts"]]
        clock.hold_until = [None if x is None else now + float(x) for x in data["hold_left"]]
        clock.turn_seat = int(data["turn_seat"])
        if data["turn_kind"] not in (CARD, CALL):
            raise ValueError(f"saved club clock turn_kind must be card or call, got {data['turn_kind']!r}")
        clock.turn_kind = data["turn_kind"]
        left = data["turn_left"]
        clock.deadline = None if left is None else now + float(left)
        return clock
