"""The leaderboard (page ``/leaderboard``, ``GET /api/leaderboard``): the ladder of agents and
the people who played them at this table, made honest by duplicate scoring.

- **Agents**: a league report (``python -m eval league --json FILE``: Elo, the matrix of mean d,
  time per decision, size), read and checked once when the server starts (``python -m table
  --league FILE``; default ``policies/league.json``, the shipped agents' ladder).
- **People**, from the database's live hands. Each hand a person played is scored the way the
  evaluation scores an agent: the same deal is played again (same rules, same match score, the
  table's bots in their seats) with ``REFERENCE`` in every person's seat, and the person's ``d``
  for the hand is their team's score difference at the table less that team's difference in
  the replay (game points; 0 when they did exactly what ``REFERENCE`` would have). Each hand is
  replayed once and its reference score kept in the database (``ladder_refs``), so the board
  follows the games as they end: a request scores the hands finished since the last one (at
  most ``MAX_NEW_HANDS`` at a time; the rest at the next request). Per person (by the name they
  typed, letter case aside): hands, mean d with its 95% interval, matches finished and won, and
  the bots they played against.

The replays' agents are the leaderboard's own (not the hub's playing ones), each re-seeded per
hand from the deal (``eval.duplicate.hand_seed``), so a hand's reference is the same on every
run and every machine.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from agents.base import Agent
from agents.registry import AgentSpecError, make_agent
from baloot_env.seats import NUM_SEATS, team_of
from baloot_env.view import PlayerView
from baloot_io.reading import parse_json, read_text_checked
from eval.duplicate import hand_seed
from eval.games import humans_of, start_of
from eval.stats import ci95, mean_sd
from table.store import Store

REFERENCE = "heuristic"  # who plays a person's seat in the replay their hand is scored against
DEFAULT_LEAGUE = Path(str(resources.files("agents") / "policies" / "league.json"))  # shipped beside the bundles
MAX_NEW_HANDS = 500  # hands replayed per request at most (a few ms each with the usual bots)
_LEAGUE_KEYS = ("agents", "labels", "deal_set", "deals", "mean", "ci95", "elo", "ranking", "timing", "size")


class LeaderboardError(ValueError):
    """A league report that cannot be shown (not a league report, or not a readable file)."""


def read_league(path: str | Path) -> dict[str, Any]:
    """The agents' part of the board from a league report; its fields are checked here, so a
    page never meets a half report.

    Raises:
        LeaderboardError: not a regular readable file, not JSON, or not ``eval.league``'s report.
    """
    try:
        rep = parse_json(read_text_checked(path, "the league report"), "the league report")
    except (OSError, ValueError) as e:
        raise LeaderboardError(f"the league report {str(path)!r}: {e}") from None
    missing = [k for k in _LEAGUE_KEYS if not isinstance(rep, dict) or k not in rep]
    if missing:
        raise LeaderboardError(f"{str(path)!r} is not a league report (python -m eval league --json): no {missing}")
    k = len(rep["agents"])
    shapes_ok = (
        k >= 2
        and all(isinstance(a, str) for a in rep["agents"])
        and len(rep["labels"]) == k
        and len(rep["elo"]) == k
        and len(rep["mean"]) == k
        and all(isinstance(row, list) and len(row) == k for row in rep["mean"])
        and all(isinstance(x, (int, float)) and math.isfinite(x) for row in rep["mean"] for x in row)
        and all(isinstance(x, (int, float)) and math.isfinite(x) for x in rep["elo"])
    )
    if not shapes_ok:
        raise LeaderboardError(f"{str(path)!r}: its agents, labels, ratings and matrix do not fit together")
    label = dict(zip(rep["agents"], rep["labels"], strict=True))
    elo = dict(zip(rep["agents"], rep["elo"], strict=True))
    timing, size = rep["timing"] or {}, rep["size"] or {}
    ranking = sorted(rep["agents"], key=lambda a: -elo[a])
    return {
        "deal_set": rep["deal_set"],
        "deals": rep["deals"],
        "labels": rep["labels"],
        "mean": rep["mean"],
        "ci95": rep["ci95"],
        "ranking": [
            {
                "agent": a,
                "label": label[a],
                "elo": round(elo[a], 1),
                "median_ms": None if not timing.get(a) else 1e3 * timing[a]["median_s"],
                "parameters": None if not size.get(a) else size[a]["parameters"],
            }
            for a in ranking
        ],
    }


def replay_with(hand: dict[str, Any], agent_of: Callable[[str], Agent], reference: str = REFERENCE) -> list[int]:
    """The score [team 0, team 1] of ``hand``'s deal played again with ``reference`` in every
    person's seat and the table's bots in theirs (same rules, match score and match context)."""
    state, context = start_of(hand)
    persons = humans_of(hand)
    specs = [reference if s in persons else hand["meta"]["seats"][s]["agent"] for s in range(NUM_SEATS)]
    agents = {spec: agent_of(spec) for spec in specs}
    for i, spec in enumerate(sorted(agents)):  # one seed per agent and deal: the same on every run
        agents[spec].reset(hand_seed(i, f"ladder:{hand['deal']}", 0, 0))
    while not state.done:
        seat = state.to_act
        state.apply(agents[specs[seat]].act(PlayerView.from_state(state, seat, context)))
    assert state.result is not None  # a done hand has its result
    return list(state.result.score)


class Leaderboard:
    """The board of one database: the league read at start, the people's figures on demand.

    Args:
        store: the table's database.
        league: the agents' ladder (``read_league``), or None to show none.
    """

    def __init__(self, store: Store, league: dict[str, Any] | None):
        self.store, self.league = store, league
        self.agents: dict[str, Agent] = {}
        self.lock = threading.Lock()  # one update at a time (they run off the event loop)

    def _agent(self, spec: str) -> Agent:
        if spec not in self.agents:
            self.agents[spec] = make_agent(spec, 0)
        return self.agents[spec]

    def update(self, limit: int = MAX_NEW_HANDS) -> bool:
        """Score up to ``limit`` live hands not yet scored; True when more are left."""
        with self.lock:
            todo = self.store.live_hands_unreferenced(limit + 1)
            for hand in todo[:limit]:
                ref: list[int] | None = None  # no person: nothing to score
                if humans_of(hand):
                    try:
                        ref = replay_with(hand, self._agent)
                    except (AgentSpecError, KeyError, TypeError, ValueError):
                        pass  # a bot no longer loadable, or a hand that does not replay: not scored
                self.store.add_ladder_ref(hand["id"], REFERENCE, ref)
            return len(todo) > limit

    def people(self) -> list[dict[str, Any]]:
        """Every person's figures, the best mean d first (people with one hand last)."""
        refs = self.store.ladder_refs()
        by: dict[str, dict[str, Any]] = {}
        for hand in self.store.hands(source="live", limit=10**7):
            names = (hand.get("meta") or {}).get("names") or []
            bots = sorted({s["agent"] for s in hand["meta"]["seats"] if s.get("kind") == "bot"})
            for seat in humans_of(hand):
                if seat >= len(names):
                    continue
                p = by.setdefault(_key(names[seat]), _person(names[seat]))
                p["name"] = names[seat]  # the latest spelling
                p["hands"] += 1
                for b in bots:
                    p["against"][b] = p["against"].get(b, 0) + 1
                match = hand["meta"].get("match_result")  # on a match's last hand
                if match is not None:
                    p["matches"] += 1
                    p["won"] += match["winner"] == team_of(seat)
                ref = refs.get(hand["id"])
                if ref is not None:
                    team = team_of(seat)
                    at_table, again = hand["result"]["score"], ref
                    p["d"].append((at_table[team] - at_table[1 - team]) - (again[team] - again[1 - team]))
        out = []
        for p in by.values():
            d = p.pop("d")
            p["scored"] = len(d)
            p["mean_d"] = mean_sd(d)[0] if d else None
            p["ci95"] = list(ci95(d)) if len(d) >= 2 else None
            out.append(p)
        return sorted(out, key=lambda p: (p["scored"] < 2, -(p["mean_d"] if p["mean_d"] is not None else -1e9)))

    def board(self) -> dict[str, Any]:
        """The whole board (what ``GET /api/leaderboard`` returns)."""
        more = self.update()
        return {"agents": self.league, "people": self.people(), "reference": REFERENCE, "more": more}


def _key(name: str) -> str:
    return name.strip().casefold()


def _person(name: str) -> dict[str, Any]:
    return {"name": name, "hands": 0, "d": [], "matches": 0, "won": 0, "against": {}}
