"""The match (R8, V4, V6, V9): every way a match ends, and the deal moving on (R2.1).

Most tests feed hand results of chosen scores into MatchState (the match only keeps score);
the throw-ins, the gahwa and the full matches at the end are played by the real engine.
"""

from __future__ import annotations

import random

import pytest
from helpers import biased_action

from baloot_env.actions import DOUBLE, FOUR, GAHWA_ACTION, PASS, THREE
from baloot_env.deal import random_deal
from baloot_env.match import MatchState
from baloot_env.results import HandResult
from baloot_env.rules import MAX_DEALS, TARGET_SCORE, RuleConfig

RNG_SEED = 11


def played(score, dealer=0, gahwa_winner=None) -> HandResult:
    """A played hand's result with the given match score (other fields plausible but unused)."""
    return HandResult(
        "hokum",
        0,
        0,
        5 if gahwa_winner is not None else 1,
        (81, 81),
        (4, 4),
        ((), ()),
        (0, 0),
        False,
        True,
        tuple(score),
        gahwa_winner,
        dealer,
    )


def feed(match: MatchState, result: HandResult) -> None:
    """Run one deal through the match with a given result."""
    hand = match.start_hand(random_deal(random.Random(len(match.results)), dealer=result.dealer))
    hand.result = result
    match.end_hand()


def throw_in(match: MatchState, dealer: int) -> None:
    """A real deal in which all four pass twice (R3.5)."""
    hand = match.start_hand(random_deal(random.Random(dealer), dealer=dealer))
    for _ in range(8):
        hand.apply(PASS)
    assert hand.result.thrown
    match.end_hand()


def test_target_reached_r8_1():
    m = MatchState()
    feed(m, played((100, 50)))
    assert m.result is None
    feed(m, played((60, 10)))
    assert m.result is not None
    assert (m.result.winner, m.result.score, m.result.reason) == (0, (160, 60), "target")


def test_both_past_target_higher_wins_r8_1():
    m = MatchState()
    feed(m, played((150, 140)))
    feed(m, played((10, 16)))  # 160 - 156
    assert (m.result.winner, m.result.reason) == (0, "target")


def test_level_at_target_plays_on_r8_1():
    """R8.1: 152 or more but level: another hand is played."""
    m = MatchState()
    feed(m, played((76, 76)))
    feed(m, played((76, 76)))
    assert m.score == [152, 152] and m.result is None
    feed(m, played((0, 16)))
    assert (m.result.winner, m.result.score) == (1, (152, 168))


def test_exactly_152_wins_by_default_and_not_with_win_above_v6():
    m = MatchState()
    feed(m, played((TARGET_SCORE, 100)))
    assert m.result is not None and m.result.winner == 0
    m = MatchState(RuleConfig(win_above=True))
    feed(m, played((TARGET_SCORE, 100)))
    assert m.result is None  # V6: must exceed 152
    feed(m, played((1, 0)))
    assert (m.result.winner, m.result.score, m.result.reason) == (0, (153, 100), "target")


def test_hands_mode_counts_scored_hands_only_r8_2():
    """R8.2: five scored hands; a thrown-in deal does not count; reaching 152 does not end it."""
    m = MatchState(RuleConfig(match="hands"))
    feed(m, played((200, 0)))
    assert m.result is None  # no target in hands mode
    for _ in range(3):
        feed(m, played((0, 10)))
    throw_in(m, dealer=0)
    assert m.result is None and m.hands_scored == 4 and m.deals_played == 5
    feed(m, played((0, 10)))
    assert (m.result.winner, m.result.score, m.result.reason) == (0, (200, 40), "hands")
    assert m.hands_scored == 5 and m.deals_played == 6


@pytest.mark.parametrize("hands", [5, 9, 11])
def test_hands_mode_lengths_r8_2_v4(hands):
    m = MatchState(RuleConfig(match="hands", hands=hands))
    for i in range(hands - 1):
        feed(m, played((0, 16)))
        assert m.result is None, i
    feed(m, played((0, 16)))
    assert (m.result.winner, m.result.reason) == (1, "hands")


def test_hands_mode_level_plays_on_r8_2():
    m = MatchState(RuleConfig(match="hands"))
    for score in [(16, 0), (0, 16), (8, 8), (10, 6), (6, 10)]:
        feed(m, played(score))
    assert m.score == [40, 40] and m.result is None
    feed(m, played((9, 7)))
    assert (m.result.winner, m.result.reason) == (0, "hands")
    assert m.hands_scored == 6


def test_gahwa_ends_the_match_even_when_behind_r8_3():
    """R8.3: the gahwa winner wins at once, whatever the scores."""
    m = MatchState()
    feed(m, played((0, 150)))
    feed(m, played((152, 0), gahwa_winner=0))
    assert (m.result.winner, m.result.score, m.result.reason) == (0, (152, 150), "gahwa")


def test_gahwa_ends_a_hands_mode_match_r8_3():
    m = MatchState(RuleConfig(match="hands"))
    feed(m, played((0, 0), gahwa_winner=1))
    assert (m.result.winner, m.result.reason) == (1, "gahwa")


def test_real_gahwa_hand_ends_the_match_r4_r7_8_r8_3():
    """A real hand raised to gahwa and played out: the match ends, won by the hand's winner,
    whose score is brought to exactly 152 (R8.3), the other team's left as it was."""
    rng = random.Random(RNG_SEED)
    m = MatchState()
    m.score = [100, 140]
    hand = m.start_hand(random_deal(rng, dealer=0))
    hand.apply(33 + (hand.deal.turned >> 3))  # seat 1: hokum in the turned suit
    for _ in range(3):
        hand.apply(PASS)
    for a in (DOUBLE, THREE, FOUR, GAHWA_ACTION):  # seats 2, 3, 0, 1: each raise by the next seat
        hand.apply(a)
    assert hand.level == 5
    while not hand.done:
        hand.apply(rng.choice(hand.legal_actions()))
    res = m.end_hand()
    w = res.gahwa_winner
    assert w in (0, 1)
    assert (m.result.winner, m.result.reason) == (w, "gahwa")
    assert m.score[w] == TARGET_SCORE and m.score[1 - w] == [100, 140][1 - w]


def test_cap_of_99_deals_is_a_draw_when_level_r8_4():
    """R8.4: thrown-in deals count toward the cap; a level score at the cap is a draw."""
    m = MatchState()
    dealer = 0
    for i in range(MAX_DEALS - 1):
        throw_in(m, dealer)
        dealer = m.next_dealer()
        assert m.result is None, i
    throw_in(m, dealer)
    assert m.deals_played == 99
    assert (m.result.winner, m.result.score, m.result.reason) == (None, (0, 0), "cap")
    with pytest.raises(ValueError, match="over"):
        m.start_hand(random_deal(random.Random(0)))


def test_cap_higher_score_wins_r8_4():
    m = MatchState()
    for _ in range(MAX_DEALS - 1):
        throw_in(m, 0)
    feed(m, played((16, 0)))
    assert (m.result.winner, m.result.score, m.result.reason) == (0, (16, 0), "cap")


def test_cap_in_hands_mode_r8_4():
    """Hands mode: 98 throw-ins and one scored hand: far from 5 scored hands, the cap ends it."""
    m = MatchState(RuleConfig(match="hands"))
    for _ in range(MAX_DEALS - 1):
        throw_in(m, 0)
    feed(m, played((0, 26)))
    assert (m.result.winner, m.result.reason) == (1, "cap")


def test_end_hand_needs_a_finished_hand():
    m = MatchState()
    with pytest.raises(ValueError):
        m.end_hand()
    m.start_hand(random_deal(random.Random(0)))
    with pytest.raises(ValueError):
        m.end_hand()


@pytest.mark.parametrize("rotation, expect", [("left", [2, 1, 0, 3, 2]), ("right", [2, 3, 0, 1, 2])])
def test_dealer_rotation_r2_1_v9(rotation, expect):
    """R2.1: the deal moves left, (dealer + 3) % 4, after every deal, thrown in (R3.5) or played;
    V9 "right": (dealer + 1) % 4."""
    m = MatchState(RuleConfig(deal_rotation=rotation))
    assert m.next_dealer() is None
    dealers = [2]
    throw_in(m, 2)
    for i in range(4):
        d = m.next_dealer()
        dealers.append(d)
        if i % 2:
            throw_in(m, d)
        else:
            feed(m, played((8, 8), dealer=d))
    assert dealers == expect


@pytest.mark.parametrize(
    "rules",
    [
        RuleConfig(),
        RuleConfig(match="hands", hands=9),
        RuleConfig(win_above=True, deal_rotation="right"),
        RuleConfig(doubling=False, projects=False),
    ],
)
def test_random_matches_keep_score_r8(rules):
    """Whole matches with the real engine: the score is the sum of the hands, the deal moves per
    R2.1/V9, and the match ends by one of R8.1-R8.4 with a consistent winner."""
    rng = random.Random(RNG_SEED)
    reasons = []
    for _ in range(8):
        m = MatchState(rules)
        dealer = rng.randrange(4)
        dealers = []
        while m.result is None:
            dealers.append(dealer)
            hand = m.start_hand(random_deal(rng, dealer=dealer))
            while not hand.done:
                hand.apply(biased_action(rng, hand, raise_p=0.05))
            m.end_hand()
            dealer = m.next_dealer()
        assert [r.dealer for r in m.results] == dealers
        for a, b in zip(dealers, dealers[1:], strict=False):
            assert b == rules.next_dealer(a)
        assert m.score == [sum(r.score[t] for r in m.results) for t in (0, 1)]
        assert tuple(m.score) == m.result.score
        reasons.append(m.result.reason)
        s = m.result.score
        if m.result.reason == "gahwa":
            assert m.result.winner == m.results[-1].gahwa_winner
        else:
            assert s[0] != s[1] and m.result.winner == (0 if s[0] > s[1] else 1)
        if m.result.reason == "target":
            assert max(s) > TARGET_SCORE if rules.win_above else max(s) >= TARGET_SCORE
        if m.result.reason == "hands":
            assert m.hands_scored >= rules.hands
    assert set(reasons) <= {"target", "hands", "gahwa"}
    assert reasons.count("hands" if rules.match == "hands" else "target") >= 3  # not all gahwa
