"""Searched calls (issue 12): every legal bid valued by playing sampled deals to the end.

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
from functools import lru_cache

import numpy as np

from agents.base import PlayerView
from agents.rule_based.batch_heuristic.view import heuristic_bars
from agents.search_player.batch_calls import FIRST, call_sums
from baloot_env.batch.convert import state_row
from baloot_env.batch.state import payoff, rule_switches
from baloot_env.cards import ALL_CARDS_MASK, NUM_SEATS, cards_of
from baloot_env.deal import Deal
from baloot_env.hand import BIDDING, HandState
from baloot_env.rules import RuleConfig
from baloot_env.seats import team_of


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
    legal = np.array(cards_of(view.legal_mask), dtype=np.int64)  # action ids, as card ids are bits
    unseen = np.array(cards_of(ALL_CARDS_MASK & ~view.hand & ~(1 << view.turned)), dtype=np.int64)
    own = np.array(cards_of(view.hand), dtype=np.int64)
    observed = np.array([(seat, action) for _, seat, action in view.bids], dtype=np.int64).reshape(-1, 2)
    gen = np.random.default_rng(rng.getrandbits(64))
    template: np.ndarray | None = None
    sums = np.zeros(len(legal), dtype=np.float64)
    accepted = 0
    for conditioned in (condition, False) if condition else (False,):
        for _ in range(max_batches if conditioned else 1):
            deals = _deals(gen, worlds, me, own, unseen, view.turned)
            if template is None:
                template = _start_row(view, deals[0])
            accepted += call_sums(
                template, deals, observed, legal, _switches(view.rules), _PAY, _BARS,
                team_of(me), me, conditioned, worlds - accepted, sums,
            )  # fmt: skip
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
    return state_row(HandState(d, view.rules, tuple(view.match_score)))
