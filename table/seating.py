"""A table's settings and seating: who sits where (``SeatSpec``), the table's rules, tempo,
seed and bot speed (``RoomConfig``), where its deals come from (``SeededDeals``) and the
unguessable tokens that admit a person to a seat (only their hashes are kept). Standard library
and the engine only.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from dataclasses import dataclass
from typing import Any

from baloot_env.cards import NUM_SEATS
from baloot_env.deal import Deal, random_deal
from baloot_env.driver import DealSource
from baloot_env.rules import RuleConfig
from table.clocks import TEMPOS

MAX_NAME = 40


@dataclass(frozen=True)
class SeatSpec:
    """Who sits in a seat: a ``person`` (``agent`` stands in for them, R10.2, R10.3) or a
    ``bot`` (``agent`` plays it). ``agent`` is an ``agents.make_agent`` spec."""

    kind: str
    agent: str
    name: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "agent": self.agent, "name": self.name}


@dataclass(frozen=True)
class RoomConfig:
    """A table's settings.

    Attributes:
        seats: four ``SeatSpec``, seat 0 first (teams {0, 2} and {1, 3}, R1.1).
        rules: rule variants (V1-V9).
        tempo: "relaxed", "normal" or "fast" (R10.1).
        seed: the deals are drawn from it (deal n from ``random.Random(f"{seed}:{n}")``).
        bot_delay: seconds between the turn passing to a bot and its move (watch-mode speed).
        gather: seconds a finished trick stays on the table, its fourth card and its winner shown,
            before it is gathered and the next turn starts (the last trick of a hand: before the
            next deal); 0 gathers it at once.
        listed: the table is in the lobby's open tables: anyone may take an open seat there and
            watch what the whole table sees (no card of any hand while people play).
    """

    seats: tuple[SeatSpec, ...]
    rules: RuleConfig = RuleConfig()
    tempo: str = "normal"
    seed: int = 0
    bot_delay: float = 0.8
    gather: float = 1.5
    listed: bool = False

    def __post_init__(self) -> None:
        if len(self.seats) != NUM_SEATS or not all(isinstance(s, SeatSpec) for s in self.seats):
            raise ValueError(f"a room needs {NUM_SEATS} seats")
        for i, s in enumerate(self.seats):
            if s.kind not in ("person", "bot"):
                raise ValueError(f"seat {i}: kind must be 'person' or 'bot', got {s.kind!r}")
            if not isinstance(s.name, str) or not 0 < len(s.name) <= MAX_NAME:
                raise ValueError(f"seat {i}: a name is 1 to {MAX_NAME} characters")
        if self.tempo not in TEMPOS:
            raise ValueError(f"tempo must be one of {list(TEMPOS)}, got {self.tempo!r}")
        if not isinstance(self.bot_delay, (int, float)) or not 0 <= self.bot_delay <= 10:
            raise ValueError(f"bot_delay must be 0 to 10 seconds, got {self.bot_delay!r}")
        if not isinstance(self.gather, (int, float)) or not 0 <= self.gather <= 10:
            raise ValueError(f"gather must be 0 to 10 seconds, got {self.gather!r}")
        if not isinstance(self.listed, bool):
            raise ValueError(f"listed must be true or false, got {self.listed!r}")

    @property
    def persons(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.kind == "person"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "seats": [s.to_dict() for s in self.seats],
            "rules": self.rules.to_dict(),
            "tempo": self.tempo,
            "seed": self.seed,
            "bot_delay": self.bot_delay,
            "gather": self.gather,
            "listed": self.listed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoomConfig:
        return cls(
            seats=tuple(SeatSpec(**s) for s in data["seats"]),
            rules=RuleConfig.from_dict(data["rules"]),
            tempo=data["tempo"],
            seed=int(data["seed"]),
            bot_delay=float(data["bot_delay"]),
            gather=float(data.get("gather", 0.0)),  # a room saved without it gathered at once
            listed=bool(data.get("listed", False)),  # (saved before the lobby listed tables)
        )


class SeededDeals(DealSource):
    """Deal ``n`` of a room comes from ``random.Random(f"{seed}:{n}")``: the room's saved form
    needs only the seed and the count drawn to resume its deals (R10.4)."""

    def __init__(self, seed: int, drawn: int = 0):
        super().__init__(rng=None)
        self.seed, self.drawn = seed, drawn

    def next_deal(self, dealer: int | None) -> Deal | None:
        deal = random_deal(random.Random(f"{self.seed}:{self.drawn}"), dealer)
        self.drawn += 1
        return deal


def new_token() -> str:
    """An unguessable token (192 random bits)."""
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    """What the room keeps of a token: its SHA-256 (a copy of the database gives no seat away)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
