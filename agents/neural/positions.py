"""Real positions from engine play: observation vectors and legal masks at every decision.

Used wherever a policy must be checked or taught on positions that occur in games rather than
on random vectors: the ONNX export's parity check and timing (``agents.neural.export``), and the
distillation data (``train.distill``). Hands are dealt from a seeded ``numpy`` generator
(R2.4) and played by the game driver (``baloot_env.driver.Table``) with two teams of agents
(R1.1); every decision of every seat is recorded from the acting seat's ``PlayerView`` (its
observation vector and R9 mask).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents.base import Agent
from baloot_env.actions import NUM_ACTIONS
from baloot_env.driver import DealSource, Table
from baloot_env.loop import play_hands
from baloot_env.observation import OBS_SIZE
from baloot_env.rules import RuleConfig
from baloot_env.seats import team_of
from baloot_env.view import PlayerView


@dataclass(frozen=True)
class Positions:
    """``observations`` float32 (N x OBS_SIZE), ``masks`` int8 (N x 42), ``phases`` (N, "bidding"/"doubling"/"play")."""

    observations: np.ndarray
    masks: np.ndarray
    phases: np.ndarray
    hands: int

    def __len__(self) -> int:
        return len(self.observations)


def collect_positions(
    count: int,
    agents: Sequence[Agent],
    seed: int,
    *,
    epsilon: float = 0.0,
    rules: RuleConfig | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Positions:
    """Play hands until ``count`` decisions are recorded (the last hand is cut at ``count``).

    Args:
        count: the number of positions.
        agents: the pool; each hand seats one agent per team, both drawn uniformly (the same
            agent may sit on both teams: self-play).
        seed: seeds the deals, the draws, the agents (``reset``) and the exploration.
        epsilon: the chance that a decision is a uniformly random legal action instead of the
            agent's, so that the positions also cover states a good player would avoid.
        rules: rule variants (default RULES.md).
        progress: called as ``progress(done, count)`` after every hand.

    Raises:
        ValueError: ``count`` < 1, an empty pool or ``epsilon`` outside [0, 1].
    """
    if count < 1 or not agents or not 0.0 <= epsilon <= 1.0:
        raise ValueError(
            f"need count >= 1, at least one agent and 0 <= epsilon <= 1; got {count}, {len(agents)}, {epsilon}"
        )
    rng = np.random.default_rng(seed)
    table = Table(rules, "hand", DealSource(rng))  # hand episodes, deals from the seed
    obs = np.zeros((count, OBS_SIZE), dtype=np.float32)
    masks = np.zeros((count, NUM_ACTIONS), dtype=np.int8)
    phases: list[str] = []
    n = hands = 0

    def new_hand() -> Callable[[PlayerView], int]:
        nonlocal hands
        if hands and progress is not None:
            progress(n, count)
        team = [agents[int(i)] for i in rng.integers(len(agents), size=2)]  # after the deal (reset)
        for agent in team:
            agent.reset(int(rng.integers(2**62)))
        hands += 1

        def choose(view: PlayerView) -> int:
            if epsilon and rng.random() < epsilon:
                return int(rng.choice(view.legal_actions))
            return team[team_of(view.seat)].act(view)

        return choose

    def full(*_: object) -> bool:  # every position taken: no next hand, no next turn
        return len(phases) >= count

    for turn in play_hands(table, new_hand, full, until=full):
        obs[n] = turn.view.observation()  # a view is a snapshot: its turn's observation
        masks[n] = turn.view.action_mask()
        phases.append(turn.view.phase)
        n += 1
    if progress is not None:
        progress(n, count)
    return Positions(obs, masks, np.array(phases), hands)
