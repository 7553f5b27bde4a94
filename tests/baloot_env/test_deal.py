"""Deals (R2): the R2.4 format, malformed deals, random deals, and the stock dealt by R2.3."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from helpers import c, make_deal, names

from baloot_env.actions import HOKUM_BASE, PASS, SUN_ACTION
from baloot_env.deal import Deal, parse_deal, random_deal
from baloot_env.errors import DealError
from baloot_env.hand import DOUBLING, PLAY, HandState

GOOD = {
    "dealer": 0,
    "hands": [
        ["7S", "8S", "9S", "TS", "JS"],
        ["QS", "KS", "AS", "7H", "8H"],
        ["9H", "TH", "JH", "QH", "KH"],
        ["AH", "7D", "8D", "9D", "TD"],
    ],
    "turned": "JD",
    "stock": ["QD", "KD", "AD", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"],
}


def test_parse_deal_names_and_ids_r2_4():
    """R2.4: cards may be names or ids; the Deal holds ids and round-trips through to_dict."""
    d = parse_deal(GOOD)
    assert d.dealer == 0
    assert d.hands[0] == (0, 1, 2, 3, 4)
    assert d.turned == c("JD") == 20
    assert d.stock[0] == c("QD") and d.stock[-1] == c("AC")
    assert parse_deal(d.to_dict()) == d
    assert parse_deal(d.to_dict(names=True)) == d
    assert d.to_dict(names=True)["hands"][1] == ["QS", "KS", "AS", "7H", "8H"]
    assert parse_deal(d) is d


def bad(**changes):
    data = copy.deepcopy(GOOD)
    data.update(changes)
    return data


@pytest.mark.parametrize(
    "data, words",
    [
        (bad(stock=GOOD["stock"][:-1] + ["7S"]), ["7S", "twice"]),  # duplicate (and AC missing)
        (bad(turned="7S"), ["7S", "twice"]),
        (bad(hands=[GOOD["hands"][0], GOOD["hands"][1][:4], *GOOD["hands"][2:]]), ["hands[1]", "5 cards", "4"]),
        (bad(hands=GOOD["hands"][:3]), ["4 hands", "3"]),
        (bad(stock=GOOD["stock"][:10]), ["stock", "11 cards", "10"]),
        (bad(stock=GOOD["stock"] + ["AC"]), ["stock", "11 cards", "12"]),
        (bad(dealer=4), ["dealer", "4"]),
        (bad(dealer=-1), ["dealer", "-1"]),
        (bad(dealer="0"), ["dealer", "'0'"]),
        (bad(dealer=True), ["dealer", "True"]),
        (bad(turned="XD"), ["turned", "XD"]),
        (bad(stock=["QD", "KD", "AD", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "1C"]), ["stock[10]", "1C"]),
        (
            bad(hands=[["7S", "8S", "9S", "TS", "JS"], ["QS", "KS", "AS", "7H", 99], *GOOD["hands"][2:]]),
            ["hands[1][4]", "99"],
        ),
        ({k: v for k, v in GOOD.items() if k != "turned"}, ["missing", "turned"]),
        (bad(extra=1), ["unknown", "extra"]),
        ([1, 2, 3], ["mapping"]),
    ],
)
def test_malformed_deals_are_rejected_r2_4(data, words):
    """R2.4: anything but the 32 cards exactly once, in the right places, is refused with a reason."""
    with pytest.raises(DealError) as e:
        parse_deal(data)
    for w in words:
        assert w in str(e.value), (w, str(e.value))


def test_missing_card_r2_4():
    """R2.4: a card missing from a deal of the right size means another is there twice.

    The counts are checked first (a short deal is a wrong count), so with 32 places a missing
    AC shows as the card that took its place, named with both of its places.
    """
    data = bad(stock=GOOD["stock"][:-1] + ["AD"])
    with pytest.raises(DealError, match=r"AD appears twice .*stock"):
        parse_deal(data)


def test_deal_error_is_a_value_error():
    assert issubclass(DealError, ValueError)


@pytest.mark.parametrize("rng", [random.Random(3), np.random.default_rng(3)])
def test_random_deal_is_a_valid_deal_r2_2(rng):
    """R2.2: 5 cards per seat, one turned, 11 in the stock; all 32 exactly once; dealer 0-3."""
    for _ in range(50):
        d = random_deal(rng)
        assert isinstance(d, Deal)
        assert parse_deal(d.to_dict()) == d  # passes every R2.4 check
        assert 0 <= d.dealer <= 3


def test_random_deal_is_seeded():
    """Same seed, same deals (randomness is injected)."""
    a = [random_deal(random.Random(7)) for _ in range(2)]
    assert a[0] == a[1]
    assert random_deal(np.random.default_rng(5)) == random_deal(np.random.default_rng(5))
    assert random_deal(random.Random(1), dealer=2).dealer == 2
    with pytest.raises(TypeError):
        random_deal(7)


# Stock order used by the R2.3 tests; names chosen so each seat's share is easy to read.
STOCK_DEAL = make_deal(
    0,
    ["7S 8S 9S TS JS", "7H 8H 9H TH JH", "7D 8D 9D TD JD", "7C 8C 9C TC JC"],
    "QS",
    "KS AS QH KH AH QD KD AD QC KC AC",
)


@pytest.mark.parametrize(
    "caller, expect",
    [
        # dealer 0: the stock goes to seats 1, 2, 3, 0 in that order.
        (1, {1: "QS KS AS", 2: "QH KH AH", 3: "QD KD AD", 0: "QC KC AC"}),
        (2, {1: "KS AS QH", 2: "QS KH AH", 3: "QD KD AD", 0: "QC KC AC"}),
        (0, {1: "KS AS QH", 2: "KH AH QD", 3: "KD AD QC", 0: "QS KC AC"}),
    ],
)
def test_stock_dealt_after_the_call_r2_3(caller, expect):
    """R2.3: from the dealer's right in play order, 3 stock cards each; the caller the turned card + 2."""
    state = HandState(STOCK_DEAL)
    # R3.1: seat 1 speaks first. Sun by the caller: the seats before it pass.
    for seat in (1, 2, 3, 0):
        if seat == caller:
            state.apply(SUN_ACTION)
            break
        state.apply(PASS)
    assert state.caller == caller and state.phase == PLAY
    for seat in range(4):
        got = names(state.hands[seat]) - names(STOCK_DEAL.hands[seat])
        assert got == set(expect[seat].split()), seat
        assert bin(state.hands[seat]).count("1") == 8


def test_stock_is_dealt_before_doubling_r2_3_r4_4():
    """R2.3/R4.4: in Hokum the full 8 cards are held when doubling starts."""
    state = HandState(STOCK_DEAL)
    state.apply(HOKUM_BASE + 0)  # seat 1: hokum in the turned suit (spades)
    for _ in range(3):
        state.apply(PASS)
    assert state.phase == DOUBLING
    assert [bin(h).count("1") for h in state.hands] == [8, 8, 8, 8]
    assert state.hands[1] >> c("QS") & 1  # the caller took the turned card
