"""The lockstep's games on the compiled core: ``CoreLockstep`` (``backend="core"``).

``baloot_env.lockstep.LockstepGames`` runs N games for one learner. With ``backend="python"``
each game is a driver ``Table``; with ``backend="core"`` (the vector env's and self-play's
default) the N games are rows of one ``baloot_env.batch.BatchGame`` and this class plays them:

- the learner's actions in every game are one kernel call, and so are the observations and
  masks of all games (``BatchGame.observe``);
- the other seats play in rounds, as in the Python loop: each round, the games whose seat to act
  is another player's are grouped by player (in order of their first game) and each group's
  actions are one call and one kernel step. A policy on arrays (``ArrayPlayer``, a policy
  bundle's ``act_arrays``; self-play's networks, all of one architecture together, through
  ``LockstepGames.array_group``) gets the observation block of its games straight from the
  core, one forward per group; an agent that offers a batched twin (``core_actions`` on
  ``CoreRows``, defined by its own class) acts through it: ``random`` chooses from the masks
  with its own generator, exactly as it chooses from a view, and ``heuristic`` runs its numba port on the rows (proven action for action
  equal to the agent); any other agent gets its ``PlayerView`` built from the engine's
  ``HandState`` rebuilt from the row (``baloot_env.core_table``);
- hands' ends are booked by the lockstep's own ``_settle`` from the core's results (R11.4,
  R11.5) turned back into the engine's ``HandResult`` and ``MatchResult``, so rewards, episode
  ends, ``episode`` infos and summaries are one piece of code for both backends.

Deals come from each game's ``driver.DealSource`` (the game's generator, as with tables): every
deal is queued in the core just before the core deals it. So the core backend plays the very
games the Python backend plays for the same seed, and the same learner actions give the same
observations, masks, rewards and infos (``tests/baloot_env/test_lockstep_core.py``).

The core runs without automatic reset: a finished hand waits in the done phase while its end is
booked (the terminal observation is read there), then the next deal is queued and dealt.
The kernels get the rows they step as gathered copies (``BatchGame``'s ``step`` moves every
game that is not done, and here only the games of one player move at a time).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from baloot_env.actions import NUM_ACTIONS
from baloot_env.batch import BatchGame, BatchResults, new_state
from baloot_env.batch import core as kernels
from baloot_env.batch.match import reset_games
from baloot_env.batch.results import hand_result_info, match_result_info
from baloot_env.batch.state import (
    DEALS_PLAYED,
    DONE,
    EPISODE_DONE,
    HAND_DONE,
    HANDS,
    HANDS_SCORED,
    MATCH_SCORE,
    PHASE,
    QUEUE_LEN,
    QUEUE_POS,
    TO_ACT,
)
from baloot_env.cards import NUM_SEATS
from baloot_env.core_table import CoreTable, hand_result, history_pairs
from baloot_env.deal import Deal
from baloot_env.driver import Outcome
from baloot_env.match import MatchResult
from baloot_env.observation import OBS_SIZE, hidden_hands
from baloot_env.players import AgentPlayer, ArrayPlayer, Seat
from baloot_env.view import PlayerView

if TYPE_CHECKING:
    from baloot_env.hand import HandState
    from baloot_env.lockstep import Game, LockstepGames
    from baloot_env.match import MatchState

__all__ = ["MAX_HISTORY", "CoreLockstep", "deal_row"]

# Calls and cards of one hand: at most 8 bids (R3), 10 doubling calls (R4: a pass and a raise a
# level, then two passes) and 32 cards.
MAX_HISTORY = 64


def deal_row(deal: Deal) -> list[int]:
    """A deal (R2.4) as the core's queue row: the cards as ``random_deal`` lays them out, the dealer."""
    return [c for h in deal.hands for c in h] + [deal.turned, *deal.stock, deal.dealer]


class CoreRows:
    """The games an agent's batched twin acts in, at their seats to act: what a twin may read.

    An agent offers a twin by defining ``core_actions(rows: CoreRows) -> actions`` (one legal
    action a row, the ones its ``act`` would choose from the same views; ``RandomAgent`` on the
    masks, ``HeuristicAgent`` as numba kernels on the rows). ``games`` and ``rows`` are for
    kernels that read the core's game rows; ``masks()`` gives the legal masks.
    """

    __slots__ = ("games", "rows", "_observe")

    def __init__(self, games: np.ndarray, rows: np.ndarray, observe: Any):
        self.games = games  # the core's game table (every game; ``rows`` says which act)
        self.rows = rows
        self._observe = observe

    def __len__(self) -> int:
        return len(self.rows)

    def masks(self) -> np.ndarray:
        """The legal masks (int8, one row per game in ``rows``, R9)."""
        masks: np.ndarray = self._observe(self.rows)[1]
        return masks


class CoreLockstep:
    """The N games of ``owner`` (a ``LockstepGames``) on the batched core (module docstring)."""

    def __init__(self, owner: LockstepGames):
        self.owner = owner
        n = owner.n_games
        self.core = BatchGame(n, owner.rules, owner.episode, reward=owner.reward, auto_reset=False)
        self.core.state = new_state(n, 1)  # one queue slot a game: every deal is queued just in time
        self.core.state.games[:, PHASE] = DONE  # not started until the first reset
        self.core.state.games[:, TO_ACT] = -1
        self.hist_action = np.zeros((n, MAX_HISTORY), np.int8)
        self.hist_seat = np.zeros((n, MAX_HISTORY), np.int8)
        self.hist_len = np.zeros(n, np.int64)
        self.tables = [CoreTable(self, i, owner.rules, owner.episode) for i in range(n)]
        self._pending: dict[int, tuple[Deal, bool]] = {}  # game -> (deal, starts an episode)
        self._obs = np.zeros((n, OBS_SIZE), np.float32)
        self._mask = np.zeros((n, NUM_ACTIONS), np.int8)
        self._all = np.arange(n)

    # ------------------------------------------------------------------ deals
    def queue_deal(self, i: int, deal: Deal, new_episode: bool) -> None:
        """Deal ``deal`` to game ``i`` at the next flush: a new episode, or the match's next hand."""
        self._pending[i] = (deal, new_episode)

    def flush(self) -> None:
        """Deal every queued deal (one kernel call for new episodes, one for next hands)."""
        if not self._pending:
            return
        st = self.core.state
        for i, (deal, _) in self._pending.items():
            st.queue[i, 0] = deal_row(deal)
            st.games[i, QUEUE_LEN] = 1
            st.games[i, QUEUE_POS] = 0
            self.tables[i].dealt(deal)
        for new in (True, False):
            rows = np.array(sorted(i for i, (_, n) in self._pending.items() if n == new), dtype=np.int64)
            if not len(rows):
                continue
            games, rng, queue = st.games[rows], st.rng[rows], st.queue[rows]
            if new:
                reset_games(games, rng, queue, self.core.switches, 0, False)
            else:
                kernels.advance_finished(games, rng, queue, self.core.switches)
            st.games[rows] = games
            self.hist_len[rows] = 0
        self._pending.clear()

    def history(self, i: int) -> list[tuple[int, int]]:
        """Game ``i``'s hand so far as (seat, action) pairs."""
        return history_pairs(self.hist_action[i], self.hist_seat[i], int(self.hist_len[i]))

    # ------------------------------------------------------------------ observations
    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """Every game's observation for its seat to act (the learner's) and its legal mask
        (bool), one kernel call."""
        self.flush()
        owner = self.owner
        obs, masks = self.core.observe()
        legal = masks.astype(bool)
        obs = obs.copy()
        if not owner.privileged:
            return obs, legal
        games = self.core.state.games
        seats = (games[:, TO_ACT, None] + np.arange(NUM_SEATS)) & 3
        hands = np.take_along_axis(games[:, HANDS : HANDS + NUM_SEATS], seats, axis=1).astype("<u4")
        priv = hidden_hands(hands)
        return np.concatenate([obs, priv], axis=1), legal

    def masks(self) -> np.ndarray:
        self.flush()
        return self.core.legal_masks().astype(bool)

    def _observe_rows(self, rows: np.ndarray, seats: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Observations and masks of ``rows`` (their seats to act, or ``seats``), fresh arrays."""
        k = len(rows)
        chosen = np.full(k, -1, np.int8) if seats is None else np.asarray(seats, np.int8)
        games = self.core.state.games[rows]
        kernels.observe(games, self.core.switches, chosen, self._obs[:k], self._mask[:k])
        return self._obs[:k].copy(), self._mask[:k].copy()

    def terminal_observation(self, g: Game) -> np.ndarray:
        """What game ``g``'s last learner seat sees of its finished hand (read before the next deal)."""
        i = cast(CoreTable, g.table).index
        obs: np.ndarray = self._observe_rows(np.array([i]), np.array([g.last_seat]))[0][0]
        if self.owner.privileged:
            obs = np.concatenate([obs, np.zeros(self.owner.obs_size - OBS_SIZE, np.float32)])
        return obs

    # ------------------------------------------------------------------ stepping
    def learner_step(
        self, actions: Any, games: Sequence[int] | None = None
    ) -> tuple[np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """``LockstepGames.learner_step`` on the core: the learner's actions in one kernel call.

        Raises:
            IllegalActionError: an action the rules refuse (R9), from the engine's check of that
                game; no game has moved.
        """
        owner = self.owner
        n = owner.n_games
        rewards = np.zeros(n, np.float32)
        dones = np.zeros(n, bool)
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        self.flush()
        rows = self._all if games is None else np.asarray(games, dtype=np.int64)
        acts = np.asarray(actions).reshape(-1)
        if len(acts) != len(rows):
            raise ValueError(f"one action per game: {len(rows)} games, {len(acts)} actions")
        self._apply(rows, acts, rewards, dones, infos, learner=True)
        owner.decisions += len(rows)
        self.advance(rewards, dones, infos)
        return rewards, dones, infos

    def advance(self, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]) -> None:
        """The other players act, in rounds, each player's games in one batch and one kernel step,
        until every game waits for the learner."""
        owner = self.owner
        while True:
            self.flush()
            acting = []
            for i, (g, seat) in enumerate(zip(owner.games, self.core.state.games[:, TO_ACT].tolist(), strict=True)):
                if seat >= 0:
                    player = g.players[seat]
                    if player is not None:
                        acting.append((i, player))
            if not acting:
                return
            for player, idx, members, call in owner.groups(acting):
                rows = np.array(idx, dtype=np.int64)
                if call is not None:
                    actions = np.asarray(call(*self._observe_rows(rows), members)).reshape(-1)
                else:
                    actions = self._actions(player, rows)
                self._apply(rows, actions, rewards, dones, infos)

    def _apply(
        self,
        rows: np.ndarray,
        actions: Any,
        rewards: np.ndarray,
        dones: np.ndarray,
        infos: list[dict[str, Any]],
        learner: bool = False,
    ) -> None:
        """One kernel step of the games ``rows``; book the hands that ended (``_settle``).
        ``learner``: the learner's decisions (its last seat and episode length are kept)."""
        core, st, res = self.core, self.core.state, self.core.results
        acts = np.ascontiguousarray(actions, dtype=np.int64).reshape(-1)
        whole = len(rows) == core.num_games
        games = st.games if whole else st.games[rows]
        table = res.table if whole else res.table[rows]
        reward = res.reward if whole else res.reward[rows]
        seats = games[:, TO_ACT].copy()
        bad = kernels.step(games, st.rng, st.queue, table, reward, core.switches, core.payoff, acts)
        if bad >= 0:
            self._illegal(int(rows[bad]), int(acts[bad]))
        if not whole:
            st.games[rows], res.table[rows], res.reward[rows] = games, table, reward
        pos = self.hist_len[rows]
        self.hist_action[rows, pos] = acts
        self.hist_seat[rows, pos] = seats
        self.hist_len[rows] = pos + 1
        owner = self.owner
        if learner:
            for i, seat in zip(rows.tolist(), seats.tolist(), strict=True):
                g = owner.games[i]
                g.last_seat = seat
                g.length += 1
        ended = np.flatnonzero(table[:, HAND_DONE])
        if len(ended):
            results = BatchResults(reward, table)
            for j in ended.tolist():
                owner.settle(int(rows[j]), self._outcome(int(rows[j]), results, j), rewards, dones, infos)

    def _outcome(self, i: int, results: BatchResults, j: int) -> Outcome:
        """What the action that ended game ``i``'s hand did, as the driver's ``Outcome``; in a
        match that goes on, the next deal is queued (as ``Table.apply`` deals it)."""
        owner = self.owner
        res = hand_result(hand_result_info(results, j))
        mres, over = None, True
        if owner.episode == "match":
            table = self.tables[i]
            table.results.append(res)
            if results.table[j, EPISODE_DONE]:
                m = match_result_info(results, j)
                mres = MatchResult(m["winner"], (m["score"][0], m["score"][1]), m["reason"])
            else:
                deal = table.deals.next_deal(owner.rules.next_dealer(res.dealer))  # R2.1
                if deal is not None:
                    self.queue_deal(i, deal, new_episode=False)
                    over = False
        r = float(results.reward[j])  # team 0's; team 1 gets its negative (0.0, not -0.0)
        return Outcome(res, mres, (r, 0.0 - r), over)

    def _illegal(self, i: int, action: int) -> None:
        """Raise the engine's ``IllegalActionError`` for game ``i`` (nothing has moved)."""
        hand = self.tables[i].hand
        if hand is not None:
            hand.verify(action)
        raise RuntimeError(f"game {i}: the core refused action {action} that the engine allows")

    # ------------------------------------------------------------------ other players
    def _actions(self, player: Any, rows: np.ndarray) -> Any:
        """``player``'s actions in the games ``rows`` (each at its seat to act)."""
        kind, how = self._kind(player)
        if kind == "arrays":
            obs, masks = self._observe_rows(rows)
            return np.asarray(how(obs, masks)).reshape(-1)
        if kind == "twin":
            return how.core_actions(CoreRows(self.core.state.games, rows, self._observe_rows))
        tables = [self.tables[i] for i in rows.tolist()]
        if kind == "views":
            return how.act_batch([PlayerView.from_state(t.hand, t.to_act, t.context) for t in tables])

        return player.act_seats([Seat(t.hand, t.to_act, t.context) for t in tables])

    def _kind(self, player: Any) -> tuple[str, Any]:
        """How ``player`` is asked: "arrays" (a function on observation and mask blocks),
        "twin" (an agent's own batched twin, ``core_actions`` on ``CoreRows``), "views" (any
        other agent on ``PlayerView``s) or "seats" (``act_seats`` on the engine's hands)."""

        kind: str = "seats"
        how: Any = None
        if isinstance(player, ArrayPlayer):
            kind, how = "arrays", player.fn
        elif isinstance(player, AgentPlayer):
            agent = player.agent
            # A twin mirrors the act of the class that defines it; a subclass may act otherwise,
            # so it inherits none.
            kind = "twin" if "core_actions" in type(agent).__dict__ else "views"
            how = agent
        return kind, how

    # ------------------------------------------------------------------ restoring
    def load_game(self, i: int, hand: HandState | None, match: MatchState | None) -> None:
        """Put a saved game in row ``i``: deal its hand, set the match's books, replay its calls and
        cards in the core (the engine's saved form of either backend)."""
        self._pending.pop(i, None)
        st = self.core.state
        if hand is None:
            st.games[i, PHASE] = DONE
            st.games[i, TO_ACT] = -1
            self.tables[i].dealt(None)
            return
        self.queue_deal(i, hand.deal, new_episode=True)
        self.flush()
        if match is not None:
            st.games[i, MATCH_SCORE : MATCH_SCORE + 2] = match.score
            st.games[i, DEALS_PLAYED] = match.deals_played
            st.games[i, HANDS_SCORED] = match.hands_scored
        rows = np.array([i])
        scratch = (np.zeros(self.owner.n_games, np.float32), np.zeros(self.owner.n_games, bool))
        for action in hand.history:
            self._apply(rows, [action], *scratch, [{} for _ in range(self.owner.n_games)])
        if self.core.state.games[i, PHASE] == DONE:
            raise ValueError("a saved hand in progress ends when replayed in the batched core")
