"""Searched calls: every legal bid valued by playing sampled deals to the end.

The search player's own choice of bid (R3) when ``SearchConfig.calls`` is ``"searched"``: the
seat knows its five cards and the turned card (R2.2); the other 26 cards are shuffled into the
other seats' first hands and the stock, uniformly, and each such deal is played from the
hand's start through the calls made so far and then, for every legal call, to the hand's end
by the ``heuristic`` for every seat (``batch_calls.call_sums``, on the batched core). The call
with the best mean value (own team's hand score minus the other's, R7) is made.

Conditioning on the calls (``condition``): a deal in which the heuristic would not have made the
other seats' calls so far is rejected, so a partner's pass or an opponent's hokum says what it
says about their cards (under the model that they bid by the heuristic's bars). Candidate deals
are drawn in batches until ``worlds`` are accepted or ``max_batches`` batches are spent; if
none is accepted (the others do not bid like the heuristic), the deals are used unconditioned.

Every random draw comes from the ``random.Random`` passed in (the agent's seeded generator).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from agents.rule_based.batch_heuristic.tables import heuristic_bars
from agents.search_player.batch_calls import FIRST, call_sums, calls_agree
from baloot_env.batch.convert import state_row
from baloot_env.batch.state import payoff, rule_switches
from baloot_env.batch.worlds import sample_worlds
from baloot_env.cards import ALL_CARDS_MASK, NUM_SEATS, cards_of
from baloot_env.deal import Deal
from baloot_env.hand import BIDDING, HandState
from baloot_env.rules import RuleConfig
from baloot_env.seats import team_of
from baloot_env.view import PlayerView
from baloot_env.worlds import WorldSampler


@lru_cache(maxsize=16)
def _switches(rules: RuleConfig) -> np.ndarray:
    """A hand episode without automatic reset: a finished world stays finished."""
    return rule_switches(rules, "hand", auto_reset=False)


_PAY = payoff(1.0, 0.0)  # the kernels' reward is not read: the value is the hand's score
_BARS = heuristic_bars()


def call_values(
    view: PlayerView, worlds: int, rng: random.Random, condition: bool = True, max_batches: int = 8
) -> tuple[dict[int, float], int]:
    """Mean value of every legal call in ``worlds`` sampled deals, and how many deals were used.

    Args:
        view: a bidding-phase view of the seat to act (R3).
        worlds: deals to accept.
        rng: the source of every random draw.
        condition: keep only deals in which the heuristic makes the other seats' calls so far.
        max_batches: batches of ``worlds`` candidate deals drawn before giving up conditioning.

    Raises:
        ValueError: the view is not a bidding decision of its own seat.
    """
    if view.phase != BIDDING or view.to_act != view.seat:
        raise ValueError("call_values needs the bidding-phase view of the seat to act")
    me = view.seat
    unseen = np.array(cards_of(ALL_CARDS_MASK & ~view.hand & ~(1 << view.turned)), dtype=np.int64)
    own = np.array(cards_of(view.hand), dtype=np.int64)
    observed = np.array([(seat, action) for _, seat, action in view.bids], dtype=np.int64).reshape(-1, 2)
    gen = np.random.default_rng(rng.getrandbits(64))
    return _searched(
        view, lambda: _deals(gen, worlds, me, own, unseen, view.turned), observed, worlds, condition, max_batches
    )


def _searched(
    view: PlayerView,
    draw: Callable[[], np.ndarray],
    observed: np.ndarray,
    worlds: int,
    condition: bool,
    max_batches: int,
) -> tuple[dict[int, float], int]:
    """The searched value of every legal call of ``view`` over deals from ``draw()`` (a batch of
    whole deals per call), and how many deals were used: batches are drawn until ``worlds`` are
    accepted, conditioned for up to ``max_batches`` batches, then without conditioning if none was."""
    me = view.seat
    legal = np.array(cards_of(view.legal_mask), dtype=np.int64)  # action ids: a mask's bits, as cards
    template: np.ndarray | None = None
    sums = np.zeros(len(legal), dtype=np.float64)
    accepted = 0
    for conditioned in (condition, False) if condition else (False,):
        for _ in range(max_batches if conditioned else 1):
            deals = draw()
            if template is None:
                template = _start_row(view, deals[0])
            accepted += call_sums(
                template,
                deals,
                observed,
                legal,
                _switches(view.rules),
                _PAY,
                _BARS,
                team_of(me),
                me,
                conditioned,
                worlds - accepted,
                sums,
            )
            if accepted >= worlds:
                break
        if accepted:
            break
    return {int(a): float(sums[i]) / accepted for i, a in enumerate(legal)}, accepted


def _deals(gen: np.random.Generator, n: int, me: int, own: np.ndarray, unseen: np.ndarray, turned: int) -> np.ndarray:
    """``n`` deals in the core's order: the others' first five and the stock a uniform shuffle."""
    shuffled = gen.permuted(np.tile(unseen, (n, 1)), axis=1)
    deals = np.empty((n, 32), dtype=np.int64)
    pos = 0
    for seat in range(NUM_SEATS):
        cols = slice(FIRST * seat, FIRST * seat + FIRST)
        if seat == me:
            deals[:, cols] = own
        else:
            deals[:, cols] = shuffled[:, pos : pos + FIRST]
            pos += FIRST
    deals[:, FIRST * NUM_SEATS] = turned
    deals[:, FIRST * NUM_SEATS + 1 :] = shuffled[:, pos:]
    return deals


def _start_row(view: PlayerView, deal: np.ndarray) -> np.ndarray:
    """The core row of the hand's start, before any call, with the view's dealer, rules and
    match score (the deal columns are overwritten per world by the kernel)."""
    hands = tuple(tuple(int(c) for c in deal[FIRST * s : FIRST * s + FIRST]) for s in range(NUM_SEATS))
    d = Deal(view.dealer, hands, int(deal[FIRST * NUM_SEATS]), tuple(int(c) for c in deal[FIRST * NUM_SEATS + 1 :]))
    return state_row(HandState(d, view.rules, (view.match_score[0], view.match_score[1])))


class CallFilter:
    """The worlds of a card decision (R5) that agree with the calls (``batch_calls.calls_agree``).

    The search's sampler (``sampling.WorldSampler``) draws the other seats' cards uniformly among
    those the play allows; it knows nothing of the bidding. This filter keeps a world with the
    probability that the heuristic, holding a random first five of each seat's 8 cards, makes
    the calls that were made, so a seat that passed is seen holding weaker cards and the caller
    stronger ones (the model: the other seats bid by the heuristic's bars).
    """

    def __init__(self, view: PlayerView, rng: random.Random):
        self.view = view
        self.observed = np.array([(seat, action) for _, seat, action in view.bids], dtype=np.int64).reshape(-1, 2)
        order = [c for c in range(32) if c != view.turned]
        deal = np.array(order[:20] + [view.turned] + order[20:], dtype=np.int64)
        self.template = _start_row(view, deal)  # hands overwritten per world, stock never dealt
        self.played_by = np.array(view.played_by, dtype=np.int64)
        self.stream = np.array([rng.getrandbits(64)], dtype=np.uint64)
        self.switches = _switches(view.rules)
        self.drawn = 0
        self.kept = 0

    def agree(self, worlds: np.ndarray) -> np.ndarray:
        """A bool per world (int64[W, 4] holdings): keep it."""

        ok = np.zeros(len(worlds), dtype=np.int64)
        v = self.view
        calls_agree(
            self.template,
            worlds,
            self.played_by,
            v.turned,
            v.caller,
            self.observed,
            v.seat,
            self.switches,
            _BARS,
            self.stream,
            ok,
        )
        self.drawn += len(worlds)
        self.kept += int(ok.sum())
        return ok.astype(bool)


def conditioned_worlds(sample: Callable[[], list[int]], k: int, call_filter: CallFilter, least: int) -> np.ndarray:
    """The worlds among ``k`` drawn by ``sample()`` that agree with the calls (int64[n, 4]).

    One batch of ``k`` is drawn, so a conditioned decision samples as many worlds as an
    unconditioned one and plays out fewer (a third are kept on heuristic hands); when fewer than
    ``least`` agree (the others do not bid like the heuristic) the first that do not agree are
    added up to ``least``, so the search always has worlds to play.
    """
    batch = np.array([sample() for _ in range(k)], dtype=np.int64)
    ok = call_filter.agree(batch)
    kept = batch[ok]
    if len(kept) < least:
        kept = np.concatenate([kept, batch[~ok][: least - len(kept)]])
    return np.asarray(kept, dtype=np.int64)


def deals_from_worlds(worlds: np.ndarray, view: PlayerView, gen: np.random.Generator) -> np.ndarray:
    """Whole deals (int64[W, 32], the core's order) that give each seat its world's 8 cards.

    Used once the stock is dealt (R2.3: the doubling, R4): every seat's first five are a uniform
    draw from its 8 cards (the caller's from its 8 less the turned card), and the stock is laid
    out so that R2.3's hand-out (from the dealer's right, three each, the caller two and the
    turned card) gives each seat the rest of its cards. Replaying the calls on such a deal
    rebuilds the world; the draw of the first fives is what ``condition`` tests.
    """
    n = len(worlds)
    deals = np.empty((n, 32), dtype=np.int64)
    turned, caller = view.turned, view.caller
    for w in range(n):
        stock: list[int] = []
        extras: dict[int, list[int]] = {}
        for seat in range(NUM_SEATS):
            full = int(worlds[w, seat]) | view.played_by[seat]
            if seat == caller:
                full &= ~(1 << turned)
            cards = np.array(cards_of(full), dtype=np.int64)
            gen.shuffle(cards)
            deals[w, FIRST * seat : FIRST * seat + FIRST] = cards[:FIRST]
            extras[seat] = [int(c) for c in cards[FIRST:]]
        for i in range(NUM_SEATS):
            stock += extras[(view.dealer + 1 + i) % NUM_SEATS]
        deals[w, FIRST * NUM_SEATS] = turned
        deals[w, FIRST * NUM_SEATS + 1 :] = stock
    return deals


def doubling_values(
    view: PlayerView, worlds: int, rng: random.Random, condition: bool = True, max_batches: int = 4
) -> tuple[dict[int, float], int]:
    """Mean value of every legal doubling call (R4) over sampled deals, and how many were used.

    The hidden cards come from the search's sampler (``sampling.WorldSampler``: every seat's 8
    cards, uniform among those the view allows), each world becomes a whole deal
    (``deals_from_worlds``), and ``batch_calls.call_sums`` replays every call so far (conditioned
    as ``call_values``) and plays each doubling call to the hand's end by the heuristic.

    Raises:
        ValueError: the view is not a doubling decision of its own seat.
    """

    if view.phase != "doubling" or view.to_act != view.seat:
        raise ValueError("doubling_values needs the doubling-phase view of the seat to act")
    observed = np.array(
        [(seat, action) for _, seat, action in view.bids] + [(seat, a) for seat, a in view.doubling_calls],
        dtype=np.int64,
    ).reshape(-1, 2)
    sampler = WorldSampler(view)
    gen = np.random.default_rng(rng.getrandbits(64))

    def draw() -> np.ndarray:
        held = sample_worlds(sampler, rng, worlds)  # sampler.sample's draws, compiled
        return deals_from_worlds(held, view, gen)

    return _searched(view, draw, observed, worlds, condition, max_batches)
