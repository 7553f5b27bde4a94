"""Cards, orders and points (RULES.md R1).

Cards are integers ``card = 8 * suit + rank`` (R1.2) and sets of cards are 32-bit masks
(bit ``card`` set when the card is in the set), which keeps the hot paths of the engine to a
few integer operations.
"""

from __future__ import annotations

from collections.abc import Iterable

from baloot_env.seats import NUM_SEATS as NUM_SEATS  # re-exported: cards.NUM_SEATS is public

NUM_CARDS = 32
NUM_SUITS = 4
NUM_RANKS = 8
NUM_TRICKS = 8

SUIT_NAMES = "SHDC"  # R1.2: S=0 H=1 D=2 C=3
RANK_NAMES = "789TJQKA"  # R1.2: 7=0 ... A=7 (also the run order, R1.5)
SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)

ALL_CARDS_MASK = (1 << NUM_CARDS) - 1
SUIT_MASKS = tuple(0xFF << (8 * s) for s in range(NUM_SUITS))

HOKUM_TOTAL = 16  # R7.2
SUN_TOTAL = 26  # R7.2
HOKUM_RAW_TOTAL = 162  # R1.4: the card points of a Hokum hand, last-trick bonus included
SUN_RAW_TOTAL = 130  # R1.4: the same in Sun
LAST_TRICK_BONUS = 10  # R1.4
NO_CARD = -1  # no card: an empty trick's winning card, no trump played yet, ...
NO_TRUMP = -1  # the trump suit of a Sun hand, and of a hand before its contract (R3)

# R1.3 trick strength within a suit, indexed by rank (higher is stronger).
PLAIN_STRENGTH = (0, 1, 2, 6, 3, 4, 5, 7)  # A T K Q J 9 8 7
TRUMP_STRENGTH = (0, 1, 6, 4, 7, 2, 3, 5)  # J 9 A T K Q 8 7
# R1.4 card points by rank.
PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)
TRUMP_POINTS = (0, 0, 14, 10, 20, 3, 4, 11)


def card_name(card: int) -> str:
    """Text name, rank then suit: ``7S``, ``TH``, ``JD``, ``AC`` (R1.2)."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card!r} is not in 0..31")
    return RANK_NAMES[card & 7] + SUIT_NAMES[card >> 3]


def parse_card(value: int | str) -> int:
    """Card id from an id (0-31) or a name like ``"TH"`` (R1.2); raises ValueError."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a card")
    if isinstance(value, int):
        if 0 <= value < NUM_CARDS:
            return value
        raise ValueError(f"card id {value} is not in 0..31")
    if isinstance(value, str):
        text = value.strip().upper()
        if text.startswith("10"):
            text = "T" + text[2:]
        if len(text) == 2 and text[0] in RANK_NAMES and text[1] in SUIT_NAMES:
            return 8 * SUIT_NAMES.index(text[1]) + RANK_NAMES.index(text[0])
        raise ValueError(f"{value!r} is not a card name (rank 7 8 9 T J Q K A, then suit S H D C)")
    raise ValueError(f"{value!r} is not a card (expected an id 0-31 or a name like 'TH')")


def mask_of(cards: Iterable[int]) -> int:
    """Bit mask of a collection of card ids."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """Card ids in a mask, ascending."""
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def card_points(card: int, trump: int) -> int:
    """Card points of ``card`` (R1.4); ``trump`` is the trump suit or ``NO_TRUMP`` in Sun."""
    return TRUMP_POINTS[card & 7] if card >> 3 == trump else PLAIN_POINTS[card & 7]


def strength(card: int, trump: int) -> int:
    """Trick strength within its suit (R1.3); trump ranks by the trump order."""
    return TRUMP_STRENGTH[card & 7] if card >> 3 == trump else PLAIN_STRENGTH[card & 7]


def _higher_masks(order: tuple[int, ...]) -> tuple[int, ...]:
    """For each card, the mask of cards of the same suit that beat it under ``order``."""
    out: list[int] = []
    for card in range(NUM_CARDS):
        s, r = card >> 3, card & 7
        m = 0
        for r2 in range(NUM_RANKS):
            if order[r2] > order[r]:
                m |= 1 << (8 * s + r2)
        out.append(m)
    return tuple(out)


# SUITS_CARDS[v]: every card of the suits whose bits are set in ``v`` (a seat's void bits, R5.2).
SUITS_CARDS = tuple(sum(SUIT_MASKS[s] for s in range(NUM_SUITS) if v >> s & 1) for v in range(1 << NUM_SUITS))

# HIGHER_TRUMP[c]: trumps of c's suit stronger than c when that suit is trump (R1.3).
HIGHER_TRUMP = _higher_masks(TRUMP_STRENGTH)
HIGHER_PLAIN = _higher_masks(PLAIN_STRENGTH)

# CARD_POINTS[trump][card]: card points (R1.4) with that trump suit; CARD_POINTS[NO_TRUMP] is Sun.
CARD_POINTS = tuple(tuple(card_points(c, t) for c in range(NUM_CARDS)) for t in (*range(NUM_SUITS), NO_TRUMP))

# Raw points of a whole mask, per suit byte, for plain and trump use (R1.4).
_BYTE_PLAIN = tuple(sum(PLAIN_POINTS[r] for r in range(8) if b >> r & 1) for b in range(256))
_BYTE_TRUMP = tuple(sum(TRUMP_POINTS[r] for r in range(8) if b >> r & 1) for b in range(256))


def mask_points(mask: int, trump: int) -> int:
    """Card points of every card in ``mask`` (R1.4), without the last-trick bonus."""
    total = 0
    for s in range(NUM_SUITS):
        b = (mask >> (8 * s)) & 0xFF
        total += _BYTE_TRUMP[b] if s == trump else _BYTE_PLAIN[b]
    return total
