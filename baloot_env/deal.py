"""Deals as values (R2.4): parsed, validated and generated outside the engine.

A deal is ``{"dealer": 0-3, "hands": [[5 cards] x 4], "turned": card, "stock": [11 cards]}``;
cards may be ids or names. Random deals come from an injected ``numpy.random.Generator`` or
``random.Random`` so that every game flows from a seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from baloot_env.cards import NUM_CARDS, card_name, parse_card
from baloot_env.errors import DealError
from baloot_env.seats import NUM_SEATS, next_seat

FIRST_HAND_SIZE = 5  # R2.2
STOCK_SIZE = 11  # R2.2
SECOND_SHARE = 3  # R2.3: cards each seat gets from the stock (the caller: the turned card and 2)


@dataclass(frozen=True)
class Deal:
    """One validated deal (R2.4). Cards are ids; ``hands[seat]`` are the 5 first cards."""

    dealer: int
    hands: tuple[tuple[int, ...], ...]
    turned: int
    stock: tuple[int, ...]

    def to_dict(self, names: bool = False) -> dict[str, Any]:
        """The R2.4 JSON form, with card ids (default) or names."""
        f = card_name if names else int
        return {
            "dealer": self.dealer,
            "hands": [[f(c) for c in h] for h in self.hands],
            "turned": f(self.turned),
            "stock": [f(c) for c in self.stock],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Deal:
        """Parse and validate an R2.4 deal; raises DealError saying exactly what is wrong."""
        return parse_deal(data)


def stock_shares(deal: Deal, caller: int) -> list[tuple[int, ...]]:
    """The cards each seat receives once the contract is settled (R2.3).

    The stock is dealt from the dealer's right, in play order, three cards a seat; the caller
    takes the turned card and two from the stock.
    """
    shares: list[tuple[int, ...]] = [(), (), (), ()]
    pos = 0
    for i in range(1, NUM_SEATS + 1):
        seat = next_seat(deal.dealer, i)
        if seat == caller:
            shares[seat] = (deal.turned, *deal.stock[pos : pos + SECOND_SHARE - 1])
            pos += SECOND_SHARE - 1
        else:
            shares[seat] = deal.stock[pos : pos + SECOND_SHARE]
            pos += SECOND_SHARE
    return shares


def _parse_cards(value: Any, where: str) -> list[int]:
    if not isinstance(value, (list, tuple)):
        raise DealError(f"deal {where} must be a list of cards, got {type(value).__name__}")
    out: list[int] = []
    for i, v in enumerate(value):
        try:
            out.append(parse_card(v))
        except ValueError as e:
            raise DealError(f"deal {where}[{i}]: {e}") from None
    return out


def parse_deal(data: Any) -> Deal:
    """Validate an R2.4 deal (dict or Deal) and return a Deal.

    Raises:
        DealError: on a missing key, a bad dealer, wrong counts, an unknown card, or a card
            that is duplicated or missing; the message names the problem.
    """
    if isinstance(data, Deal):
        return data
    if not isinstance(data, dict):
        raise DealError(f"a deal must be a mapping with dealer, hands, turned, stock; got {type(data).__name__}")
    missing = [k for k in ("dealer", "hands", "turned", "stock") if k not in data]
    if missing:
        raise DealError(f"deal is missing {missing}")
    extra = sorted(set(data) - {"dealer", "hands", "turned", "stock"})
    if extra:
        raise DealError(f"deal has unknown keys {extra}")
    dealer = data["dealer"]
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < NUM_SEATS:
        raise DealError(f"deal dealer must be a seat 0-3, got {dealer!r}")
    hands_raw = data["hands"]
    if not isinstance(hands_raw, (list, tuple)) or len(hands_raw) != NUM_SEATS:
        n = len(hands_raw) if isinstance(hands_raw, (list, tuple)) else type(hands_raw).__name__
        raise DealError(f"deal hands must be a list of 4 hands, got {n}")
    hands: list[tuple[int, ...]] = []
    for seat, h in enumerate(hands_raw):
        cards = _parse_cards(h, f"hands[{seat}]")
        if len(cards) != FIRST_HAND_SIZE:
            raise DealError(f"deal hands[{seat}] must hold 5 cards (R2.2), got {len(cards)}")
        hands.append(tuple(cards))
    try:
        turned = parse_card(data["turned"])
    except ValueError as e:
        raise DealError(f"deal turned: {e}") from None
    stock = _parse_cards(data["stock"], "stock")
    if len(stock) != STOCK_SIZE:
        raise DealError(f"deal stock must hold 11 cards (R2.2), got {len(stock)}")
    seen: dict[int, str] = {}
    places = [(c, f"hands[{s}]") for s, h in enumerate(hands) for c in h] + [(turned, "turned")]
    places += [(c, "stock") for c in stock]
    for c, where in places:
        if c in seen:
            raise DealError(f"card {card_name(c)} appears twice in the deal ({seen[c]} and {where})")
        seen[c] = where
    absent = [card_name(c) for c in range(NUM_CARDS) if c not in seen]
    if absent:
        raise DealError(f"deal is missing cards {absent}")
    return Deal(dealer=dealer, hands=tuple(hands), turned=turned, stock=tuple(stock))


def random_deal(rng: Any, dealer: int | None = None) -> Deal:
    """A uniformly shuffled deal from ``rng`` (numpy Generator or random.Random).

    The dealer is drawn from the same rng when not given (R2.1).
    """
    if hasattr(rng, "permutation"):  # numpy Generator
        order = [int(c) for c in rng.permutation(NUM_CARDS)]
        if dealer is None:
            dealer = int(rng.integers(NUM_SEATS))
    elif isinstance(rng, random.Random):
        order = list(range(NUM_CARDS))
        rng.shuffle(order)
        if dealer is None:
            dealer = rng.randrange(NUM_SEATS)
    else:
        raise TypeError(f"rng must be a numpy Generator or random.Random, got {type(rng).__name__}")
    return deal_of_deck(order, dealer)


def deal_of_deck(order: list[int], dealer: int) -> Deal:
    """The deal of a shuffled deck (``order``: all 32 cards, top first), dealt by ``dealer``:
    five cards to each seat in turn, the 21st card turned, the other 11 the stock (R2.2)."""
    first = FIRST_HAND_SIZE
    hands = tuple(tuple(order[first * s : first * (s + 1)]) for s in range(NUM_SEATS))
    turned = first * NUM_SEATS  # R2.2: the 21st card is turned, the other 11 are the stock
    return Deal(dealer=dealer, hands=hands, turned=order[turned], stock=tuple(order[turned + 1 :]))


def deck_of_deal(deal: Deal) -> list[int]:
    """The shuffled deck that ``deal_of_deck`` deals into ``deal`` (its inverse)."""
    return [c for hand in deal.hands for c in hand] + [deal.turned, *deal.stock]
