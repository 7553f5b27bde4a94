"""Projects and the baloot (R6.1-R6.6, V7): decomposition, comparison, who scores."""

from __future__ import annotations

import pytest
from helpers import cs, deal_for, start_play

from baloot_env.cards import mask_of
from baloot_env.projects import (
    FIFTY,
    FOUR_HUNDRED,
    HUNDRED,
    SIRA,
    declare_projects,
    has_baloot,
    project_winner,
    scoring_projects,
)


def decl(text: str, hokum: bool = True, four_aces: str = "four_hundred"):
    """Declared projects of a hand as sorted (kind, card names) pairs."""
    from baloot_env.cards import card_name

    ps = declare_projects(mask_of(cs(text)), hokum, four_aces)
    return sorted((p.kind, " ".join(card_name(x) for x in p.cards)) for p in ps)


def total(text: str, hokum: bool, four_aces: str = "four_hundred") -> int:
    return sum(p.value(hokum) for p in declare_projects(mask_of(cs(text)), hokum, four_aces))


def test_runs_r6_1():
    """R6.1: runs of 3, 4, 5+ in one suit, in run order 7 8 9 T J Q K A (R1.5)."""
    assert decl("7S 8S 9S JH KH AD 7C 9C") == [(SIRA, "7S 8S 9S")]
    assert decl("TS JS QS KS 7H 9H JD KC") == [(FIFTY, "TS JS QS KS")]
    assert decl("7H 8H 9H TH JH AS AD AC") == [(HUNDRED, "7H 8H 9H TH JH")]
    assert decl("7S 8S TS JS QS 9H 9D 9C") == [(SIRA, "TS JS QS")]  # 7-8 then a gap
    assert decl("QS KS AS 7H 8H 9H 7D 8D") == [(SIRA, "7H 8H 9H"), (SIRA, "QS KS AS")]
    assert decl("QS KS AH 7H 8D 9D TC JC") == []  # no run crosses suits, no wrap A-7


def test_run_of_eight_is_one_hundred_r6_1():
    """R6.1: runs are maximal; a run of 8 is one hundred (not a hundred and a sira)."""
    assert decl("7D 8D 9D TD JD QD KD AD") == [(HUNDRED, "7D 8D 9D TD JD QD KD AD")]
    assert total("7D 8D 9D TD JD QD KD AD", hokum=True) == 10
    assert total("7D 8D 9D TD JD QD KD AD", hokum=False) == 20


def test_values_hokum_and_sun_r6_1():
    """R6.1 table: sira 2/4, fifty 5/10, hundred 10/20, four hundred 10/40."""
    assert (total("7S 8S 9S JH KH AD 7C 9C", True), total("7S 8S 9S JH KH AD 7C 9C", False)) == (2, 4)
    assert (total("TS JS QS KS 7H 9H JD KC", True), total("TS JS QS KS 7H 9H JD KC", False)) == (5, 10)
    assert (total("7H 8H 9H TH JH AS AD AC", True), total("7H 8H 9H TH JH AS AD AC", False)) == (10, 20)
    assert (total("AS AH AD AC 7S 9H JD KC", True), total("AS AH AD AC 7S 9H JD KC", False)) == (10, 40)


@pytest.mark.parametrize("rank", ["T", "J", "Q", "K"])
def test_four_of_a_kind_is_a_hundred_r6_1(rank):
    hand = f"{rank}S {rank}H {rank}D {rank}C 7S 9H 7D 9C"
    assert decl(hand) == [(HUNDRED, f"{rank}S {rank}H {rank}D {rank}C")]
    assert total(hand, False) == 20


def test_four_aces_is_a_four_hundred_r6_1_v7():
    """R6.1/V7: four A are a four hundred (Hokum 10, Sun 40); V7 "hundred": an ordinary hundred in Hokum."""
    hand = "AS AH AD AC 7S 9H JD KC"
    assert [k for k, _ in decl(hand)] == [FOUR_HUNDRED]
    assert [k for k, _ in decl(hand, hokum=False, four_aces="hundred")] == [FOUR_HUNDRED]  # V7 is Hokum only
    assert [k for k, _ in decl(hand, four_aces="hundred")] == [HUNDRED]
    assert total(hand, True, "hundred") == 10


@pytest.mark.parametrize("rank", ["7", "8", "9"])
def test_four_low_cards_score_nothing_r6_1(rank):
    assert decl(f"{rank}S {rank}H {rank}D {rank}C JS KH AD QC") == []


def test_four_of_a_kind_takes_a_card_from_a_run_r6_1():
    """R6.1: a four-of-a-kind may take one card of a run; the runs are the maximal runs left.

    9S-KS is a hundred (10); four K (10) + 9S-QS, a fifty (5), is worth more (15; Sun 20 + 10).
    """
    hand = "9S TS JS QS KS KH KD KC"
    assert decl(hand) == [(FIFTY, "9S TS JS QS"), (HUNDRED, "KS KH KD KC")]
    assert total(hand, True) == 15 and total(hand, False) == 30


def test_quad_in_the_middle_of_a_run_r6_1():
    """R6.1: four J inside 9S-KS would split the run into 9-T and Q-K (no runs): worth 10 = the run's
    10; at equal totals the stronger best project wins, and a run outranks four of a kind (R6.3)."""
    hand = "9S TS JS QS KS JH JD JC"
    assert decl(hand) == [(HUNDRED, "9S TS JS QS KS")]
    assert decl(hand, hokum=False) == [(HUNDRED, "9S TS JS QS KS")]


def test_four_aces_and_a_run_to_the_ace_r6_1():
    """JS-AS is a fifty (5/10); four A (10/40) + sira JS-KS (2/4) is worth more in both contracts."""
    hand = "JS QS KS AS AH AD AC 7H"
    assert decl(hand) == [(FOUR_HUNDRED, "AS AH AD AC"), (SIRA, "JS QS KS")]
    assert total(hand, True) == 12 and total(hand, False) == 44


def test_a_card_belongs_to_one_project_r6_1():
    """Four K with only three K outside a run: the run stays whole (no quad without the KS)."""
    assert decl("JS QS KS KH KD 7C 9C 8D") == [(SIRA, "JS QS KS")]
    assert decl("JS QS KS KH KD KC 7H 9D") == [(HUNDRED, "KS KH KD KC")]  # 10 beats the sira's 2


def seat_projects(hands: dict[int, str], hokum: bool = True, four_aces: str = "four_hundred"):
    return [declare_projects(mask_of(cs(hands.get(s, ""))), hokum, four_aces) for s in range(4)]


def test_higher_value_wins_r6_3():
    ps = seat_projects({0: "QH KH AH", 1: "7S 8S 9S TS"})
    assert project_winner(ps, dealer=3) == 1  # a fifty to the T beats a sira to the A


def test_four_hundred_outranks_a_hundred_in_hokum_r6_3_v7():
    """R6.3: four hundred above a hundred in both contracts, although both are worth 10 in Hokum."""
    hands = {0: "7H 8H 9H TH JH QH KH", 1: "AS AH AD AC"}
    ps = seat_projects(hands)
    assert project_winner(ps, dealer=3) == 1
    # V7 "hundred": four A are a hundred ranked as four of a kind; a run outranks them.
    assert project_winner(seat_projects(hands, four_aces="hundred"), dealer=3) == 0


def test_run_outranks_four_of_a_kind_r6_3():
    ps = seat_projects({0: "KS KH KD KC", 1: "7D 8D 9D TD JD"})
    assert project_winner(ps, dealer=3) == 1


def test_four_kings_beat_four_queens_r6_3():
    ps = seat_projects({2: "QS QH QD QC", 3: "KS KH KD KC"})
    assert project_winner(ps, dealer=3) == 1
    assert project_winner(seat_projects({2: "KS KH KD KC", 3: "QS QH QD QC"}), dealer=3) == 0


def test_run_to_the_ace_beats_a_longer_run_to_the_king_r6_3():
    ps = seat_projects({0: "8H 9H TH JH QH KH", 1: "TS JS QS KS AS"})
    assert project_winner(ps, dealer=3) == 1


@pytest.mark.parametrize("dealer, team", [(0, 1), (1, 0), (2, 1), (3, 1)])
def test_equal_projects_seat_order_from_dealers_right_r6_3(dealer, team):
    """R6.3: exactly equal best projects go to the seat first in play order from the dealer's right.

    Seats 1 and 2 both hold a sira to the 9. Dealer 0: order 1 2 3 0 -> seat 1 (team 1);
    dealer 1: 2 3 0 1 -> seat 2 (team 0); dealer 2: 3 0 1 2 -> seat 1; dealer 3: 0 1 2 3 -> seat 1.
    """
    ps = seat_projects({1: "7S 8S 9S", 2: "7H 8H 9H"})
    assert project_winner(ps, dealer) == team


def test_winning_team_scores_all_its_projects_r6_3():
    """R6.3: only the team with the single best project scores, and all of its own projects."""
    ps = seat_projects({0: "7S 8S 9S TS", 1: "7H 8H 9H", 2: "7D 8D 9D", 3: "7C 8C 9C"})
    assert scoring_projects(ps, dealer=3, tricks=[4, 4], hokum=True) == [[5, 2], []]
    ps_sun = seat_projects({0: "7S 8S 9S TS", 1: "7H 8H 9H", 2: "7D 8D 9D", 3: "7C 8C 9C"}, hokum=False)
    assert scoring_projects(ps_sun, dealer=3, tricks=[4, 4], hokum=False) == [[10, 4], []]


def test_no_projects_nobody_scores_r6_3():
    ps = seat_projects({})
    assert project_winner(ps, dealer=0) is None
    assert scoring_projects(ps, dealer=0, tricks=[4, 4], hokum=True) == [[], []]


def test_team_without_a_trick_scores_no_project_r6_4():
    """R6.4: the team with the best project took no trick: it scores none, and the other team,
    which did not hold the best, scores none either."""
    ps = seat_projects({0: "7S 8S 9S TS", 1: "7H 8H 9H"})
    assert scoring_projects(ps, dealer=3, tricks=[0, 8], hokum=True) == [[], []]
    assert scoring_projects(ps, dealer=3, tricks=[8, 0], hokum=True) == [[5], []]
    assert scoring_projects(ps, dealer=3, tricks=[1, 7], hokum=True) == [[5], []]


def test_has_baloot_r6_5():
    assert has_baloot(mask_of(cs("KH QH 7S")), trump=1)
    assert not has_baloot(mask_of(cs("KH QS 7S")), trump=1)
    assert not has_baloot(mask_of(cs("KH QH 7S")), trump=0)


# Dealer 3, caller 0 (turned 7H, hearts). Seat 2 has KH among its first 5 cards and gets QH from
# the stock (the last three names of each seat come from the stock, R2.3).
BALOOT_DEAL = deal_for(
    3,
    0,
    [
        "7H 8H 9H AS 7S 8S 9S TS",
        "JS QS KS 7D 8D 9D TD JD",
        "KH AD KD 7C 8C QH 9C TC",
        "TH JH AH QD JC QC KC AC",
    ],
    "7H",
)


def test_baloot_counts_the_full_hand_r6_5():
    """R6.5: K and Q of trump in one player's 8-card hand (after R2.3)."""
    assert BALOOT_DEAL.hands[2][0] == cs("KH")[0] and cs("QH")[0] in BALOOT_DEAL.stock
    s = start_play(BALOOT_DEAL, caller=0, contract="hokum", trump=1)
    assert s.baloot_seat == 2


def test_no_baloot_in_sun_r6_5():
    s = start_play(BALOOT_DEAL, caller=0, contract="sun")
    assert s.baloot_seat == -1


def test_no_baloot_with_projects_off_r6_6():
    from baloot_env.rules import RuleConfig

    s = start_play(BALOOT_DEAL, caller=0, contract="hokum", trump=1, rules=RuleConfig(projects=False))
    assert s.projects == [[], [], [], []]
    assert s.baloot_seat == -1


def test_projects_declared_from_the_eight_cards_r6_1():
    """Seat 0: 7H-9H (sira) and 7S-TS (fifty) use the turned 7H and the stock cards."""
    s = start_play(BALOOT_DEAL, caller=0, contract="hokum", trump=1)
    kinds = sorted(p.kind for p in s.projects[0])
    assert kinds == [FIFTY, SIRA]
