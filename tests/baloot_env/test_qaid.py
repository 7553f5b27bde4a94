"""``qaid``: a hand's score written out as a score keeper explains it, checked on hands worked
by hand from R7 (the figures below are RULES.md's arithmetic, not the code's)."""

from __future__ import annotations

import dataclasses

import pytest

from baloot_env.results import HandResult
from baloot_env.rules import RuleConfig
from baloot_env.scoring import qaid


def result(contract, caller, level, raw, tricks, score, projects=((), ()), baloot=(0, 0), callers_won=True):
    return HandResult(
        contract, 0, caller, level, raw, tricks, projects, baloot, 8 in tricks, callers_won, score, None, 3
    )


def test_a_plain_hokum_made_each_team_scores_its_own_total():
    # callers team 0 take 100 of 162; the defenders count (R7.1): 62 -> 6 (R7.2), the callers the rest 10
    q = qaid(result("hokum", 0, 1, (100, 62), (5, 3), (10, 6)))
    assert q["counting"] == 1 and q["game_points"] == [10, 6] and q["totals"] == [10, 6]
    assert (q["decided_by"], q["rule"], q["callers_won"], q["score"]) == ("totals", "R7.4", True, [10, 6])


def test_a_plain_hokum_lost_gives_the_defenders_the_whole_hand():
    # callers team 0 with 60: the defenders' 102 -> 10, callers 6 < 10: the defenders take 16 (R7.5)
    q = qaid(result("hokum", 2, 1, (60, 102), (3, 5), (0, 16), callers_won=False))
    assert q["callers"] == 0 and q["game_points"] == [6, 10]
    assert (q["rule"], q["callers_won"], q["score"]) == ("R7.5", False, [0, 16])


def test_equal_totals_go_to_the_team_that_gave_up_more_in_the_rounding():
    # 85 / 77: the defenders' 77 -> 8, callers 8; rounding losses 85-80 = 5 and 77-80 = -3 (R7.3)
    q = qaid(result("hokum", 0, 1, (85, 77), (4, 4), (8, 8)))
    assert q["totals"] == [8, 8] and (q["decided_by"], q["callers_won"]) == ("rounding", True)
    # 81 / 81: 8 each, losses 1 and 1: the callers
    assert qaid(result("hokum", 1, 1, (81, 81), (4, 4), (8, 8)))["decided_by"] == "callers"
    # V5 "last_digit": the counting team's 77 ends in a 7, so the other team (the callers) wins
    last = qaid(result("hokum", 0, 1, (85, 77), (4, 4), (8, 8)), RuleConfig(tie_rule="last_digit"))
    assert (last["decided_by"], last["callers_won"]) == ("last_digit", True)
    # 78 / 84: the defenders' 84 -> 8, the callers 8; a 4 gives the tie to the counting team (V5)
    q = qaid(result("hokum", 0, 1, (78, 84), (4, 4), (0, 16), callers_won=False), RuleConfig(tie_rule="last_digit"))
    assert (q["totals"], q["decided_by"], q["callers_won"], q["rule"]) == ([8, 8], "last_digit", False, "R7.5")


def test_a_doubled_hand_is_counted_by_the_callers_and_multiplied():
    # double is the defenders' raise, so the callers count (R7.1): 100 -> 10, the defenders 6 + a sira of 20
    q = qaid(result("hokum", 0, 2, (100, 62), (5, 3), (0, 72), projects=((), (20,)), callers_won=False))
    assert q["counting"] == 0 and q["projects"] == [0, 20] and q["totals"] == [10, 26]
    assert (q["rule"], q["score"]) == ("R7.7", [0, 72])  # (16 + 20) x 2


def test_a_kaboot_in_sun_scores_44_and_the_projects():
    q = qaid(result("sun", 1, 1, (0, 130), (0, 8), (0, 64), projects=((), (20,))))
    assert (q["kaboot"], q["decided_by"], q["rule"], q["score"]) == (1, "kaboot", "R7.6", [0, 64])


def test_a_result_whose_score_its_fields_do_not_give_is_refused_and_a_thrown_in_hand_has_none():
    good = result("hokum", 0, 1, (100, 62), (5, 3), (10, 6))
    with pytest.raises(ValueError, match="not what R7 gives"):
        qaid(dataclasses.replace(good, score=(11, 5)))
    assert qaid(HandResult.thrown_in(2)) is None
