"""Sampling the hidden cards: worlds consistent with everything one seat knows.

The engine's one sampler: the search player (``agents.search_player``) draws its worlds here,
and so does the OpenSpiel game (``baloot_env.spiel``: ``resample_from_infostate``). Standard
library only, like the rest of the engine.

A *world* gives every other seat a holding: the cards it has now. It must agree with what the
seat may know from a ``PlayerView`` and nothing else:

- its own hand and every card played (R5), so the *unseen* cards are the rest;
- the number of cards each seat holds (8 after the deal, R2.3, less what it has played);
- the turned card, which the caller took (R2.3), while the caller has not played it;
- voids shown by failing to follow, and trumps a seat cannot hold because it failed an
  overtrump duty (R5.2, R5.4: ``view.voids``, ``view.no_trumps``);
- public projects (R6.2): their cards are in that seat's 8-card hand, and the seat declared
  exactly those projects (R6.1), so its 8 cards hold no other project;
- an announced baloot (R6.5): both cards are then played, so it is already in ``played_by``.
  An unannounced baloot is not public and is not used (the seat's own baloot it knows).

**Method (exact and uniform).** All constraints but the project one are *per seat per card*:
a seat can or cannot hold a card, some cards are fixed to a seat, and each seat holds a known
number of cards. The free unseen cards fall into at most seven *classes* by the set of seats
that may hold them; cards of one class are interchangeable. A deal is then a split of each
class's count among its seats, times the multinomial number of ways to pick the cards.
``WorldSampler`` counts every split exactly by dynamic programming over the classes (state:
cards given so far to two of the three seats; the third gets the rest), samples a split with
probability proportional to its number of deals, and deals each class's cards by a uniform
shuffle. This is uniform over all deals meeting the per-card constraints.

The project constraint (exactly the declared projects, R6.1) is a property of whole 8-card
hands. It is enforced by rejection: a world whose public-project seats would declare other
projects is drawn again. Rejection from a uniform distribution keeps it uniform on the accepted
set. After ``max_tries`` rejections in a row (it has not been seen in the tests) the last world
is used anyway and counted in ``fallbacks``; it still meets every per-card constraint.

Bidding (R3) has hidden cards of another kind (the other seats' first 5 cards and the stock),
sampled by ``sample_bidding_deal`` uniformly: nothing has been shown yet.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from math import comb
from typing import cast

from baloot_env.cards import ALL_CARDS_MASK, SUITS_CARDS, cards_of, mask_of
from baloot_env.deal import FIRST_HAND_SIZE, SECOND_SHARE, Deal
from baloot_env.projects import declare_projects
from baloot_env.scoring import HOKUM
from baloot_env.seats import NUM_SEATS
from baloot_env.view import PlayerView

HAND_SIZE_AFTER_DEAL = FIRST_HAND_SIZE + SECOND_SHARE  # R2.3
_VOID_MASK = SUITS_CARDS


class InconsistentViewError(ValueError):
    """No deal of the unseen cards agrees with the view (a bug in the view or the caller)."""


def _multinomial(n: int, parts: tuple[int, ...]) -> int:
    out, left = 1, n
    for k in parts:
        out *= comb(left, k)
        left -= k
    return out


class WorldSampler:
    """Uniform sampler of the other seats' current holdings for one ``PlayerView``.

    Build it once per decision (the counting is done here), then call ``sample(rng)`` for each
    world. ``sample`` returns a list of four masks: the view's own hand for its seat and a
    sampled holding for every other seat.

    Attributes:
        seat: the observing seat.
        counts: cards each seat holds now.
        fixed: per seat, cards known to be in its hand (turned card, public project cards).
        allowed: per seat, the cards it may hold (fixed ones included).
        total: the number of deals meeting the per-card constraints (exact).
        fallbacks: worlds used after ``max_tries`` project rejections (see module docstring).
    """

    def __init__(
        self, view: PlayerView, projects: bool | None = None, four_aces_hokum: str | None = None, max_tries: int = 200
    ) -> None:
        """Count the consistent deals for ``view`` (play or doubling phase, after R2.3).

        Args:
            view: the seat's ``PlayerView``; only its public fields are read.
            projects: the V2 switch (R6.6: with projects off nobody declares any); None: the
                view's ``rules``.
            four_aces_hokum: the V7 switch, needed to recompute declarations (R6.1); None: the
                view's ``rules``.
            max_tries: rejections allowed per world for the project constraint.

        Raises:
            InconsistentViewError: no deal fits the view.
        """
        if projects is None:
            projects = view.rules.projects
        if four_aces_hokum is None:
            four_aces_hokum = view.rules.four_aces_hokum
        self.seat = seat = view.seat
        self.four_aces = four_aces_hokum
        self.view = view
        self.max_tries = max_tries
        self.fallbacks = 0
        self.tries = 0
        played = 0
        for m in view.played_by:
            played |= m
        unseen = ALL_CARDS_MASK & ~played & ~view.hand
        self.others = [s for s in range(NUM_SEATS) if s != seat]
        dealt = view.full_hand != 0  # after R2.3 every seat holds 8 cards minus those played
        if not dealt:
            raise InconsistentViewError("WorldSampler works after the deal (R2.3); use sample_bidding_deal before it")
        self.counts = [HAND_SIZE_AFTER_DEAL - view.played_by[s].bit_count() for s in range(NUM_SEATS)]
        fixed = self._fixed(unseen)
        # R6.1, R6.2: seats whose declared projects are public are checked against them
        self.project_seats = [
            s for s in self.others if projects and view.contract is not None and self._projects_public(s)
        ]
        all_fixed = 0
        for s in self.others:
            if fixed[s] & all_fixed:
                raise InconsistentViewError(f"card fixed to two seats in the view of seat {seat}")
            all_fixed |= fixed[s]
        free = unseen & ~all_fixed
        self.allowed = [0] * NUM_SEATS
        for s in self.others:
            # R5.2, R5.4: suits shown void and trumps shown missing
            self.allowed[s] = (free & ~_VOID_MASK[view.voids[s]] & ~view.no_trumps[s]) | fixed[s]
            if fixed[s] & (_VOID_MASK[view.voids[s]] | view.no_trumps[s]):
                raise InconsistentViewError(f"seat {s} holds a fixed card it has shown it lacks")
        self.fixed = fixed
        self.need = [self.counts[s] - fixed[s].bit_count() for s in range(NUM_SEATS)]
        self.classes = self._classes(free)
        if sum(self.need[s] for s in self.others) != free.bit_count() or min(self.need[s] for s in self.others) < 0:
            raise InconsistentViewError(f"hand sizes do not add up in the view of seat {seat}")
        self._count()

    def _classes(self, free: int) -> list[tuple[tuple[bool, bool, bool], list[int]]]:
        """The free cards in classes by the set of other seats that may hold them (sorted)."""
        classes: dict[tuple[bool, bool, bool], list[int]] = {}
        for c in cards_of(free):
            key = cast(tuple[bool, bool, bool], tuple(bool(self.allowed[s] >> c & 1) for s in self.others))
            if not any(key):
                raise InconsistentViewError(f"card {c} can be held by no seat in the view of seat {self.seat}")
            classes.setdefault(key, []).append(c)
        return sorted(classes.items())

    def _fixed(self, unseen: int) -> list[int]:
        """Per seat, the unseen cards known to be in its hand: the turned card the caller took
        (R2.3) and the unplayed cards of public projects (R6.2)."""
        view = self.view
        fixed = [0] * NUM_SEATS
        turned = view.turned
        if view.caller >= 0 and view.caller != self.seat and unseen >> turned & 1:
            fixed[view.caller] |= 1 << turned
        for s in self.others:
            if view.projects[s]:
                fixed[s] |= mask_of(c for p in view.projects[s] for c in p.cards) & unseen
        return fixed

    def _projects_public(self, s: int) -> bool:
        """R6.2: public once the seat has played to the first trick."""
        v = self.view
        return bool(v.tricks) or s in v.trick_seats

    # ------------------------------------------------------------------ counting
    def _count(self) -> None:
        """Dynamic programme over classes: ways[k][(a0, a1)] = deals of classes < k."""
        n0, n1 = self.need[self.others[0]], self.need[self.others[1]]
        ways: list[dict[tuple[int, int], int]] = [{(0, 0): 1}]
        done = 0
        for key, cards in self.classes:
            n = len(cards)
            nxt: dict[tuple[int, int], int] = {}
            for (a0, a1), w in ways[-1].items():
                for x0 in range(n + 1) if key[0] else (0,):
                    if a0 + x0 > n0:
                        break
                    for x1 in range(n - x0 + 1) if key[1] else (0,):
                        if a1 + x1 > n1:
                            break
                        x2 = n - x0 - x1
                        if x2 and not key[2]:
                            continue
                        if done + n - (a0 + x0) - (a1 + x1) > self.need[self.others[2]]:
                            continue
                        k = (a0 + x0, a1 + x1)
                        nxt[k] = nxt.get(k, 0) + w * _multinomial(n, (x0, x1, x2))
            ways.append(nxt)
            done += n
        self.ways = ways
        self._tables: dict[tuple[int, int, int], tuple[list[int], list[tuple[int, int]]]] = {}
        self.total = ways[-1].get((n0, n1), 0)
        if self.total == 0:
            raise InconsistentViewError(f"no deal of the unseen cards fits the view of seat {self.seat}")

    # ------------------------------------------------------------------ sampling
    def _split_table(self, k: int, a0: int, a1: int) -> tuple[list[int], list[tuple[int, int]]]:
        """The splits of class ``k - 1`` when the first two other seats still need ``a0`` and
        ``a1`` cards from classes < k: each (x0, x1) with its cumulative number of deals, in the
        order the sampler tries them."""
        key, cards = self.classes[k - 1]
        n = len(cards)
        prev = self.ways[k - 1]
        cumulative: list[int] = []
        splits: list[tuple[int, int]] = []
        total = 0
        for x0 in range(n + 1) if key[0] else (0,):
            if x0 > a0:
                break
            for x1 in range(n - x0 + 1) if key[1] else (0,):
                if x1 > a1:
                    break
                x2 = n - x0 - x1
                if x2 and not key[2]:
                    continue
                w = prev.get((a0 - x0, a1 - x1), 0)
                if not w:
                    continue
                total += w * _multinomial(n, (x0, x1, x2))
                cumulative.append(total)
                splits.append((x0, x1))
        return cumulative, splits

    def _sample_once(self, rng: random.Random) -> list[int]:
        o = self.others
        hands = [0] * NUM_SEATS
        hands[self.seat] = self.view.hand
        for s in o:
            hands[s] = self.fixed[s]
        a0, a1 = self.need[o[0]], self.need[o[1]]
        tables = self._tables
        for k in range(len(self.classes), 0, -1):
            cards = self.classes[k - 1][1]
            table = tables.get((k, a0, a1))
            if table is None:
                table = tables[(k, a0, a1)] = self._split_table(k, a0, a1)
            # A split with probability proportional to its deals: the first whose cumulative
            # count exceeds a uniform draw below the total (the same draw as one subtraction loop).
            r = rng.randrange(self.ways[k][(a0, a1)])
            x0, x1 = table[1][bisect_right(table[0], r)]
            shuffled = cards[:]
            rng.shuffle(shuffled)
            hands[o[0]] |= mask_of(shuffled[:x0])
            hands[o[1]] |= mask_of(shuffled[x0 : x0 + x1])
            hands[o[2]] |= mask_of(shuffled[x0 + x1 :])
            a0 -= x0
            a1 -= x1
        return hands

    def projects_agree(self, hands: list[int]) -> bool:
        """R6.1/R6.2: each public-project seat would declare exactly its public projects."""
        v = self.view
        hokum = v.contract == HOKUM
        for s in self.project_seats:
            full = hands[s] | v.played_by[s]
            if declare_projects(full, hokum, self.four_aces) != list(v.projects[s]):
                return False
        return True

    def sample(self, rng: random.Random) -> list[int]:
        """One world: the current holdings of all four seats, uniform over consistent deals."""
        hands = self._sample_once(rng)
        if not self.project_seats:
            return hands
        for _ in range(self.max_tries):
            self.tries += 1
            if self.projects_agree(hands):
                return hands
            hands = self._sample_once(rng)
        self.fallbacks += 1
        return hands


def sample_bidding_deal(view: PlayerView, rng: random.Random) -> Deal:
    """A deal consistent with a bidding-phase view (R2.2, R3): own 5 cards and the turned card.

    The other seats' 5 cards and the stock order are a uniform shuffle of the 26 unseen cards.
    """
    seat = view.seat
    unseen = cards_of(ALL_CARDS_MASK & ~view.hand & ~(1 << view.turned))
    rng.shuffle(unseen)
    hands = []
    pos = 0
    for s in range(NUM_SEATS):
        if s == seat:
            hands.append(tuple(cards_of(view.hand)))
        else:
            hands.append(tuple(unseen[pos : pos + FIRST_HAND_SIZE]))
            pos += FIRST_HAND_SIZE
    return Deal(view.dealer, tuple(hands), view.turned, tuple(unseen[pos:]))
