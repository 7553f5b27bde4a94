"""Playing the tricks (R5): every duty, the trick winner, and a whole hand worked by hand.

All hands below are the 8 cards after R2.3; dealer 3, so seat 0 calls first and leads (R3.1,
R5.1). In the Hokum layouts seat 0 calls hokum in spades (the turned card's suit).
"""

from __future__ import annotations

import pytest
from helpers import cs, deal_for, legal_names, names, play, start_play

from baloot_env.errors import IllegalActionError
from baloot_env.hand import DONE

SPADES = 0

# P1: trump leads.
P1 = deal_for(
    3,
    0,
    [
        "9S 7S AH KH AD KD AC KC",
        "8S TS QH JH QD JD QC JC",
        "JS QS TH 9H TD 9D TC 9C",
        "AS KS 8H 7H 8D 7D 8C 7C",
    ],
    "7S",
)

# D1: out of the led suit in Hokum; also played out to the end below.
D1_HANDS = [
    "AH KH QH JH TS AD KD QD",
    "KS QS 9D 8D 7D AC KC QC",
    "8S 7S JD TD JC TC 9C 8C",
    "AS JS 9S TH 9H 8H 7H 7C",
]
D1 = deal_for(3, 0, D1_HANDS, "TS")

# D2: higher trump when holding one, partner winning with a trump, no trump at all.
D2 = deal_for(
    3,
    0,
    [
        "AH KH QH JH TS 9S AD KD",
        "KS 7S TD AC KC QC JC TC",
        "AS QS 8S QD JD 9D 8D 7D",
        "JS TH 9H 8H 7H 9C 8C 7C",
    ],
    "9S",
)


def hokum(deal):
    return start_play(deal, caller=0, contract="hokum", trump=SPADES)


def test_hands_are_as_constructed_r2_3():
    s = hokum(D1)
    for seat in range(4):
        assert names(s.hands[seat]) == set(D1_HANDS[seat].split())


def test_any_lead_including_trump_r5_1():
    """R5.1: the dealer's right leads the first trick, any card, trump included."""
    s = hokum(P1)
    assert s.to_act == 0
    assert legal_names(s) == {"9S", "7S", "AH", "KH", "AD", "KD", "AC", "KC"}


def test_trump_lead_duties_r5_2():
    """R5.2: trump led: overtrump when able, even when the partner is winning; else any trump."""
    s = hokum(P1)
    play(s, "9S")
    assert s.to_act == 1 and legal_names(s) == {"8S", "TS"}  # nothing beats the 9 but the J: any trump
    # R9: True is not action 1 (the 8S), for is_legal as for apply.
    assert s.is_legal(1) and not s.is_legal(True)
    with pytest.raises(IllegalActionError):
        s.apply(True)
    play(s, "TS")
    # Seat 2's partner (seat 0) is winning with the 9, yet seat 2 must overtrump with the J.
    assert s.to_act == 2 and legal_names(s) == {"JS"}
    with pytest.raises(IllegalActionError) as e:
        s.apply(8 * SPADES + 5)  # QS
    msg = str(e.value)
    assert "seat 2" in msg and "QS" in msg and "JS" in msg
    play(s, "JS")
    assert legal_names(s) == {"AS", "KS"}  # nothing beats the J: any trump
    play(s, "KS")
    # R5.5 with R1.3 trump order: J > 9 > T > K (in plain order the T would have won).
    assert s.tricks[-1] == (0, tuple(cs("9S TS JS KS")), 2)
    assert s.tricks_won == [1, 0]
    assert s.raw == [14 + 10 + 20 + 4, 0]  # 9S TS JS KS as trumps (R1.4)
    assert s.to_act == 2  # R5.1: the winner leads


def test_follow_suit_any_rank_r5_2_and_plain_order_r5_5():
    """R5.2: holding the led plain suit, any card of it (no duty to win); R5.5: A > T > K."""
    s = hokum(P1)
    play(s, "9S TS JS KS")
    play(s, "TH")  # seat 2 leads hearts
    assert legal_names(s) == {"8H", "7H"}
    play(s, "8H")
    assert legal_names(s) == {"AH", "KH"}
    play(s, "AH")
    assert legal_names(s) == {"QH", "JH"}
    play(s, "QH")
    assert s.tricks[-1][2] == 0  # the A beats the T
    assert s.raw == [48 + 10 + 0 + 11 + 3, 0]
    play(s, "KD JD TD 7D")  # seat 0 leads the K; the T of seat 2 takes it (plain: T > K)
    assert s.tricks[-1][2] == 2
    assert s.raw == [72 + 4 + 2 + 10 + 0, 0]


def test_out_of_suit_must_trump_r5_4():
    """R5.4: out of the led plain suit, a trump must be played; no trump yet on the table: any."""
    s = hokum(D1)
    play(s, "AH")
    assert legal_names(s) == {"KS", "QS"}


def test_out_of_suit_with_only_lower_trumps_must_still_trump_r5_4():
    """R5.4 (and Choices): with only trumps lower than the best on the table, any trump, still a trump."""
    s = hokum(D1)
    play(s, "AH QS")
    assert s.to_act == 2 and legal_names(s) == {"8S", "7S"}  # not JD TD JC TC 9C 8C


def test_out_of_suit_must_overtrump_when_holding_a_higher_trump_r5_4():
    """R5.4: a higher trump than the best on the table when holding one (A beats K in trump)."""
    s = hokum(D2)
    play(s, "AH KS")
    assert s.to_act == 2 and legal_names(s) == {"AS"}  # not QS 8S, not a diamond


def test_holding_the_led_suit_no_duty_to_trump_r5_2():
    s = hokum(D1)
    play(s, "AH QS 8S")
    assert legal_names(s) == {"TH", "9H", "8H", "7H"}  # seat 3 has trumps but must follow


def test_partner_winning_escape_r5_4():
    """R5.4: partner winning the trick as it stands: anything, even holding a trump."""
    s = hokum(D1)
    play(s, "AH QS 8S 7H")  # seat 1 wins with QS
    play(s, "AC 8C 7C TS")  # seat 0 void in clubs must trump: TS wins
    play(s, "AD 7D JD 9S")  # seat 3 void in diamonds trumps with the 9
    play(s, "TH JH")  # seat 3 leads; seat 3 is seat 1's partner
    assert s.to_act == 1 and s.trick_winner == 3
    assert legal_names(s) == {"KS", "9D", "8D", "KC", "QC"}
    play(s, "8D")
    # Seat 2's partner (seat 0) is not winning: out of hearts, seat 2 must trump.
    assert legal_names(s) == {"7S"}


def test_partner_winning_with_a_trump_may_discard_r5_4():
    """R5.4: the escape also holds when the partner is winning with a trump (no duty to overtrump)."""
    s = hokum(D2)
    play(s, "AH KS AS 7H")  # seat 2 wins
    play(s, "9D JS KD TD")  # seat 3 trumps a plain lead and wins
    play(s, "9C")  # seat 3 leads clubs
    assert legal_names(s) == {"TS", "9S"}  # seat 0, void in clubs, opponent winning: a trump
    play(s, "9S AC")
    assert s.trick_winner == 0 and s.to_act == 2
    assert legal_names(s) == {"QS", "8S", "QD", "JD", "8D", "7D"}


def test_out_of_suit_overtrump_a_low_trump_r5_4():
    s = hokum(D2)
    play(s, "AH KS AS 7H 9D JS KD TD 9C 9S AC 7D")
    assert s.to_act == 0
    play(s, "KH")
    assert legal_names(s) == {"7S"}  # seat 1: out of hearts, its only trump
    play(s, "7S")
    assert legal_names(s) == {"QS", "8S"}  # both beat the 7


def test_no_trump_at_all_anything_r5_4():
    s = hokum(D2)
    play(s, "AH KS AS 7H 9D JS KD TD 9C 9S AC 7D KH 7S 8S 8H")
    assert s.to_act == 2 and s.tricks[-1][2] == 2
    play(s, "QD")
    assert legal_names(s) == {"TH", "9H", "8C", "7C"}  # seat 3: no diamond, no trump


def test_sun_out_of_suit_anything_and_no_trump_r5_3_r5_5():
    """R5.3: in Sun a player out of the led suit may play anything; R5.5: no card trumps."""
    s = start_play(D1, caller=0, contract="sun")
    assert s.level == 1  # R4.3: Sun is not doubled
    play(s, "AH")
    assert legal_names(s) == set(D1_HANDS[1].split())
    play(s, "KS")
    assert legal_names(s) == set(D1_HANDS[2].split())
    play(s, "8S TH")
    assert s.tricks[-1][2] == 0  # the spades do not win a heart trick in Sun
    assert s.raw == [11 + 4 + 0 + 10, 0]


def test_projects_public_at_first_card_r6_2():
    """R6.2: a seat's projects become public when it plays to the first trick."""
    s = hokum(D1)
    assert not any(s.projects_public(seat) for seat in range(4))
    play(s, "AH")
    assert [s.projects_public(seat) for seat in range(4)] == [True, False, False, False]
    play(s, "QS 8S 7H")
    assert all(s.projects_public(seat) for seat in range(4))


def test_whole_hand_worked_by_hand_r5_r6_r7():
    """D1 played to the end, every trick, project and point worked out from RULES.md.

    Tricks (leader first; winner; card points by R1.4, trump spades):
      1 S0 AH QS 8S 7H  -> S1 (QS trumps)     11+3+0+0   = 14  team 1
      2 S1 AC 8C 7C TS  -> S0 (TS trumps)     11+0+0+10  = 21  team 0
      3 S0 AD 7D JD 9S  -> S3 (9S trumps)     11+0+2+14  = 27  team 1
      4 S3 TH JH 8D 7S  -> S2 (7S trumps)     10+2+0+0   = 12  team 0
      5 S2 TD JS QD 9D  -> S3 (JS)            10+20+3+0  = 33  team 1
      6 S3 AS KD KS 9C  -> S3 (AS)            11+4+4+0   = 19  team 1
      7 S3 9H QH QC TC  -> S0 (QH)            0+3+3+10   = 16  team 0
      8 S0 KH KC JC 8H  -> S0 (KH)            4+4+2+0+10 = 20  team 0
    raw: team 0 = 21+12+16+20 = 69, team 1 = 14+27+33+19 = 93 (sum 162); tricks 4-4.
    Projects (R6.1, Hokum): S0 fifty JH-AH (5) + sira QD-AD (2); S1 sira 7D-9D, sira QC-AC;
    S2 fifty 8C-JC (5); S3 fifty 7H-TH. Best: S0's fifty to the A (R6.3) -> team 0 scores
    5 + 2 + 5 = 12, team 1 nothing. Baloot: S1 holds KS QS -> 2 for team 1 (R6.5).
    R7.1/R7.2: defenders (team 1) count: (93 + 4) // 10 = 9; callers 16 - 9 = 7.
    R7.3: T0 = 7 + 12 = 19 > T1 = 9 + 2 = 11 -> callers win; R7.4: score (19, 11).
    """
    s = hokum(D1)
    assert s.baloot_seat == 1
    tricks = [
        "AH QS 8S 7H",
        "AC 8C 7C TS",
        "AD 7D JD 9S",
        "TH JH 8D 7S",
        "TD JS QD 9D",
        "AS KD KS 9C",
        "9H QH QC TC",
        "KH KC JC 8H",
    ]
    winners = [1, 0, 3, 2, 3, 3, 0, 0]
    for i, (t, w) in enumerate(zip(tricks, winners, strict=True)):
        play(s, t)
        assert s.tricks[i][2] == w, i
        if i == 0:
            assert not s.baloot_announced  # R6.5: the first of K/Q is not enough
        if i == 5:
            assert s.baloot_announced  # the KS, second of the pair, was just played
    assert s.phase == DONE
    r = s.result
    assert r.raw == (69, 93)
    assert r.tricks == (4, 4)
    assert sorted(r.projects[0]) == [2, 5, 5] and r.projects[1] == ()
    assert r.baloot == (0, 2)
    assert (r.contract, r.trump, r.caller, r.level) == ("hokum", SPADES, 0, 1)
    assert r.callers_won is True and r.kaboot is False
    assert r.score == (19, 11)
    assert r.gahwa_winner is None


def test_whole_hand_without_projects_r6_6():
    """R6.6: with projects off the same play scores neither projects nor the baloot.

    T0 = 7, T1 = 9 -> callers lose (R7.5): defenders take 16.
    """
    from baloot_env.rules import RuleConfig

    s = start_play(D1, caller=0, contract="hokum", trump=SPADES, rules=RuleConfig(projects=False))
    play(s, "AH QS 8S 7H AC 8C 7C TS AD 7D JD 9S TH JH 8D 7S TD JS QD 9D AS KD KS 9C 9H QH QC TC KH KC JC 8H")
    r = s.result
    assert r.raw == (69, 93)
    assert r.projects == ((), ())
    assert r.callers_won is False and r.score == (0, 16)
