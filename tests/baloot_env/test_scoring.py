"""Scoring a hand (R7, V5, V8) via score_hand, every number worked out by hand in a comment.

Notation: caller seat c -> callers team c % 2; g = game points, T = totals (R7.3).
"""

from __future__ import annotations

import pytest
from helpers import deal_for, play

from baloot_env.actions import DOUBLE, PASS
from baloot_env.hand import HandState
from baloot_env.rules import RuleConfig
from baloot_env.scoring import convert_raw, score_hand

LAST_DIGIT = RuleConfig(tie_rule="last_digit")
KEPT = RuleConfig(baloot_kept=True)


@pytest.mark.parametrize(
    "raw, points",
    [(55, 5), (56, 6), (65, 6), (66, 7), (0, 0), (4, 0), (5, 0), (6, 1), (94, 9), (95, 9), (96, 10), (162, 16)],
)
def test_hokum_conversion_r7_2(raw, points):
    """R7.2 Hokum: nearest ten, a five rounds down, divided by ten."""
    assert convert_raw(raw, "hokum") == points


@pytest.mark.parametrize(
    "raw, points",
    [(64, 12), (65, 13), (66, 14), (0, 0), (5, 1), (6, 2), (44, 8), (45, 9), (46, 10), (130, 26)],
)
def test_sun_conversion_r7_2(raw, points):
    """R7.2 Sun: r / 5 when r ends in 5, else 2 * floor((r + 4) / 10)."""
    assert convert_raw(raw, "sun") == points


def test_plain_hokum_callers_win_r7_4():
    """Caller 0, raw 100-62. Defenders count: (62 + 4) // 10 = 6; callers 16 - 6 = 10.
    T 10 > 6: callers win, each team scores its own T: (10, 6)."""
    hs = score_hand("hokum", 0, 1, [100, 62], [5, 3])
    assert hs.game_points == (10, 6) and hs.callers_won and hs.score == (10, 6)
    assert not hs.kaboot and hs.gahwa_winner is None


@pytest.mark.parametrize("level, points", [(1, (9, 7)), (2, (10, 6)), (3, (9, 7)), (4, (10, 6))])
def test_who_counts_decides_the_rounding_r7_1(level, points):
    """R7.1: raw 96 (callers, seat 0) - 66. Defenders count at levels 1 and 3: 66 -> 7, callers 9.
    Callers count after double/four (2, 4): 96 -> 10, defenders 6."""
    assert score_hand("hokum", 0, level, [96, 66], [5, 3]).game_points == points


def test_plain_hokum_callers_win_score_uses_defenders_count_r7_1_r7_4():
    """Raw 96-66, caller 0, level 1: (9, 7), not (10, 6)."""
    assert score_hand("hokum", 0, 1, [96, 66], [5, 3]).score == (9, 7)


def test_failed_hokum_r7_5():
    """Caller 0, raw 70-92: defenders 96 // 10 = 9, callers 7; 7 < 9: callers lose.
    R7.5: callers 0, defenders the whole hand: 16."""
    hs = score_hand("hokum", 0, 1, [70, 92], [3, 5])
    assert not hs.callers_won and hs.winner == 1 and hs.score == (0, 16)


def test_failed_hokum_defenders_take_callers_projects_r7_5_r7_3():
    """Same raw, callers hold a scoring sira (2): T = 9 - 9, a tie. Rounding losses (R7.3):
    callers 70 - 10 * 7 = 0, defenders 92 - 10 * 9 = 2: the defenders lost more and win.
    R7.5 (Choices): they take 16 + every scoring project (the callers' 2) = 18."""
    hs = score_hand("hokum", 0, 1, [70, 92], [3, 5], projects=([2], []))
    assert hs.totals == (9, 9)
    assert not hs.callers_won and hs.score == (0, 18)


def test_tie_equal_losses_go_to_the_callers_r7_3():
    """Raw 81-81: g 8-8; losses 1 and 1: equal, so the callers win; R7.4: (8, 8)."""
    hs = score_hand("hokum", 0, 1, [81, 81], [4, 4])
    assert hs.callers_won and hs.score == (8, 8)


def test_tie_won_by_callers_on_rounding_r7_3():
    """Raw 76-86, callers' sira 2: defenders 90 // 10 = 9, callers 7; T 9 - 9.
    Losses: callers 76 - 70 = 6, defenders 86 - 90 = -4: callers lost more, they win: (9, 9)."""
    hs = score_hand("hokum", 0, 1, [76, 86], [4, 4], projects=([2], []))
    assert hs.callers_won and hs.score == (9, 9)


def test_tie_lost_by_callers_on_rounding_r7_3():
    """Raw 97-65, defenders hold the sira (2) and the baloot (2): defenders 69 // 10 = 6 -> T 10;
    callers 10 -> T 10. Losses: callers 97 - 100 = -3, defenders 65 - 60 = 5: defenders win.
    R7.5: 16 + 2 + their baloot 2 = 20."""
    hs = score_hand("hokum", 0, 1, [97, 65], [5, 3], projects=([], [2]), baloot=(0, 2))
    assert hs.totals == (10, 10)
    assert not hs.callers_won and hs.score == (0, 20)
    # V5: counting team (defenders) raw ends in 5: Hokum counting team wins on 2-5: the same.
    assert score_hand("hokum", 0, 1, [97, 65], [5, 3], ([], [2]), (0, 2), LAST_DIGIT).score == (0, 20)


def test_sun_tie_rounding_versus_last_digit_r7_3_v5():
    """Sun, caller 0, raw 89-41, defenders' fifty (10). Defenders count: 41 -> 2 * 4 = 8; callers 18.
    T 18 - 18. R7.3: losses callers 89 - 5 * 18 = -1, defenders 41 - 5 * 8 = 1: defenders win,
    R7.5: 26 + 10 = 36. V5: the counting team's digit is 1: the other team (callers) wins,
    R7.4: (18, 18)."""
    hs = score_hand("sun", 0, 1, [89, 41], [6, 2], projects=([], [10]))
    assert hs.game_points == (18, 8) and hs.totals == (18, 18)
    assert hs.score == (0, 36)
    hs = score_hand("sun", 0, 1, [89, 41], [6, 2], projects=([], [10]), rules=LAST_DIGIT)
    assert hs.callers_won and hs.score == (18, 18)


def test_doubled_tie_rounding_versus_last_digit_r7_3_v5():
    """Doubled Hokum (the callers count), raw 81-81: g 8-8, losses 1-1 -> callers (R7.3): 16 x 2.
    V5: counting (callers) digit 1 -> the other team: the defenders score 32."""
    assert score_hand("hokum", 0, 2, [81, 81], [4, 4]).score == (32, 0)
    assert score_hand("hokum", 0, 2, [81, 81], [4, 4], rules=LAST_DIGIT).score == (0, 32)


def test_sun_last_digit_five_goes_to_the_other_team_v5():
    """V5 in Sun: a 5 goes to the other team. Sun doubled (V1), callers count: 65 -> 13, 13-13.
    R7.3 losses 0-0 -> callers: 26 x 2 = 52. V5: callers' digit 5 -> defenders: 52."""
    assert score_hand("sun", 0, 2, [65, 65], [4, 4]).score == (52, 0)
    assert score_hand("sun", 0, 2, [65, 65], [4, 4], rules=LAST_DIGIT).score == (0, 52)


def test_plain_sun_r7_4_and_failed_sun_r7_5():
    """Caller 1, raw 55-75: defenders (team 0) 55 ends in 5 -> 11; callers 15: (11, 15).
    Raw 75-55: defenders 15, callers 11: callers lose: defenders take 26."""
    assert score_hand("sun", 1, 1, [55, 75], [3, 5]).score == (11, 15)
    assert score_hand("sun", 1, 1, [75, 55], [5, 3]).score == (26, 0)


def test_kaboot_by_callers_r7_6():
    """Hokum caller 0 takes all 8: 25 + its projects 5 + its baloot 2 = 32."""
    hs = score_hand("hokum", 0, 1, [162, 0], [8, 0], projects=([5], []), baloot=(2, 0))
    assert hs.kaboot and hs.callers_won and hs.score == (32, 0)


def test_kaboot_by_defenders_r7_6():
    """Kaboot decides the hand whoever called: defenders 25; the callers' baloot is lost."""
    hs = score_hand("hokum", 0, 1, [0, 162], [0, 8], baloot=(2, 0))
    assert hs.kaboot and not hs.callers_won and hs.score == (0, 25)
    assert score_hand("hokum", 0, 1, [0, 162], [0, 8], baloot=(2, 0), rules=KEPT).score == (2, 25)  # V8


def test_sun_kaboot_r7_6():
    """Sun caller 1 takes all 8 with a scoring hundred (20): 44 + 20 = 64."""
    assert score_hand("sun", 1, 1, [0, 130], [0, 8], projects=([], [20])).score == (0, 64)


def test_kaboot_losers_projects_do_not_score_r6_4():
    """R6.4: the team without a trick scores no project: callers' kaboot is 25, nothing else."""
    assert score_hand("hokum", 0, 1, [162, 0], [8, 0], projects=([], [10])).score == (25, 0)


@pytest.mark.parametrize("level, score", [(2, 46), (3, 69), (4, 92)])
def test_doubled_hand_won_by_callers_r7_7(level, score):
    """Caller 1, raw 70-92, callers' fifty (5) and baloot (2). Level 2/4 the callers count:
    92 -> 9, defenders 7; level 3 the defenders count: 70 -> 7, callers 9. Either way T 16 - 7:
    the callers win (16 + 5 + 2) x level = 23 x level."""
    hs = score_hand("hokum", 1, level, [70, 92], [3, 5], projects=([], [5]), baloot=(0, 2))
    assert hs.callers_won and hs.score == (0, score)


def test_doubled_hand_won_by_defenders_r7_7():
    """Caller 0, level 2 (callers count): 60 -> 6 + baloot 2 = 8 < 10: defenders win 16 x 2 = 32;
    the callers' baloot is lost (V8 keeps it: +2 to the callers)."""
    assert score_hand("hokum", 0, 2, [60, 102], [3, 5], baloot=(2, 0)).score == (0, 32)
    assert score_hand("hokum", 0, 2, [60, 102], [3, 5], baloot=(2, 0), rules=KEPT).score == (2, 32)


def test_doubled_kaboot_is_multiplied_r7_7():
    """Choices: kaboot is multiplied: (25 + 0) x 2 = 50; (25 + 5 + 2) x 4 = 128."""
    assert score_hand("hokum", 0, 2, [162, 0], [8, 0]).score == (50, 0)
    assert score_hand("hokum", 0, 4, [162, 0], [8, 0], projects=([5], []), baloot=(2, 0)).score == (128, 0)


def test_baloot_kept_is_never_multiplied_v8():
    """V8: doubled hand of test above at level 2: (16 + 5) x 2 + 2 = 44 instead of 46."""
    hs = score_hand("hokum", 1, 2, [70, 92], [3, 5], projects=([], [5]), baloot=(0, 2), rules=KEPT)
    assert hs.score == (0, 44)


def test_baloot_kept_in_a_lost_hand_v8_r6_5():
    """Caller 0, raw 70-92, callers' baloot: T 7 + 2 = 9 vs 9; losses 0 vs 2 -> defenders win.
    R6.5: the callers lose their baloot: (0, 16); V8 keeps it: (2, 16)."""
    assert score_hand("hokum", 0, 1, [70, 92], [3, 5], baloot=(2, 0)).score == (0, 16)
    assert score_hand("hokum", 0, 1, [70, 92], [3, 5], baloot=(2, 0), rules=KEPT).score == (2, 16)


def test_gahwa_won_by_callers_r7_8_r8_3():
    """Level 5 (the callers raised last, defenders count): 62 -> 6, callers 10: callers win.
    Match score 120-140: the winner gets what brings it to 152: 32; the loser 0."""
    hs = score_hand("hokum", 0, 5, [100, 62], [5, 3], match_score=(120, 140))
    assert hs.gahwa_winner == 0 and hs.score == (32, 0)


def test_gahwa_won_by_defenders_r7_8_r8_3():
    """Raw 60-102: defenders 106 // 10 = 10 > 6: defenders win; 152 - 140 = 12."""
    hs = score_hand("hokum", 0, 5, [60, 102], [3, 5], match_score=(120, 140))
    assert hs.gahwa_winner == 1 and not hs.callers_won and hs.score == (0, 12)


def test_gahwa_winner_already_past_152_r8_3():
    hs = score_hand("hokum", 0, 5, [100, 62], [5, 3], match_score=(160, 160))
    assert hs.gahwa_winner == 0 and hs.score == (0, 0)


def test_gahwa_with_baloot_kept_v8():
    """V8: added to that hand's score, also in a gahwa hand: the defenders' baloot gives them 2."""
    hs = score_hand("hokum", 0, 5, [100, 62], [5, 3], baloot=(0, 2), rules=KEPT, match_score=(120, 140))
    assert hs.gahwa_winner == 0 and hs.score == (32, 2)


@pytest.mark.parametrize(
    "args",
    [
        ("spades", 0, 1, [100, 62], [5, 3]),
        ("hokum", 4, 1, [100, 62], [5, 3]),
        ("hokum", 0, 6, [100, 62], [5, 3]),
        ("hokum", 0, 1, [100, 61], [5, 3]),
        ("sun", 0, 1, [100, 62], [5, 3]),
        ("hokum", 0, 1, [100, 62], [5, 4]),
    ],
)
def test_score_hand_refuses_bad_input(args):
    with pytest.raises(ValueError):
        score_hand(*args)


# A real kaboot, played by the engine. Dealer 3, seat 0 calls hokum in spades (turned TS) and
# draws the trumps with J 9 A T, then cashes AH TH AD AC: all 8 tricks.
KABOOT_DEAL = deal_for(
    3,
    0,
    [
        "JS 9S AS TS AH AD AC TH",  # four A (four hundred / V7 hundred) + sira 9S-JS
        "KS QS 8S 7S KH QH JH 9H",  # baloot (KS QS) + sira JH-KH
        "8H 7H KD QD KC QC JC TC",  # fifty TC-KC
        "7D 8D 9D TD JD 9C 8C 7C",  # hundred 7D-JD (a run) + sira 7C-9C
    ],
    "TS",
)
KABOOT_PLAY = "JS 7S 7H 7C 9S 8S 8H 8C AS QS TC 9C TS KS JC 7D AH 9H QC 8D TH JH KC 9D AD QH QD TD AC KH KD JD"


def play_kaboot(rules: RuleConfig, double: bool = False):
    s = HandState(KABOOT_DEAL, rules)
    s.apply(33)  # seat 0: hokum in spades
    for _ in range(3):
        s.apply(PASS)
    if rules.doubling:
        for a in (DOUBLE, PASS, PASS) if double else (PASS, PASS):  # seat 1 doubles; seats 2, 0 pass
            s.apply(a)
    play(s, KABOOT_PLAY)
    assert s.done
    return s.result


def test_real_kaboot_with_the_best_project_r7_6():
    """Team 0 takes all 8 (raw 162). Best project: seat 0's four A, a four hundred (R6.3), so
    team 0 scores all its projects: 10 + sira 2 + seat 2's fifty 5 = 17. Kaboot: 25 + 17 = 42;
    seat 1's baloot is lost with everything else (R6.5)."""
    r = play_kaboot(RuleConfig())
    assert r.raw == (162, 0) and r.tricks == (8, 0) and r.kaboot and r.callers_won
    assert sorted(r.projects[0]) == [2, 5, 10] and r.projects[1] == ()
    assert r.baloot == (0, 2)
    assert r.score == (42, 0)


def test_real_kaboot_best_project_held_by_the_team_without_a_trick_r6_4_v7():
    """V7 "hundred": four A are a hundred ranked as four of a kind, so seat 3's run 7D-JD is the
    best project; team 1 took no trick: it scores none, and team 0, not holding the best, none
    either (R6.4). Kaboot 25. With V8 the baloot stays with team 1: (25, 2)."""
    r = play_kaboot(RuleConfig(four_aces_hokum="hundred"))
    assert r.projects == ((), ()) and r.score == (25, 0)
    r = play_kaboot(RuleConfig(four_aces_hokum="hundred", baloot_kept=True))
    assert r.score == (25, 2)


def test_real_doubled_kaboot_r7_7():
    """Doubled by seat 1: (25 + 17) x 2 = 84 (kaboot multiplied, Choices)."""
    r = play_kaboot(RuleConfig(), double=True)
    assert r.level == 2 and r.score == (84, 0)
