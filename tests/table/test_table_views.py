"""The hand's display order (``table.views.suit_order``): trump first, then the colours alternating
as well as the suits held allow, checked against every ordering of every set of suits; and the
public view a spectator of a listed table gets (``table.views.public_message``)."""

from __future__ import annotations

import itertools
import random

from baloot_env import HandState, random_deal
from baloot_env.match import MatchContext
from table.views import RED_SUITS, public_message, suit_order


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


def test_the_public_view_shows_no_hand_and_a_project_or_the_baloot_only_once_the_table_knows_it():
    """Random hands to the end: at every step no cards in hand, no legal actions, and a seat's
    projects (R6.2) and the baloot (R6.5) exactly when they are public; both cases are met."""
    rng = random.Random(3)
    met = {"hidden project": 0, "public project": 0, "announced baloot": 0}
    for _ in range(150):
        state = HandState(random_deal(rng))
        while state.to_act >= 0:
            m = public_message(state, MatchContext())
            assert m["seat"] is None and m["hand"] == [] and m["legal"] == []
            for s in range(4):
                declared = [p.to_dict() for p in state.projects[s]]
                public = state.projects_public(s)
                assert m["projects"][s] == (declared if public else [])
                if declared:
                    met["public project" if public else "hidden project"] += 1
            announced = state.baloot_seat >= 0 and state.baloot_announced
            assert m["baloot_seat"] == (state.baloot_seat if announced else -1)
            met["announced baloot"] += announced
            state.apply(rng.choice(state.legal_actions()))
    assert all(met.values()), met
