"""A score sheet, as a score-keeping app keeps one: enter each hand's summary, get its score.

Each row is what a score keeper writes down after a hand: the contract, the calling team, the
doubling level, the raw card points, the scoring projects, the baloot and a kaboot (or a deal
thrown in). Its score comes from ``baloot_env.score_hand`` (R7) and the running totals, the
end of the match (R8: to 152, or a fixed number of hands) and who deals next (R2.1, V9) from
``baloot_env.match.MatchState``, the engine's own match keeping, so the sheet and the engine
cannot disagree. The variants come from ``RuleConfig`` (V1-V9).

Rows can be added, edited and deleted; every later row is recomputed (a gahwa's score depends
on the score before it, R8.3). Every change is logged, and ``undo`` walks the log back. Sheets
live in the server's database (``table.store``).

An entry (JSON)::

    {"contract": "hokum" | "sun" | null (thrown in, R3.5), "caller": 0 | 1 (the calling team),
     "level": 1-5 (R4.1), "raw": [team 0, team 1] (summing to 162 or 130, R1.4),
     "projects": [[values of team 0], [values of team 1]] (the scoring ones, R6.3; each a
                  value in game points or a kind by name, "sira", "fifty", "hundred",
                  "four_hundred", which the contract values, R6.1),
     "baloot": [0 or 2, 0 or 2] (R6.5), "kaboot": null | 0 | 1 (the team that took every trick)}
"""

from __future__ import annotations

import secrets
from typing import Any

from baloot_env.cards import HOKUM_RAW_TOTAL, NUM_SEATS, SUN_RAW_TOTAL
from baloot_env.errors import ConfigError
from baloot_env.match import MatchState
from baloot_env.projects import BALOOT_POINTS, PROJECT_VALUES
from baloot_env.results import HandResult
from baloot_env.rules import RuleConfig
from baloot_env.scoring import HOKUM, SUN, qaid, score_hand
from table.store import Store

ENTRY_KEYS = ("contract", "caller", "level", "raw", "projects", "baloot", "kaboot")
RAW_TOTAL = {HOKUM: HOKUM_RAW_TOTAL, SUN: SUN_RAW_TOTAL}
MAX_ROWS = 200


class SheetError(ValueError):
    """A sheet or an entry the score sheet cannot take; the message says what is wrong."""


def _team(value: object, what: str) -> int:
    if isinstance(value, bool) or value not in (0, 1):
        raise SheetError(f"{what} must be a team, 0 or 1, got {value!r}")
    return int(value)


def _ints(value: object, what: str, n: int = 2) -> list[int]:
    if not (isinstance(value, list) and len(value) == n and all(type(x) is int and x >= 0 for x in value)):
        raise SheetError(f"{what} must be a list of {n} non-negative ints [team 0, team 1], got {value!r}")
    return list(value)


def check_entry(entry: object, rules: RuleConfig) -> dict[str, Any]:
    """The entry checked and completed (missing optional fields filled in).

    Raises:
        SheetError: a field that is missing, of the wrong type, or impossible under the rules.
    """
    if not isinstance(entry, dict):
        raise SheetError("an entry is an object with " + ", ".join(ENTRY_KEYS))
    unknown = sorted(set(entry) - set(ENTRY_KEYS), key=str)
    if unknown:
        raise SheetError(f"unknown entry fields {unknown}; known: {list(ENTRY_KEYS)}")
    contract = entry.get("contract")
    if contract is None:
        return {
            "contract": None,
            "caller": None,
            "level": 1,
            "raw": [0, 0],
            "projects": [[], []],
            "baloot": [0, 0],
            "kaboot": None,
        }
    if contract not in (HOKUM, SUN):
        raise SheetError(f"contract must be 'hokum', 'sun' or null (thrown in), got {contract!r}")
    caller = _team(entry.get("caller"), "caller")
    level = entry.get("level", 1)
    top = 5 if contract == HOKUM and rules.doubling else (2 if rules.doubling and rules.sun_double else 1)
    if isinstance(level, bool) or level not in range(1, top + 1):
        raise SheetError(f"level must be 1 to {top} in {contract} under these rules (R4.1, R4.3, V1), got {level!r}")
    kaboot = entry.get("kaboot")
    if kaboot is not None:
        kaboot = _team(kaboot, "kaboot")
    return {
        "contract": contract,
        "caller": caller,
        "level": level,
        "raw": _raw(entry.get("raw"), contract, kaboot),
        "projects": _projects(entry.get("projects", [[], []]), contract, rules),
        "baloot": _baloot(entry.get("baloot", [0, 0]), contract, rules),
        "kaboot": kaboot,
    }


def _raw(raw: object, contract: str, kaboot: int | None) -> list[int]:
    """The raw card points of the two teams (R1.4); a kaboot's filled in when left out (R7.6)."""
    total = RAW_TOTAL[contract]
    if kaboot is not None and raw is None:
        raw = [total, 0] if kaboot == 0 else [0, total]
    points = _ints(raw, "raw")
    if sum(points) != total:
        raise SheetError(f"raw points must add up to {total} in {contract} (R1.4), got {points}")
    if kaboot is not None and points[1 - kaboot] != 0:
        raise SheetError(f"in a kaboot by team {kaboot} the other team has no raw points, got {points}")
    return points


def _projects(projects: object, contract: str, rules: RuleConfig) -> list[list[int]]:
    """The scoring projects' game points by team (R6.1, R6.3); a kind given by name is valued by
    the contract."""
    column = 0 if contract == HOKUM else 1  # PROJECT_VALUES' hokum and sun values
    allowed = sorted({v[column] for v in PROJECT_VALUES.values()})
    if not (isinstance(projects, list) and len(projects) == 2 and all(isinstance(p, list) for p in projects)):
        raise SheetError(f"projects must be [[team 0's values], [team 1's values]], got {projects!r}")
    values = [
        [PROJECT_VALUES[v][column] if isinstance(v, str) and v in PROJECT_VALUES else v for v in p] for p in projects
    ]
    for t, team in enumerate(values):
        bad = [v for v in team if isinstance(v, bool) or v not in allowed]
        if bad:
            raise SheetError(f"team {t}'s projects {bad}: a {contract} project is worth one of {allowed} (R6.1)")
    if values[0] and values[1]:
        raise SheetError("only the team with the best project scores projects (R6.3): give one team's values")
    if (values[0] or values[1]) and not rules.projects:
        raise SheetError("projects are switched off under these rules (V2, R6.6)")
    return values


def _baloot(baloot: object, contract: str, rules: RuleConfig) -> list[int]:
    """The baloot's 2 points by team (R6.5, R6.6)."""
    points = _ints(baloot, "baloot")
    if any(b not in (0, BALOOT_POINTS) for b in points) or sum(points) > BALOOT_POINTS:
        raise SheetError(f"baloot is [0, 0], [2, 0] or [0, 2] (one player holds it, R6.5), got {points}")
    if sum(points) and (contract != HOKUM or not rules.projects):
        raise SheetError("a baloot exists only in hokum, with projects on (R6.5, R6.6)")
    return points


def hand_result(entry: dict[str, Any], dealer: int, rules: RuleConfig, match_score: tuple[int, int]) -> HandResult:
    """The hand's result from a checked entry (R7 through ``score_hand``)."""
    if entry["contract"] is None:
        return HandResult.thrown_in(dealer)  # R3.5
    kaboot = entry["kaboot"]
    tricks = (4, 4) if kaboot is None else ((8, 0) if kaboot == 0 else (0, 8))  # without a kaboot both took some
    hs = score_hand(
        entry["contract"],
        entry["caller"],
        entry["level"],
        entry["raw"],
        tricks,
        entry["projects"],
        entry["baloot"],
        rules,
        match_score,
    )
    return HandResult(
        contract=entry["contract"],
        trump=None,
        caller=entry["caller"],
        level=entry["level"],
        raw=tuple(entry["raw"]),
        tricks=tricks,
        projects=(tuple(entry["projects"][0]), tuple(entry["projects"][1])),
        baloot=tuple(entry["baloot"]),
        kaboot=hs.kaboot,
        callers_won=hs.callers_won,
        score=hs.score,
        gahwa_winner=hs.gahwa_winner,
        dealer=dealer,
    )


class _Played:
    """A finished hand as ``MatchState.end_hand`` reads it (only its ``result``)."""

    def __init__(self, result: HandResult):
        self.result = result


def compute(config: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Scores, running totals, the match's end and the next dealer of a sheet's rows, in order.

    Rows after the match ended (an edit can end it earlier) are marked ``after_end`` and score
    nothing.
    """
    rules = RuleConfig.from_dict(config["rules"])
    match = MatchState(rules)
    dealer = config["first_dealer"]
    out = []
    for row in rows:
        if match.result is not None:
            out.append({**row, "after_end": True, "score": None, "totals": None, "dealer": None})
            continue
        entry = check_entry(row["entry"], rules)
        before = (match.score[0], match.score[1])
        res = hand_result(entry, dealer, rules, before)
        match.hand = _Played(res)  # type: ignore[assignment]
        match.end_hand()  # R8: totals, hands counted, the match's end
        out.append(
            {
                **row,
                "after_end": False,
                "score": list(res.score),
                "totals": list(match.score),
                "callers_won": res.callers_won,
                "kaboot": res.kaboot,
                "qaid": qaid(res, rules, before),
                "dealer": dealer,
            }
        )
        dealer = match.next_dealer()  # R2.1, V9
    return {
        "rows": out,
        "totals": list(match.score),
        "result": match.result.to_info() if match.result else None,
        "next_dealer": None if match.result else dealer,
        "hands_scored": match.hands_scored,
        "deals_played": match.deals_played,
    }


class ScoreSheets:
    """Score sheets kept in a ``Store``: create, read (computed), add, edit, delete, undo."""

    def __init__(self, store: Store):
        self.store = store

    def create(self, rules: dict[str, Any] | None = None, first_dealer: int = 0, teams: list[str] | None = None) -> str:
        """A new sheet; returns its id (unguessable: the sheet's link).

        Raises:
            SheetError: unknown variants, a dealer that is not a seat, or bad team names.
        """
        try:
            rules_dict = RuleConfig.from_dict(rules or {}).to_dict()
        except (ConfigError, TypeError) as e:
            raise SheetError(f"rules: {e}") from None
        if isinstance(first_dealer, bool) or first_dealer not in range(NUM_SEATS):
            raise SheetError(f"first_dealer must be a seat 0-3, got {first_dealer!r}")
        teams = teams or ["Us", "Them"]
        if not (
            isinstance(teams, list) and len(teams) == 2 and all(isinstance(t, str) and 0 < len(t) <= 40 for t in teams)
        ):
            raise SheetError(f"teams must be two names of 1 to 40 characters, got {teams!r}")
        sheet_id = secrets.token_urlsafe(12)
        self.store.add_sheet(sheet_id, {"rules": rules_dict, "first_dealer": first_dealer, "teams": teams})
        return sheet_id

    def _config(self, sheet_id: str) -> dict[str, Any]:
        config = self.store.sheet_config(sheet_id) if isinstance(sheet_id, str) else None
        if config is None:
            raise KeyError(f"no score sheet {sheet_id!r}")
        return config

    def get(self, sheet_id: str) -> dict[str, Any]:
        """The sheet with every row scored (``compute``). Raises KeyError for an unknown sheet."""
        config = self._config(sheet_id)
        return {
            "id": sheet_id,
            **config,
            **compute(config, self.store.sheet_rows(sheet_id)),
            "project_values": PROJECT_VALUES,  # kind -> [hokum, sun] game points (R6.1), for the page's form
        }

    def _check(self, sheet_id: str, entry: object) -> dict[str, Any]:
        config = self._config(sheet_id)
        return check_entry(entry, RuleConfig.from_dict(config["rules"]))

    def _row(self, sheet_id: str, row_id: object) -> int:
        if isinstance(row_id, bool) or not isinstance(row_id, int):
            raise SheetError(f"a row id is an int, got {row_id!r}")
        row = self.store.sheet_row(sheet_id, row_id)
        if row is None or row["deleted"]:
            raise KeyError(f"no row {row_id} on score sheet {sheet_id!r}")
        return row_id

    def add(self, sheet_id: str, entry: object) -> int:
        """Append a hand; returns the row id. Raises SheetError (a bad entry, or the match is over)."""
        checked = self._check(sheet_id, entry)
        if len(self.store.sheet_rows(sheet_id)) >= MAX_ROWS:
            raise SheetError(f"a sheet holds at most {MAX_ROWS} rows")
        if self.get(sheet_id)["result"] is not None:
            raise SheetError("the match on this sheet is over (R8): edit a row or start a new sheet")
        return self.store.add_row(sheet_id, checked)

    def edit(self, sheet_id: str, row_id: int, entry: object) -> None:
        """Replace a row's entry; every later row is recomputed."""
        checked = self._check(sheet_id, entry)
        self.store.edit_row(sheet_id, self._row(sheet_id, row_id), checked)

    def delete(self, sheet_id: str, row_id: int) -> None:
        """Delete a row; every later row is recomputed."""
        self._config(sheet_id)
        self.store.delete_row(sheet_id, self._row(sheet_id, row_id))

    def undo(self, sheet_id: str) -> str | None:
        """Undo the last add, edit or delete; returns which it was, or None when none is left."""
        self._config(sheet_id)
        return self.store.undo(sheet_id)
