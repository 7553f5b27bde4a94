"""Projects and the baloot (R6): decomposition, values and the comparison between teams."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from baloot_env.cards import ACE, JACK, KING, NUM_RANKS, NUM_SUITS, QUEEN, TEN, card_name, mask_of
from baloot_env.seats import NUM_SEATS, next_seat, team_of, team_seats

SIRA, FIFTY, HUNDRED, FOUR_HUNDRED = "sira", "fifty", "hundred", "four_hundred"
# R6.1 values in game points: (Hokum, Sun).
PROJECT_VALUES = {SIRA: (2, 4), FIFTY: (5, 10), HUNDRED: (10, 20), FOUR_HUNDRED: (10, 40)}
# R6.3 category order (higher value first; four hundred above a hundred in both contracts).
_CATEGORY = {SIRA: 1, FIFTY: 2, HUNDRED: 3, FOUR_HUNDRED: 4}
QUAD_RANKS = (TEN, JACK, QUEEN, KING, ACE)  # T J Q K A; four 7s, 8s, 9s score nothing (R6.1)
BALOOT_POINTS = 2  # R6.5
MIN_RUN = 3  # R6.1: a run is three cards or more in a row of one suit


@dataclass(frozen=True, order=True)
class Project:
    """One declared project (R6.1).

    Attributes:
        kind: "sira", "fifty", "hundred" or "four_hundred".
        is_run: True for a run, False for four of a kind.
        top: rank (0-7, run order R1.5) of the run's top card or of the four of a kind.
        cards: the card ids it uses, ascending.
    """

    kind: str
    is_run: bool
    top: int
    cards: tuple[int, ...]

    def value(self, hokum: bool) -> int:
        """Game points in the contract (R6.1)."""
        return PROJECT_VALUES[self.kind][0 if hokum else 1]

    def key(self) -> tuple[int, int, int]:
        """R6.3 comparison key: category, then run over four of a kind, then top card."""
        return (_CATEGORY[self.kind], int(self.is_run), self.top)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "cards": [card_name(c) for c in self.cards]}


def _byte_runs(b: int) -> tuple[tuple[int, int], ...]:
    """Maximal runs of length >= 3 in an 8-bit rank pattern: (start rank, length)."""
    runs: list[tuple[int, int]] = []
    r = 0
    while r < NUM_RANKS:
        if b >> r & 1:
            start = r
            while r < NUM_RANKS and b >> r & 1:
                r += 1
            if r - start >= MIN_RUN:
                runs.append((start, r - start))
        else:
            r += 1
    return tuple(runs)


_RUNS = tuple(_byte_runs(b) for b in range(256))


def _run_kind(length: int) -> str:
    """R6.1: three in a row are a sira, four a fifty, five or more a hundred."""
    return SIRA if length == MIN_RUN else FIFTY if length == MIN_RUN + 1 else HUNDRED


def _make_run(suit: int, start: int, length: int) -> Project:
    cards = tuple(8 * suit + r for r in range(start, start + length))
    return Project(_run_kind(length), True, start + length - 1, cards)


# Every run project a suit byte holds, built once: declaring projects is then a table lookup.
_SUIT_RUNS = tuple(tuple(tuple(_make_run(s, a, n) for a, n in _RUNS[b]) for b in range(256)) for s in range(NUM_SUITS))


def _runs_in(mask: int) -> list[Project]:
    """The maximal runs of 3 or more in ``mask`` (R6.1, run order R1.5)."""
    return [
        *_SUIT_RUNS[0][mask & 0xFF],
        *_SUIT_RUNS[1][(mask >> 8) & 0xFF],
        *_SUIT_RUNS[2][(mask >> 16) & 0xFF],
        *_SUIT_RUNS[3][(mask >> 24) & 0xFF],
    ]


_QUAD_MASKS = tuple((r, sum(1 << (8 * s + r) for s in range(NUM_SUITS))) for r in QUAD_RANKS)


def declare_projects(hand_mask: int, hokum: bool, four_aces_hokum: str = "four_hundred") -> list[Project]:
    """The projects a player declares from the 8-card hand (R6.1).

    Every choice of four-of-a-kinds is tried; the cards left form maximal runs. The
    decomposition with the highest total value in the contract wins, then the one whose best
    project is stronger (R6.3).
    """
    quads: list[Project] = []
    for r, qmask in _QUAD_MASKS:
        if hand_mask & qmask == qmask:
            cards = tuple(8 * s + r for s in range(NUM_SUITS))
            if r == ACE and (not hokum or four_aces_hokum == "four_hundred"):
                kind = FOUR_HUNDRED
            else:
                kind = HUNDRED  # V7 "hundred": four A are an ordinary hundred in Hokum
            quads.append(Project(kind, False, r, cards))
    if not quads:
        return _runs_in(hand_mask)
    best: list[Project] = []
    best_score: tuple[int, tuple[int, int, int]] = (-1, (0, 0, 0))
    for pick in range(1 << len(quads)):
        chosen = [q for i, q in enumerate(quads) if pick >> i & 1]
        rest = hand_mask & ~mask_of(c for q in chosen for c in q.cards)
        projects = chosen + _runs_in(rest)
        total = sum(p.value(hokum) for p in projects)
        score = (total, max((p.key() for p in projects), default=(0, 0, 0)))
        if score > best_score:
            best_score, best = score, projects
    return best


def has_baloot(hand_mask: int, trump: int) -> bool:
    """K and Q of trump in one 8-card hand (R6.5)."""
    return bool(hand_mask >> (8 * trump + KING) & 1 and hand_mask >> (8 * trump + QUEEN) & 1)


def project_winner(projects: list[list[Project]], dealer: int) -> int | None:
    """The team holding the single best project (R6.3), or None when nobody declared one.

    Exactly equal best projects go to the seat first in play order from the dealer's right.
    """
    best_key = None
    best_team = None
    for i in range(NUM_SEATS):
        seat = next_seat(dealer, 1 + i)
        for p in projects[seat]:
            k = p.key()
            if best_key is None or k > best_key:  # strict: the earlier seat keeps a tie
                best_key, best_team = k, team_of(seat)
    return best_team


def scoring_projects(projects: list[list[Project]], dealer: int, tricks: list[int], hokum: bool) -> list[list[int]]:
    """Per team, the values of its own projects that score (R6.3, R6.4)."""
    out: list[list[int]] = [[], []]
    team = project_winner(projects, dealer)
    if team is None or tricks[team] == 0:  # R6.4
        return out
    for seat in team_seats(team):
        out[team].extend(p.value(hokum) for p in projects[seat])
    return out
