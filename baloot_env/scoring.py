"""Scoring a hand (qaid, R7), usable on its own like a score-keeping app.

``score_hand`` takes what a score keeper writes down (contract, caller, level, raw points,
tricks, the scoring projects and who held the baloot) and returns the game points the hand adds
to each team. All arithmetic is in integers (R7). ``qaid`` writes a played hand's score out the
way a score keeper explains it (rounding, projects, baloot, who counted, why the callers made
or lost), from ``score_hand`` itself, for the pages that show it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from baloot_env.cards import HOKUM_RAW_TOTAL, HOKUM_TOTAL, NUM_TRICKS, SUN_RAW_TOTAL, SUN_TOTAL
from baloot_env.rules import TARGET_SCORE, RuleConfig
from baloot_env.seats import NUM_SEATS, other_team, team_of

if TYPE_CHECKING:
    from baloot_env.results import HandResult

HOKUM, SUN = "hokum", "sun"
CONTRACTS = (HOKUM, SUN)
KABOOT_VALUE = {HOKUM: 25, SUN: 44}  # R7.6
HAND_TOTAL = {HOKUM: HOKUM_TOTAL, SUN: SUN_TOTAL}  # R7.2: game points of a hand
RAW_TOTAL = {HOKUM: HOKUM_RAW_TOTAL, SUN: SUN_RAW_TOTAL}  # R1.4: card points of a hand, last trick included
ROUNDING_UNIT = {HOKUM: 10, SUN: 5}  # R7.3
PLAIN, DOUBLED, THREE_LEVEL, FOUR_LEVEL, GAHWA = 1, 2, 3, 4, 5  # R4.1: the levels
LEVELS = (PLAIN, DOUBLED, THREE_LEVEL, FOUR_LEVEL, GAHWA)
DEFENDERS_RAISES = (DOUBLED, FOUR_LEVEL)  # R4.2: the levels the defenders raise to
# V5 "last_digit": the counting team wins a tie when its raw points end in one of these digits.
LAST_DIGIT_WINS = {HOKUM: range(2, 6), SUN: range(2, 5)}
_DEFAULT_RULES = RuleConfig()


def convert_raw(raw: int, contract: str) -> int:
    """R7.2: game points of the counting team's raw points.

    Hokum: nearest ten, a five rounds down, divided by ten (55 -> 5, 56 -> 6, 65 -> 6, 66 -> 7).
    Sun: r / 5 when r ends in 5, else twice the Hokum figure (64 -> 12, 65 -> 13, 66 -> 14).
    """
    if contract == HOKUM:
        return (raw + 4) // 10
    if raw % 10 == 5:
        return raw // 5
    return 2 * ((raw + 4) // 10)


def counting_team(caller: int, level: int) -> int:
    """R7.1: the defenders, or in a doubled hand the opponents of whoever raised last.

    Double and four are the defenders' raises (the callers count), three and gahwa the
    callers' (the defenders count), so the level alone tells who raised last (R4.1).
    """
    callers = team_of(caller)
    return callers if level in DEFENDERS_RAISES else other_team(callers)


@dataclass(frozen=True)
class HandScore:
    """What ``score_hand`` returns.

    Attributes:
        score: game points the hand adds to [team 0, team 1].
        callers_won: whether the callers won the hand (R7.3, or by kaboot R7.6).
        winner: the team that won the hand.
        kaboot: whether one team took all 8 tricks.
        game_points: [t0, t1] after the R7.2 conversion (before projects and baloot).
        totals: [t0, t1] the R7.3 totals T (game points + scoring projects + baloot).
        gahwa_winner: the team that won a gahwa hand, else None.
        counting: the counting team (R7.1), whose raw points were converted (R7.2).
        projects: [t0, t1] the scoring projects counted (R6.4 applied: none for a team
            without a trick).
        decided_by: how the winner was found: "kaboot" (R7.6), "totals" (R7.3), or on equal
            totals "rounding" (the larger rounding loss), "callers" (equal losses too) or
            "last_digit" (V5).
        rule: the rule that gave the score: "R7.4" (each team its own total), "R7.5" (the
            defenders take the whole hand), "R7.6" (kaboot), "R7.7" (doubled), "R7.8" (gahwa).
    """

    score: tuple[int, int]
    callers_won: bool
    winner: int
    kaboot: bool
    game_points: tuple[int, int]
    totals: tuple[int, int]
    gahwa_winner: int | None
    counting: int
    projects: tuple[int, int]
    decided_by: str
    rule: str


def _tie_winner(
    contract: str, callers: int, counting: int, raw: Sequence[int], game_points: Sequence[int], rules: RuleConfig
) -> tuple[int, str]:
    """Winner when both totals are equal (R7.3, or V5 "last_digit"), and what decided it."""
    if rules.tie_rule == "last_digit":
        wins = raw[counting] % 10 in LAST_DIGIT_WINS[contract]
        return (counting if wins else other_team(counting)), "last_digit"
    u = ROUNDING_UNIT[contract]
    loss = [raw[t] - u * game_points[t] for t in (0, 1)]
    if loss[0] == loss[1]:
        return callers, "callers"
    return (0 if loss[0] > loss[1] else 1), "rounding"


def score_hand(
    contract: str,
    caller: int,
    level: int,
    raw: Sequence[int],
    tricks: Sequence[int],
    projects: Sequence[Sequence[int]] = ((), ()),
    baloot: Sequence[int] = (0, 0),
    rules: RuleConfig | None = None,
    match_score: Sequence[int] = (0, 0),
) -> HandScore:
    """Game points of one hand (R7).

    Args:
        contract: "hokum" or "sun".
        caller: the caller's seat (0-3).
        level: 1 plain, 2 double, 3 three, 4 four, 5 gahwa (R4.1).
        raw: [t0, t1] card points with the last-trick bonus (R1.4).
        tricks: [t0, t1] tricks taken (sum 8).
        projects: per team, the values of its projects that score under R6.3 (a team that took
            no trick scores none, R6.4, which is applied here too).
        baloot: per team, 2 if one of its players held the baloot (R6.5), else 0.
        rules: the variants (V5 tie rule, V8 baloot kept); default RULES.md.
        match_score: the match score before this hand; only a gahwa (R8.3) needs it.
    """
    rules = rules or _DEFAULT_RULES
    if contract not in CONTRACTS:
        raise ValueError(f"contract must be 'hokum' or 'sun', got {contract!r}")
    if caller not in range(NUM_SEATS):
        raise ValueError(f"caller must be a seat 0-3, got {caller!r}")
    if level not in LEVELS:
        raise ValueError(f"level must be 1-5, got {level!r}")
    if len(tricks) != 2 or sum(tricks) != NUM_TRICKS or min(tricks) < 0:
        raise ValueError(f"tricks must be [t0, t1] summing to {NUM_TRICKS}, got {list(tricks)}")
    total_raw = RAW_TOTAL[contract]
    if len(raw) != 2 or sum(raw) != total_raw or min(raw) < 0:
        raise ValueError(f"raw must be [t0, t1] summing to {total_raw} in {contract}, got {list(raw)}")
    callers = team_of(caller)
    defenders = other_team(callers)
    proj = [sum(projects[t]) if tricks[t] > 0 else 0 for t in (0, 1)]  # R6.4
    bal = [int(b) for b in baloot]
    all_projects = proj[0] + proj[1]
    total = HAND_TOTAL[contract]

    counting = counting_team(caller, level)
    g = [0, 0]
    g[counting] = convert_raw(raw[counting], contract)  # R7.2
    g[other_team(counting)] = total - g[counting]
    totals = [g[t] + proj[t] + bal[t] for t in (0, 1)]  # R7.3

    kaboot_team = 0 if tricks[0] == NUM_TRICKS else 1 if tricks[1] == NUM_TRICKS else None
    if kaboot_team is not None:  # R7.6
        winner, decided_by = kaboot_team, "kaboot"
    elif totals[callers] != totals[defenders]:
        winner, decided_by = (callers if totals[callers] > totals[defenders] else defenders), "totals"
    else:
        winner, decided_by = _tie_winner(contract, callers, counting, raw, g, rules)
    kept = rules.baloot_kept  # V8: baloot outside every multiplication, always to its holder
    own_bal = [0, 0] if kept else bal

    score = [0, 0]
    gahwa_winner = None
    if level == GAHWA:  # R7.8, R8.3
        gahwa_winner = winner
        score[winner] = max(0, TARGET_SCORE - match_score[winner])
        rule = "R7.8"
    elif kaboot_team is not None:  # R7.6, R7.7: kaboot is multiplied in a doubled hand
        score[winner] = (KABOOT_VALUE[contract] + all_projects + own_bal[winner]) * level
        rule = "R7.6"
    elif level > PLAIN:  # R7.7
        score[winner] = (total + all_projects + own_bal[winner]) * level
        rule = "R7.7"
    elif winner == callers:  # R7.4
        score = [g[t] + proj[t] + own_bal[t] for t in (0, 1)]
        rule = "R7.4"
    else:  # R7.5
        score[winner] = total + all_projects + own_bal[winner]
        rule = "R7.5"
    if kept:
        score = [score[t] + bal[t] for t in (0, 1)]
    return HandScore(
        score=(score[0], score[1]),
        callers_won=winner == callers,
        winner=winner,
        kaboot=kaboot_team is not None,
        game_points=(g[0], g[1]),
        totals=(totals[0], totals[1]),
        gahwa_winner=gahwa_winner,
        counting=counting,
        projects=(proj[0], proj[1]),
        decided_by=decided_by,
        rule=rule,
    )


def qaid(
    result: HandResult, rules: RuleConfig | None = None, match_score: Sequence[int] = (0, 0)
) -> dict[str, Any] | None:
    """A hand's score as a score-keeper writes it (R7), from ``score_hand`` itself: JSON-ready.

    Keys (lists are [team 0, team 1]): ``contract``, ``caller`` (seat), ``callers`` (team),
    ``level``, ``raw`` (card points, the last trick's 10 included, R1.4), ``counting`` (R7.1),
    ``game_points`` (R7.2's rounding), ``projects`` (the scoring ones, R6.3-R6.4), ``baloot``
    (R6.5), ``totals`` (R7.3), ``kaboot`` (the team that took every trick, or None),
    ``decided_by`` and ``rule`` (``HandScore``), ``callers_won``, ``score`` (the game points
    the hand adds), ``hand_total`` (16 or 26) and ``kaboot_value`` (25 or 44). None for a
    thrown-in hand (R3.5).

    Args:
        result: the hand's result (``HandState.result``, ``Outcome.hand_result``).
        rules: the variants it was played under (default RULES.md).
        match_score: the match score before the hand (a gahwa's score depends on it, R8.3).

    Raises:
        ValueError: the result's score is not what its own fields score under ``rules``.
    """
    if result.contract is None or result.caller is None:
        return None
    hs = score_hand(
        result.contract,
        result.caller,
        result.level,
        result.raw,
        result.tricks,
        result.projects,
        result.baloot,
        rules,
        match_score,
    )
    if hs.score != result.score:
        raise ValueError(f"the result's score {list(result.score)} is not what R7 gives its fields: {list(hs.score)}")
    return {
        "contract": result.contract,
        "caller": result.caller,
        "callers": team_of(result.caller),
        "level": result.level,
        "raw": list(result.raw),
        "counting": hs.counting,
        "game_points": list(hs.game_points),
        "projects": list(hs.projects),
        "baloot": list(result.baloot),
        "totals": list(hs.totals),
        "kaboot": hs.winner if hs.kaboot else None,
        "decided_by": hs.decided_by,
        "rule": hs.rule,
        "callers_won": hs.callers_won,
        "score": list(hs.score),
        "hand_total": HAND_TOTAL[result.contract],  # what "the whole hand" is worth (R7.2)
        "kaboot_value": KABOOT_VALUE[result.contract],  # R7.6
    }
