"""Cards, orders, points and action ids (R1.2-R1.5, R9), worked by hand from RULES.md."""

from __future__ import annotations

import pytest

from baloot_env.actions import NUM_ACTIONS, action_name
from baloot_env.cards import (
    HIGHER_PLAIN,
    HIGHER_TRUMP,
    card_name,
    card_points,
    cards_of,
    mask_of,
    mask_points,
    parse_card,
    strength,
)

RANKS = "789TJQKA"


def test_card_ids_and_names_r1_2():
    """R1.2: card = 8 * suit + rank, suits S H D C, ranks 7 8 9 T J Q K A."""
    assert parse_card("7S") == 0
    assert parse_card("AS") == 7
    assert parse_card("TH") == 8 + 3
    assert parse_card("JD") == 16 + 4
    assert parse_card("AC") == 31
    assert parse_card("10h") == parse_card("TH")  # a 10 written out is still the T
    assert parse_card(17) == 17
    assert [card_name(x) for x in (0, 11, 20, 31)] == ["7S", "TH", "JD", "AC"]
    assert all(parse_card(card_name(x)) == x for x in range(32))


@pytest.mark.parametrize("bad", ["XS", "1H", "AZ", "", "AS ", 32, -1, True, None, 3.0])
def test_bad_card_names_are_refused_r1_2(bad):
    """R1.2/R2.4: anything that is not an id 0-31 or a rank+suit name is refused."""
    if bad == "AS ":  # surrounding spaces are tolerated, so this one is a real card
        assert parse_card(bad) == 7
        return
    with pytest.raises(ValueError):
        parse_card(bad)


def _order(suit: int, trump: int) -> str:
    ranks = sorted(range(8), key=lambda r: strength(8 * suit + r, trump), reverse=True)
    return " ".join(RANKS[r] for r in ranks)


def test_plain_and_sun_trick_order_r1_3():
    """R1.3: plain suits, and every suit in Sun: A T K Q J 9 8 7."""
    for suit in range(4):
        assert _order(suit, trump=-1) == "A T K Q J 9 8 7"  # Sun
        assert _order(suit, trump=(suit + 1) % 4) == "A T K Q J 9 8 7"  # plain suit in Hokum


def test_trump_trick_order_r1_3():
    """R1.3: the trump suit in Hokum: J 9 A T K Q 8 7."""
    for suit in range(4):
        assert _order(suit, trump=suit) == "J 9 A T K Q 8 7"


def test_higher_masks_follow_the_orders_r1_3():
    """The 'beats this card' masks used by the R5.2/R5.4 duties agree with R1.3."""
    # In trump, only J beats 9; J is beaten by nothing; 7 is beaten by the seven others.
    assert HIGHER_TRUMP[parse_card("9H")] == mask_of([parse_card("JH")])
    assert HIGHER_TRUMP[parse_card("JH")] == 0
    assert cards_of(HIGHER_TRUMP[parse_card("7H")]) == [
        parse_card(n) for n in ("8H", "9H", "TH", "JH", "QH", "KH", "AH")
    ]
    # Plain: the T is beaten by the A only; the K by T and A.
    assert HIGHER_PLAIN[parse_card("TD")] == mask_of([parse_card("AD")])
    assert HIGHER_PLAIN[parse_card("KD")] == mask_of([parse_card("TD"), parse_card("AD")])


def test_card_points_r1_4():
    """R1.4: plain A 11, T 10, K 4, Q 3, J 2, 9/8/7 0; trump J 20, 9 14, A 11, T 10, K 4, Q 3, 8/7 0."""
    plain = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
    trump = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
    for r in RANKS:
        assert card_points(parse_card(r + "S"), trump=-1) == plain[r]
        assert card_points(parse_card(r + "S"), trump=1) == plain[r]
        assert card_points(parse_card(r + "H"), trump=1) == trump[r]


def test_hand_totals_r1_4():
    """R1.4: 162 in Hokum (3 x 30 + 62 + 10) and 130 in Sun (4 x 30 + 10), last trick included."""
    everything = (1 << 32) - 1
    for t in range(4):
        assert mask_points(everything, t) + 10 == 162
    assert mask_points(everything, -1) + 10 == 130
    assert mask_points(0xFF, -1) == 30  # one plain suit
    assert mask_points(0xFF, 0) == 62  # the trump suit


def test_action_names_r9():
    """R9: 0-31 cards, 32 pass, 33-36 hokum S H D C, 37 sun, 38-41 double three four gahwa."""
    assert NUM_ACTIONS == 42
    assert action_name(0) == "7S" and action_name(31) == "AC"
    assert [action_name(a) for a in range(32, 42)] == [
        "pass",
        "hokum_S",
        "hokum_H",
        "hokum_D",
        "hokum_C",
        "sun",
        "double",
        "three",
        "four",
        "gahwa",
    ]
    with pytest.raises(ValueError):
        action_name(42)
