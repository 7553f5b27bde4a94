"""The differential check: the batched core and the readable engine, side by side, step by step.

The engine (``HandState``, ``MatchState``, ``encode``, ``action_mask``, ``HandResult``,
``score_hand`` through ``HandState``) is the oracle. Both sides play the same deals (the core's
own, handed to the engine) and the same random legal actions, chosen outside the kernels from
one generator; at every decision the seat to act, its mask and its observation (bit for bit)
must agree, and at every hand's and match's end the results and scores. Used by
``tests/baloot_env/test_batch_core.py`` and ``benchmarks/batch_exactness.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

import numpy as np

from baloot_env.actions import PASS
from baloot_env.batch.game import BatchGame
from baloot_env.deal import Deal, random_deal
from baloot_env.hand import BIDDING, HandState
from baloot_env.match import MatchState, match_context
from baloot_env.observation import action_mask, encode
from baloot_env.rewards import Reward, hand_rewards
from baloot_env.rules import RuleConfig

# How eagerly a game passes in the calling when it may (otherwise uniform): thrown-in deals
# (R3.5) and the 99-deal cap (R8.4) are rare under uniform play alone.
PASS_BIASES = (0.0,) * 9 + (0.5, 0.9, 0.995)


class Mismatch(AssertionError):
    """The core and the engine disagree; the message says where and how to replay it."""


@dataclass
class DiffStats:
    """What a differential run compared."""

    hands: int = 0
    thrown_in: int = 0
    kaboots: int = 0
    gahwas: int = 0
    doubled: int = 0
    matches: int = 0
    decisions: int = 0
    observations: int = 0  # observation vectors compared bit for bit (acting and other seats)
    reasons: dict[str, int] = field(default_factory=dict)

    def add(self, other: DiffStats) -> None:
        for name in ("hands", "thrown_in", "kaboots", "gahwas", "doubled", "matches", "decisions", "observations"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for k, v in other.reasons.items():
            self.reasons[k] = self.reasons.get(k, 0) + v


def run_differential(
    rules: RuleConfig,
    episode: str,
    num_games: int,
    hands: int,
    seed: int,
    auto_reset: bool = True,
    queued_deals: int = 0,
    other_seats_every: int = 7,
    pass_biases: tuple[float, ...] = PASS_BIASES,
    reward: Reward | None = None,
    dealers: str = "given",
) -> DiffStats:
    """Play until ``hands`` hands have finished (in matches: and every started match has been
    compared to its end or is still running), comparing everything; raises ``Mismatch``.

    Args:
        rules, episode: the variants and "hand" or "match".
        num_games: games in lockstep.
        hands: hands to finish in all (the run stops at the first step reaching it).
        seed: seeds the core's deal streams and the action generator.
        auto_reset: the core's mode; off, every finished hand is also compared in its done
            phase (all four seats) before ``advance_finished``.
        queued_deals: per game, deals drawn by ``random_deal`` and queued in the core (R11.2);
            the core must play exactly these first.
        other_seats_every: every so many steps, also compare the observations of the three
            seats not to act (their masks must be zeros, R11.3).
        pass_biases: per game, drawn from these: the chance to pass in the calling.
        reward: the payoff whose rewards are compared with ``rewards.hand_rewards``.
        dealers: the core's handling of queued deals' dealers ("given" or "rotate").
    """
    reward = reward or Reward()
    rng = np.random.default_rng(seed)
    queues: list[list[Deal]] = [[random_deal(rng) for _ in range(queued_deals)] for _ in range(num_games)]
    core = BatchGame(
        num_games,
        rules,
        episode,
        seed=seed,
        reward=reward,
        auto_reset=auto_reset,
        deals=queues if queued_deals else None,
        dealers=dealers,
    )
    bias = rng.choice(np.array(pass_biases), size=num_games)
    matches: list[MatchState | None] = [MatchState(rules) if episode == "match" else None for _ in range(num_games)]
    engine: list[HandState] = []
    taken = [0] * num_games
    for g in range(num_games):
        engine.append(_start(core, g, matches[g], queues[g], taken, rules, dealers))
    stats = DiffStats()
    seats = np.zeros(num_games, dtype=np.int8)
    actions = np.zeros(num_games, dtype=np.int64)
    step = 0
    while stats.hands < hands:
        obs, masks = core.observe()
        for g in range(num_games):
            hand = engine[g]
            seat = hand.to_act
            ctx = match_context(matches[g])
            _check(int(core.to_act[g]) == seat, core, g, hand, f"seat to act: core {core.to_act[g]}, engine {seat}")
            want_mask = action_mask(hand, seat)
            _check(np.array_equal(masks[g], want_mask), core, g, hand, _diff("mask", masks[g], want_mask))
            want_obs = encode(hand, seat, ctx)
            _check(np.array_equal(obs[g], want_obs), core, g, hand, _diff("observation", obs[g], want_obs))
            legal = np.flatnonzero(want_mask)
            if hand.phase == BIDDING and rng.random() < bias[g]:
                actions[g] = PASS
            else:
                actions[g] = legal[rng.integers(len(legal))]
        stats.decisions += num_games
        stats.observations += num_games
        if other_seats_every and step % other_seats_every == 0:
            offset = 1 + (step // other_seats_every) % 3
            seats[:] = (core.to_act + offset) % 4
            obs, masks = core.observe(seats)
            for g in range(num_games):
                s = int(seats[g])
                want = encode(engine[g], s, match_context(matches[g]))
                _check(np.array_equal(obs[g], want), core, g, engine[g], _diff(f"seat {s} observation", obs[g], want))
                _check(not masks[g].any(), core, g, engine[g], f"seat {s} is not to act but its mask is {masks[g]}")
            stats.observations += num_games
        res = core.step(actions)
        finished = []
        for g in range(num_games):
            hand = engine[g]
            hand.apply(int(actions[g]))
            _check(
                bool(res.hand_done[g]) == hand.done,
                core,
                g,
                hand,
                f"hand over: core {res.hand_done[g]}, engine {hand.done}",
            )
            if hand.done:
                finished.append(g)
            else:
                _check(res.reward[g] == 0.0, core, g, hand, f"reward {res.reward[g]} while no hand ended")
        for g in finished:
            _finish(core, g, engine[g], matches[g], rules, stats)
        if finished and not auto_reset:
            _check_done_phase(core, finished, engine, matches, stats)
            core.advance_finished()
        for g in finished:
            if matches[g] is not None and matches[g].result is not None:
                matches[g] = MatchState(rules)
            engine[g] = _start(core, g, matches[g], queues[g], taken, rules, dealers)
        step += 1
    return stats


def _start(
    core: BatchGame,
    g: int,
    match: MatchState | None,
    queue: list[Deal],
    taken: list[int],
    rules: RuleConfig,
    dealers: str,
) -> HandState:
    """The engine's hand for the deal the core has just dealt game g, checking where it came from."""
    deal = core.deal(g)
    rotation = match.next_dealer() if match is not None else None  # R2.1, V9; None at a match's start
    if taken[g] < len(queue):
        want = queue[taken[g]]
        taken[g] += 1
        if dealers == "rotate" and rotation is not None:
            want = replace(want, dealer=rotation)
        if deal != want:
            raise Mismatch(f"game {g}: the core dealt {deal.to_dict()}, the queue gives {want.to_dict()}")
    elif rotation is not None and deal.dealer != rotation:
        raise Mismatch(f"game {g}: the core's dealer is {deal.dealer}, R2.1 gives {rotation}")
    if match is not None:
        return match.start_hand(deal)
    return HandState(deal, rules)


def _finish(
    core: BatchGame, g: int, hand: HandState, match: MatchState | None, rules: RuleConfig, stats: DiffStats
) -> None:
    """Compare the hand's result (R11.4) and, in a match, the match's books and end (R8, R11.5)."""
    want = hand.result.to_info()
    got = core.hand_result(g)
    _check(got == want, core, g, hand, f"hand result: core {got}, engine {want}")
    stats.hands += 1
    stats.thrown_in += want["contract"] is None
    stats.kaboots += bool(want["kaboot"])
    stats.gahwas += want["gahwa_winner"] is not None
    stats.doubled += want["level"] > 1
    res = core.results
    if match is None:
        _check(bool(res.episode_done[g]), core, g, hand, "a hand episode ended but the core's episode goes on")
        _check_reward(core, g, hand, hand_rewards(core.reward, hand.result, match_episode=False))
        return
    match.end_hand()
    over = match.result is not None
    _check_reward(core, g, hand, hand_rewards(core.reward, hand.result, match_episode=True, match=match.result))
    st = core.state
    books = [int(x) for x in st.field("match_score")[g]] + [
        int(st.field("deals_played")[g]),
        int(st.field("hands_scored")[g]),
    ]
    _check(bool(res.episode_done[g]) == over, core, g, hand, f"match over: core {res.episode_done[g]}, engine {over}")
    # With automatic reset a finished match's books are already those of the next match.
    want_books = [*match.score, match.deals_played, match.hands_scored]
    _check(
        (over and core.auto_reset) or books == want_books,
        core,
        g,
        hand,
        f"match books (score 0, score 1, deals, scored hands): core {books}, engine {want_books}",
    )
    if over:
        want_m = match.result.to_info()
        got_m = core.match_result(g)
        _check(got_m == want_m, core, g, hand, f"match result: core {got_m}, engine {want_m}")
        stats.matches += 1
        stats.reasons[want_m["reason"]] = stats.reasons.get(want_m["reason"], 0) + 1


def _check_done_phase(
    core: BatchGame, games: list[int], engine: list[HandState], matches: list, stats: DiffStats
) -> None:
    """Without automatic reset: each finished game's done-phase observation, for every seat."""
    for offset in range(4):
        seats = np.zeros(core.num_games, dtype=np.int8)
        seats[games] = offset
        obs, masks = core.observe(seats)
        for g in games:
            want = encode(engine[g], offset, match_context(matches[g]))
            _check(
                np.array_equal(obs[g], want), core, g, engine[g], _diff(f"done seat {offset} observation", obs[g], want)
            )
            _check(not masks[g].any(), core, g, engine[g], "a finished hand has a non-zero mask")
            stats.observations += 1


def _check_reward(core: BatchGame, g: int, hand: HandState, want: tuple[float, float]) -> None:
    got = float(core.results.reward[g])
    _check(want == (got, -got), core, g, hand, f"rewards: core {got} (team 0), engine {want}")


def _diff(what: str, got: np.ndarray, want: np.ndarray) -> str:
    idx = np.flatnonzero(got != want)[:8] if got.shape == want.shape else []
    return f"{what} differs at {list(idx)}: core {got[idx].tolist()}, engine {want[idx].tolist()}"


def _check(ok: bool, core: BatchGame, g: int, hand: HandState, what: str) -> None:
    if ok:
        return
    replay = json.dumps({"rules": core.rules.to_dict(), "deal": hand.deal.to_dict(), "history": hand.history})
    raise Mismatch(f"game {g} ({core.episode} episode): {what}\nreplay: {replay}")
