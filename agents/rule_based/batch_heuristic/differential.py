"""The differential check of the kernels against ``HeuristicAgent.act``, decision by decision."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from agents.rule_based.batch_heuristic.batched import heuristic_actions_all
from agents.rule_based.batch_heuristic.tables import (
    heuristic_bars,
)
from agents.rule_based.heuristic import HeuristicAgent, HeuristicConfig
from baloot_env.batch.differential import DiffStats, _check, _finish, _start
from baloot_env.batch.game import BatchGame
from baloot_env.match import MatchState, match_context
from baloot_env.rules import RuleConfig
from baloot_env.view import PlayerView


# ---------------------------------------------------------------------- the differential check
@dataclass
class HeuristicDiffStats:
    """What ``run_heuristic_differential`` compared: decisions by phase, the ones with a real
    choice (two legal actions or more), hands and matches compared to their end, and the time
    spent in the Python agent's ``act`` (``python_act_s``) and in building its views."""

    decisions: int = 0
    choices: int = 0
    bids: int = 0
    doubles: int = 0
    cards: int = 0
    heuristic_moves: int = 0  # decisions where both sides played the heuristic's action
    hands: int = 0
    matches: int = 0
    python_act_s: float = 0.0
    python_view_s: float = 0.0

    def add(self, other: HeuristicDiffStats) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def run_heuristic_differential(
    rules: RuleConfig,
    episode: str,
    num_games: int,
    decisions: int,
    seed: int,
    explore: tuple[float, ...] = (0.0, 0.0, 0.05, 0.2),
    config: HeuristicConfig | None = None,
) -> HeuristicDiffStats:
    """The kernel against ``HeuristicAgent.act`` at every decision; raises ``Mismatch``.

    The batched core (``BatchGame``) and the engine (``HandState``/``MatchState``, started and
    finished with ``baloot_env.batch.differential``'s helpers) play the same deals. At every
    decision the seat to act must agree and the kernel's action (``heuristic_actions_all`` on
    the core's state) must equal ``HeuristicAgent(config=config).act(view)`` on the engine's
    ``PlayerView`` of that seat. Each game draws an exploration rate from ``explore``: with that
    chance a move is a uniform legal action (the same on both sides), so that positions the
    heuristic would not reach are compared too; otherwise the core plays the kernel's action
    and the engine the agent's. Games at rate 0 are whole games (hands, matches) played by the
    kernel on one side and the Python agent on the other: every hand's result (R11.4), the
    match's books and its result (R11.5) are compared.

    Args:
        rules, episode: the variants and "hand" or "match".
        num_games: games in lockstep.
        decisions: stop after at least this many decisions compared.
        seed: the deals (the core's streams) and the exploration draws.
        explore: per game, drawn from these: the chance of a random legal move.
        config: the heuristic's bars (default ``HeuristicConfig()``).
    """

    agent = HeuristicAgent(seed, config)
    bars = heuristic_bars(config)
    rng = np.random.default_rng(seed)
    core = BatchGame(num_games, rules, episode, seed=seed)
    rate = rng.choice(np.array(explore, dtype=np.float64), size=num_games)
    matches = [MatchState(rules) if episode == "match" else None for _ in range(num_games)]
    taken = [0] * num_games
    engine = [_start(core, g, matches[g], [], taken, rules, "given") for g in range(num_games)]
    stats = HeuristicDiffStats()
    results = DiffStats()
    kernel = np.zeros(num_games, dtype=np.int64)
    actions = np.zeros(num_games, dtype=np.int64)
    while stats.decisions < decisions:
        heuristic_actions_all(core.state.games, bars, kernel)
        python = [0] * num_games
        for g in range(num_games):
            hand = engine[g]
            seat = hand.to_act
            _check(int(core.to_act[g]) == seat, core, g, hand, f"seat to act: core {core.to_act[g]}, engine {seat}")
            t0 = time.perf_counter()
            view = PlayerView.from_state(hand, seat, match_context(matches[g]))
            t1 = time.perf_counter()
            want = agent.act(view)
            stats.python_act_s += time.perf_counter() - t1
            stats.python_view_s += t1 - t0
            got = int(kernel[g])
            _check(got == want, core, g, hand, f"seat {seat} ({view.phase}): kernel {got}, HeuristicAgent {want}")
            legal = view.legal_mask
            stats.choices += legal & (legal - 1) != 0
            stats.bids += view.phase == "bidding"
            stats.doubles += view.phase == "doubling"
            stats.cards += view.phase == "play"
            if rate[g] > 0 and rng.random() < rate[g]:
                acts = view.legal_actions
                actions[g] = python[g] = acts[rng.integers(len(acts))]
            else:
                actions[g], python[g] = got, want  # each side its own player's action
                stats.heuristic_moves += 1
        stats.decisions += num_games
        res = core.step(actions)
        for g in range(num_games):
            hand = engine[g]
            hand.apply(python[g])
            _check(bool(res.hand_done[g]) == hand.done, core, g, hand, "hand over: core and engine disagree")
            if not hand.done:
                continue
            _finish(core, g, hand, matches[g], rules, results)
            match = matches[g]
            if match is not None and match.result is not None:
                matches[g] = MatchState(rules)
            engine[g] = _start(core, g, matches[g], [], taken, rules, "given")
    stats.hands = results.hands
    stats.matches = results.matches
    return stats
