"""Doubling (R4, V1, V3) and who counts (R7.1)."""

from __future__ import annotations

import pytest
from helpers import make_deal

from baloot_env.actions import DOUBLE, FOUR, GAHWA_ACTION, PASS, SUN_ACTION, THREE
from baloot_env.errors import IllegalActionError
from baloot_env.hand import DOUBLING, PLAY, HandState
from baloot_env.rules import RuleConfig
from baloot_env.scoring import counting_team

HOKUM_S = 33
DEAL = make_deal(
    0,
    ["7S 8S 9S TS JS", "7H 8H 9H TH JH", "7D 8D 9D TD JD", "7C 8C 9C TC JC"],
    "QS",
    "KS AS QH KH AH QD KD AD QC KC AC",
)


def hokum_by_seat_1(rules: RuleConfig | None = None) -> HandState:
    """Dealer 0; seat 1 calls hokum in spades in round 1; the defenders are seats 2 and 0."""
    s = HandState(DEAL, rules)
    s.apply(HOKUM_S)
    for _ in range(3):
        s.apply(PASS)
    assert (s.contract, s.caller) == ("hokum", 1)
    return s


def step(s: HandState, seat: int, action: int) -> None:
    assert s.to_act == seat, (s.to_act, seat)
    s.apply(action)


def test_full_ladder_order_r4_1_r4_2():
    """R4.1/R4.2: defenders double and four, callers three and gahwa; each raise hands the turn
    to the other team, starting after the raiser; gahwa closes doubling."""
    s = hokum_by_seat_1()
    assert s.phase == DOUBLING and s.level == 1
    assert set(s.legal_actions()) == {PASS, DOUBLE}  # nothing can be skipped
    step(s, 2, PASS)  # first defender after the caller
    step(s, 0, DOUBLE)  # the other defender may raise
    assert s.level == 2 and set(s.legal_actions()) == {PASS, THREE}
    step(s, 1, PASS)  # callers: first of them after seat 0
    step(s, 3, THREE)
    assert s.level == 3 and set(s.legal_actions()) == {PASS, FOUR}
    step(s, 0, PASS)  # defenders: first after seat 3 is seat 0
    step(s, 2, FOUR)
    assert s.level == 4 and set(s.legal_actions()) == {PASS, GAHWA_ACTION}
    step(s, 3, GAHWA_ACTION)  # callers: first after seat 2 is seat 3
    assert s.level == 5
    assert s.phase == PLAY and s.to_act == 1  # R5.1: the dealer's right leads
    assert s.doubling_calls == [(2, PASS), (0, DOUBLE), (1, PASS), (3, THREE), (0, PASS), (2, FOUR), (3, GAHWA_ACTION)]


def test_two_passes_close_doubling_r4_2():
    s = hokum_by_seat_1()
    step(s, 2, PASS)
    step(s, 0, PASS)
    assert s.phase == PLAY and s.level == 1


def test_passes_count_again_after_a_raise_r4_2():
    """R4.2: two passes *in a row* by the entitled players close; a raise starts over."""
    s = hokum_by_seat_1()
    step(s, 2, PASS)
    step(s, 0, DOUBLE)
    step(s, 1, PASS)
    assert s.phase == DOUBLING  # one pass after the raise is not enough
    step(s, 3, PASS)
    assert s.phase == PLAY and s.level == 2


def test_first_defender_doubles_r4_2():
    s = hokum_by_seat_1()
    step(s, 2, DOUBLE)
    step(s, 3, THREE)  # first caller after seat 2
    step(s, 0, PASS)
    step(s, 2, PASS)
    assert s.phase == PLAY and s.level == 3


@pytest.mark.parametrize("raise_", [THREE, FOUR, GAHWA_ACTION])
def test_no_raise_can_be_skipped_r4_1(raise_):
    s = hokum_by_seat_1()
    with pytest.raises(IllegalActionError) as e:
        s.apply(raise_)
    assert "seat 2" in str(e.value) and "double" in str(e.value)


def test_sun_is_not_doubled_by_default_r4_3():
    s = HandState(DEAL)
    s.apply(SUN_ACTION)
    assert s.phase == PLAY and s.level == 1


def test_sun_double_variant_v1():
    """V1: Sun may be doubled once, to level 2, by the defenders (R4.2 order); a double closes."""
    s = HandState(DEAL, RuleConfig(sun_double=True))
    s.apply(PASS)  # seat 1
    s.apply(SUN_ACTION)  # seat 2 calls sun; the defenders are 3 and 1
    assert s.phase == DOUBLING and s.to_act == 3
    assert set(s.legal_actions()) == {PASS, DOUBLE}
    step(s, 3, PASS)
    step(s, 1, DOUBLE)
    assert s.level == 2 and s.phase == PLAY and s.to_act == 1


def test_sun_double_variant_v1_both_pass():
    s = HandState(DEAL, RuleConfig(sun_double=True))
    s.apply(SUN_ACTION)  # seat 1
    step(s, 2, PASS)
    step(s, 0, PASS)
    assert s.level == 1 and s.phase == PLAY


def test_sun_double_needs_doubling_v1_v3():
    """V1: with doubling off (V3), Sun is not doubled either."""
    s = HandState(DEAL, RuleConfig(sun_double=True, doubling=False))
    s.apply(SUN_ACTION)
    assert s.phase == PLAY


def test_doubling_off_skips_the_phase_v3_r4_3():
    s = hokum_by_seat_1(RuleConfig(doubling=False))
    assert s.phase == PLAY and s.level == 1 and s.to_act == 1


@pytest.mark.parametrize(
    "caller, level, counting",
    [
        # R7.1: defenders count; after double/four the callers; after three/gahwa the defenders.
        (1, 1, 0),
        (1, 2, 1),
        (1, 3, 0),
        (1, 4, 1),
        (1, 5, 0),
        (2, 1, 1),
        (2, 2, 0),
        (2, 3, 1),
        (2, 4, 0),
        (2, 5, 1),
    ],
)
def test_counting_team_r7_1(caller, level, counting):
    assert counting_team(caller, level) == counting
