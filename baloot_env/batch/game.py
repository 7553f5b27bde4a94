"""``BatchGame``: N games in lockstep over the kernels, with preallocated outputs.

This is the Python face of the batched core: it owns the arrays (``BatchState``,
``BatchResults``, the observation and mask buffers), turns a ``RuleConfig`` into switches, checks
actions before anything changes, and reads single games back in the engine's forms (``Deal``,
R11.4 and R11.5 dicts) for tests and tools.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from baloot_env.actions import NUM_ACTIONS, action_name
from baloot_env.batch import core
from baloot_env.batch.deal import seed_stream
from baloot_env.batch.match import reset_games
from baloot_env.batch.results import hand_result_info, match_result_info
from baloot_env.batch.state import (
    DEAL,
    DEAL_HANDS,
    DEAL_ROW,
    DEAL_STOCK,
    DEAL_TURNED,
    DEALER,
    DONE,
    FIRST_HAND_SIZE,
    PHASE,
    QUEUE_LEN,
    TO_ACT,
    BatchResults,
    BatchState,
    new_results,
    new_state,
    payoff,
    rule_switches,
)
from baloot_env.cards import NUM_CARDS, NUM_SEATS
from baloot_env.deal import Deal, parse_deal
from baloot_env.errors import IllegalActionError
from baloot_env.hand import PHASES
from baloot_env.observation import OBS_SIZE
from baloot_env.rewards import Reward
from baloot_env.rules import RuleConfig


def deal_row(deal: Deal | dict) -> np.ndarray:
    """A deal (R2.4) as the int8[33] row the kernels read: 32 cards as ``random_deal`` lays them
    out (hands, turned card, stock), then the dealer."""
    d = parse_deal(deal)
    cards = [c for h in d.hands for c in h] + [d.turned, *d.stock]
    return np.array([*cards, d.dealer], dtype=np.int8)


def deal_queue(deals: Sequence[Sequence[Deal | dict]]) -> tuple[np.ndarray, np.ndarray]:
    """Per game, the deals to play first: (int8[N, K, 33] rows, int32[N] counts)."""
    k = max((len(ds) for ds in deals), default=0)
    rows = np.zeros((len(deals), k, DEAL_ROW), dtype=np.int8)
    counts = np.zeros(len(deals), dtype=np.int32)
    for g, ds in enumerate(deals):
        for i, d in enumerate(ds):
            rows[g, i] = deal_row(d)
        counts[g] = len(ds)
    return rows, counts


class BatchGame:
    """N games of Baloot in lockstep (the readable engine, ``HandState``/``MatchState``, is the
    reference; ``tests/baloot_env/test_batch_core.py`` proves the two equal step by step).

    Args:
        num_games: N.
        rules: the variants (V1-V9); default RULES.md.
        episode: "hand" (one deal) or "match" (R8).
        seed: seeds every game's deal stream; game g's deals depend on (seed, g) only.
        reward: how teams are paid (``baloot_env.rewards.Reward``, or its mode: "diff", "points",
            "win", with the default scale and match bonus).
        auto_reset: a finished hand deals the next one (or a new episode) within the same step;
            off, a finished game waits in the done phase until ``advance_finished``.
        deals: per game, deals to play before its random stream (R11.2).
        dealers: "given" (a queued deal keeps its dealer) or "rotate" (after a match's first
            deal, the rotation's, R2.1), as ``driver.DealSource``.
    """

    def __init__(
        self,
        num_games: int,
        rules: RuleConfig | None = None,
        episode: str = "hand",
        seed: int = 0,
        reward: Reward | str = "diff",
        auto_reset: bool = True,
        deals: Sequence[Sequence[Deal | dict]] | None = None,
        dealers: str = "given",
    ):
        if num_games < 1:
            raise ValueError(f"num_games must be at least 1, got {num_games}")
        self.rules = rules or RuleConfig()
        self.episode = episode
        self.auto_reset = auto_reset
        self.reward = reward if isinstance(reward, Reward) else Reward(reward)
        self.switches = rule_switches(self.rules, episode, self.reward.mode, auto_reset, dealers)
        self.payoff = payoff(float(self.reward.scale), float(self.reward.match_bonus))
        queue, counts = (None, None)
        if deals is not None:
            if len(deals) != num_games:
                raise ValueError(f"deals must hold one list of deals per game ({num_games}), got {len(deals)}")
            queue, counts = deal_queue(deals)
        self.state: BatchState = new_state(num_games, 0 if queue is None else queue.shape[1])
        if queue is not None:
            self.state.queue[:] = queue
            self.state.games[:, QUEUE_LEN] = counts
        self.results: BatchResults = new_results(num_games)
        self.obs = np.zeros((num_games, OBS_SIZE), dtype=np.float32)
        self.masks = np.zeros((num_games, NUM_ACTIONS), dtype=np.int8)
        self._acting = np.full(num_games, -1, dtype=np.int8)
        self.reset(seed)

    @property
    def num_games(self) -> int:
        return self.state.games.shape[0]

    @property
    def to_act(self) -> np.ndarray:
        """int64[N] view: each game's seat to act (-1 when its hand is over without automatic reset)."""
        return self.state.games[:, TO_ACT]

    def reset(self, seed: int | None = None) -> None:
        """Every game starts a new episode; ``seed`` restarts the deal streams, None continues them.
        Queued deals are played again from the first."""
        if seed is not None and seed < 0:
            raise ValueError(f"seed must be >= 0, got {seed}")
        st = self.state
        reset_games(st.games, st.rng, st.queue, self.switches, 0 if seed is None else seed, seed is not None)

    def observe(self, seats: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Fill and return ``(self.obs, self.masks)``: for each game the observation (float32[N,
        OBS_SIZE], ``encode``'s layout) and mask (int8[N, 42]) of the seat to act, or of
        ``seats[g]`` where given (-1: the seat to act)."""
        chosen = self._acting if seats is None else np.asarray(seats, dtype=np.int8)
        core.observe(self.state.games, self.switches, chosen, self.obs, self.masks)
        return self.obs, self.masks

    def legal_masks(self) -> np.ndarray:
        """Fill and return ``self.masks`` with every game's legal actions (R9)."""
        core.legal_masks(self.state.games, self.masks)
        return self.masks

    def step(self, actions: np.ndarray) -> BatchResults:
        """Apply one action per game (-1 for a game whose hand is over); returns ``self.results``.

        Raises:
            IllegalActionError: an action is not legal; nothing has changed.
        """
        acts = np.ascontiguousarray(actions, dtype=np.int64)
        if acts.shape != (self.num_games,):
            raise ValueError(f"actions must have shape ({self.num_games},), got {acts.shape}")
        st, res = self.state, self.results
        bad = core.step(st.games, st.rng, st.queue, res.table, res.reward, self.switches, self.payoff, acts)
        if bad >= 0:
            raise self._illegal(bad, int(acts[bad]))
        return self.results

    def random_steps(self, steps: int, rng: np.ndarray) -> tuple[int, int]:
        """``steps`` lockstep steps with uniform legal actions drawn in the kernel from ``rng``
        (uint64[N] streams, e.g. ``seed_streams``); returns (decisions, hands finished)."""
        st, res = self.state, self.results
        d, h = core.random_steps(
            st.games, st.rng, st.queue, res.table, res.reward, self.switches, self.payoff, rng, steps
        )
        return int(d), int(h)

    def advance_finished(self) -> None:
        """Without automatic reset: deal the next hand of every game whose hand is over."""
        st = self.state
        core.advance_finished(st.games, st.rng, st.queue, self.switches)

    # ------------------------------------------------------------------ single games, engine forms
    def deal(self, g: int) -> Deal:
        """Game g's current deal as the engine's ``Deal`` (R2.4)."""
        row = self.state.games[g]
        cards = [int(c) for c in row[DEAL : DEAL + NUM_CARDS]]
        first = [
            cards[DEAL_HANDS + FIRST_HAND_SIZE * s : DEAL_HANDS + FIRST_HAND_SIZE * (s + 1)] for s in range(NUM_SEATS)
        ]
        return Deal(int(row[DEALER]), tuple(tuple(h) for h in first), cards[DEAL_TURNED], tuple(cards[DEAL_STOCK:]))

    def hand_result(self, g: int) -> dict[str, Any]:
        """Game g's last hand result, as ``HandResult.to_info()`` (R11.4)."""
        return hand_result_info(self.results, g)

    def match_result(self, g: int) -> dict[str, Any]:
        """Game g's last match result, as ``MatchResult.to_info()`` (R11.5)."""
        return match_result_info(self.results, g)

    def _illegal(self, g: int, action: int) -> IllegalActionError:
        row = self.state.games[g]
        if row[PHASE] == DONE:
            return IllegalActionError(f"game {g}: action {action!r}: the hand is over, the game takes -1")
        m = core.legal_mask(self.state.games, g)
        legal = [action_name(a) for a in range(NUM_ACTIONS) if m >> a & 1]
        what = action_name(action) if 0 <= action < NUM_ACTIONS else repr(action)
        return IllegalActionError(
            f"game {g}: seat {int(row[TO_ACT])} may not play {what} ({action!r}) in the "
            f"{PHASES[int(row[PHASE])]} phase; legal: {legal}"
        )


def seed_streams(seed: int, num_games: int) -> np.ndarray:
    """uint64[N] random streams, game g's from (seed, g) (for ``random_steps`` and ``sample_uniform``)."""

    return np.array([seed_stream(seed, g) for g in range(num_games)], dtype=np.uint64)


__all__ = ["BatchGame", "deal_queue", "deal_row", "seed_streams"]
