"""The hand's display order (``table.views.suit_order``): trump first, then the colours alternating
as well as the suits held allow, checked against every ordering of every set of suits."""

from __future__ import annotations

import itertools

from table.views import RED_SUITS, suit_order


def _same_colour_neighbours(order: list[int]) -> int:
    return sum((a in RED_SUITS) == (b in RED_SUITS) for a, b in itertools.pairwise(order))


def test_the_suits_alternate_colours_as_well_as_any_order_with_trump_first_could():
    checked = 0
    for n in range(1, 5):
        for present in itertools.combinations(range(4), n):
            for trump in (-1, 0, 1, 2, 3):
                order = suit_order(set(present), trump)
                assert sorted(order) == sorted(present)
                if trump in present:
                    assert order[0] == trump
                candidates = [list(p) for p in itertools.permutations(present) if trump not in present or p[0] == trump]
                best = min(_same_colour_neighbours(p) for p in candidates)
                assert _same_colour_neighbours(order) == best, (present, trump, order)
                checked += 1
    assert checked == 15 * 5
