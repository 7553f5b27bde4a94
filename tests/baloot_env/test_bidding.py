"""Calling the contract (R3): round 1, sun outranking hokum, round 2, the throw-in."""

from __future__ import annotations

import pytest
from helpers import make_deal

from baloot_env.actions import PASS, SUN_ACTION
from baloot_env.errors import IllegalActionError
from baloot_env.hand import BIDDING, DONE, DOUBLING, PLAY, HandState

HOKUM_S, HOKUM_H, HOKUM_D, HOKUM_C = 33, 34, 35, 36

# Dealer 0, so seat 1 speaks first (R3.1); the turned card is a spade.
DEAL = make_deal(
    0,
    ["7S 8S 9S TS JS", "7H 8H 9H TH JH", "7D 8D 9D TD JD", "7C 8C 9C TC JC"],
    "QS",
    "KS AS QH KH AH QD KD AD QC KC AC",
)


def test_round_one_order_and_legal_calls_r3_1():
    """R3.1: from the dealer's right to the dealer; pass, hokum in the turned suit only, sun."""
    s = HandState(DEAL)
    assert s.phase == BIDDING and s.bid_round == 1
    seen = []
    for _ in range(4):
        seen.append(s.to_act)
        assert set(s.legal_actions()) == {PASS, HOKUM_S, SUN_ACTION}
        s.apply(PASS)
    assert seen == [1, 2, 3, 0]


def test_sun_ends_the_calling_at_once_r3_2():
    """R3.2: sun settles Sun for that seat; nobody else speaks; Sun is not doubled (R4.3)."""
    s = HandState(DEAL)
    s.apply(PASS)  # seat 1
    s.apply(SUN_ACTION)  # seat 2
    assert (s.contract, s.caller, s.trump) == ("sun", 2, -1)
    assert s.phase == PLAY
    assert [b[1] for b in s.bids] == [1, 2]


def test_only_one_hokum_in_round_one_r3_1():
    """R3.1: once someone called hokum this round, hokum is no longer legal (sun still is)."""
    s = HandState(DEAL)
    s.apply(HOKUM_S)  # seat 1
    assert s.phase == BIDDING and s.to_act == 2
    assert set(s.legal_actions()) == {PASS, SUN_ACTION}
    with pytest.raises(IllegalActionError):
        s.apply(HOKUM_S)


def test_later_sun_outranks_round_one_hokum_r3_3():
    """R3.3: a later seat may still take the hokum on the table with sun."""
    s = HandState(DEAL)
    s.apply(HOKUM_S)  # seat 1
    s.apply(PASS)  # seat 2
    s.apply(SUN_ACTION)  # seat 3
    assert (s.contract, s.caller, s.trump) == ("sun", 3, -1)
    assert s.phase == PLAY


def test_round_one_hokum_settles_at_round_end_r3_3():
    """R3.3: round 1 runs to its end, then Hokum in the turned suit for the hokum caller."""
    s = HandState(DEAL)
    s.apply(PASS)  # seat 1
    s.apply(HOKUM_S)  # seat 2
    s.apply(PASS)  # seat 3
    assert s.phase == BIDDING and s.contract is None  # the dealer has still to speak
    s.apply(PASS)  # seat 0, the dealer
    assert (s.contract, s.caller, s.trump) == ("hokum", 2, 0)
    assert s.phase == DOUBLING


def test_dealer_may_call_the_round_one_hokum_r3_1():
    s = HandState(DEAL)
    for _ in range(3):
        s.apply(PASS)
    s.apply(HOKUM_S)  # seat 0, the dealer, speaks last
    assert (s.contract, s.caller, s.trump) == ("hokum", 0, 0)


def _to_round_two() -> HandState:
    s = HandState(DEAL)
    for _ in range(4):
        s.apply(PASS)
    return s


def test_round_two_legal_calls_r3_4():
    """R3.4: only after four passes; same order; hokum in any suit but the turned card's; sun."""
    s = _to_round_two()
    assert s.phase == BIDDING and s.bid_round == 2 and s.to_act == 1
    assert set(s.legal_actions()) == {PASS, HOKUM_H, HOKUM_D, HOKUM_C, SUN_ACTION}


def test_hokum_in_the_turned_suit_is_illegal_in_round_two_r3_4():
    """R3.4: the turned suit is not allowed in round 2; the error names seat, action and what is legal."""
    s = _to_round_two()
    before = s.clone()
    with pytest.raises(IllegalActionError) as e:
        s.apply(HOKUM_S)
    msg = str(e.value)
    for word in ("seat 1", "hokum_S", "pass", "hokum_H", "hokum_D", "hokum_C", "sun"):
        assert word in msg, (word, msg)
    assert s == before


def test_round_two_first_call_settles_r3_4():
    """R3.4: the first call of round 2 settles the contract at once; later seats do not speak."""
    s = _to_round_two()
    s.apply(PASS)  # seat 1
    s.apply(HOKUM_H)  # seat 2
    assert (s.contract, s.caller, s.trump) == ("hokum", 2, 1)
    assert s.phase == DOUBLING


def test_round_two_sun_settles_r3_4():
    s = _to_round_two()
    s.apply(PASS)
    s.apply(PASS)
    s.apply(SUN_ACTION)  # seat 3
    assert (s.contract, s.caller) == ("sun", 3)


def test_throw_in_after_eight_passes_r3_5():
    """R3.5: four passes twice: the deal is thrown in, nobody scores."""
    s = HandState(DEAL)
    for i in range(8):
        assert s.phase == BIDDING, i
        s.apply(PASS)
    assert s.phase == DONE and s.done
    assert s.legal_actions() == [] and s.to_act == -1
    r = s.result
    assert r is not None and r.thrown
    assert (r.contract, r.trump, r.caller, r.callers_won) == (None, None, None, None)
    assert r.score == (0, 0) and r.dealer == 0
    with pytest.raises(IllegalActionError, match="over"):
        s.apply(PASS)


@pytest.mark.parametrize("action", [0, 38, 41, -1, 42, True, "pass", None])
def test_non_bids_are_illegal_while_calling_r9(action):
    """R9: cards and doubling calls are not legal while calling; nor are non-actions."""
    s = HandState(DEAL)
    before = s.clone()
    with pytest.raises(IllegalActionError) as e:
        s.apply(action)
    assert "seat 1" in str(e.value) and "legal" in str(e.value)
    assert s == before
