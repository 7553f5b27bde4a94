"""Self-play league for RLlib: who sits where (policy mapping), and what the games tell.

Every episode seats the learner (module ``main``) on both seats of one team and an opponent
team drawn by the config's weights (``train.config.OpponentConfig``), as the SB3 backend's
opponent pool does (``train.opponents``):

- ``self``: one of the frozen snapshots of ``main``, modules ``main_v0`` ... (``pool_size``
  slots; when they are full, the oldest slot is overwritten by the next snapshot);
- ``champion``: one of the promoted policies, modules ``champion_0`` ... (same rule);
- ``heuristic`` and ``random``: the rule agents' modules (``train.rllib.module``).

A category with no member yet drops out and the others are renormalised. The draw is a
function of the episode's id, so both opponent seats of an episode get the same module and the
two learner seats are partners (R1.1).

``LeagueCallbacks`` runs inside the EnvRunners: it sets their torch threads when the env is
made, and at each episode's end logs, from the learner team's side, the episode's reward, the
win against each opponent category and the hands' call/make/double/kaboot counts. The driver
turns these sums into the ``selfplay/`` figures (``train.selfplay.selfplay_stats``, as the SB3
backend does).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback

from baloot_env.lockstep import hand_summary
from train.opponents import CATEGORIES, category_weights
from train.rllib.env import seat_of
from train.selfplay import episode_counts

MAIN = "main"
PREFIX = {"self": "main_v", "champion": "champion_"}


def snapshot_id(slot: int) -> str:
    return f"{PREFIX['self']}{slot}"


def champion_id(slot: int) -> str:
    return f"{PREFIX['champion']}{slot}"


def category_of(module_id: str) -> str:
    """The opponent category of a module id (``main_v3`` -> ``self``)."""
    for cat, prefix in PREFIX.items():
        if module_id.startswith(prefix):
            return cat
    return module_id


@dataclass(frozen=True)
class LeagueMapping:
    """The agent-to-module mapping of the league (module docstring); picklable, so that RLlib can
    ship it to the EnvRunners.

    Attributes:
        weights: the mixing weights of ``CATEGORIES``.
        snapshots: filled snapshot slots (``main_v0`` ...).
        champions: filled champion slots (``champion_0`` ...).
        heuristic: the ``heuristic`` module exists.
    """

    weights: tuple[float, float, float, float]
    snapshots: int = 0
    champions: int = 0
    heuristic: bool = True

    def members(self) -> dict[str, list[str]]:
        return {
            "self": [snapshot_id(k) for k in range(self.snapshots)],
            "champion": [champion_id(k) for k in range(self.champions)],
            "heuristic": ["heuristic"] if self.heuristic else [],
            "random": ["random"],
        }

    def modules(self) -> list[str]:
        """Every module this mapping may name."""
        return [MAIN] + [m for group in self.members().values() for m in group]

    def draw(self, key: str) -> tuple[int, str]:
        """(learner team, opponent module) of the episode with id ``key``."""
        rng = random.Random(key)
        team = rng.randrange(2)
        members = self.members()
        weights = category_weights(self.weights, [bool(members[c]) for c in CATEGORIES])
        cat = rng.choices(CATEGORIES, weights=weights)[0]
        return team, rng.choice(members[cat])

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        team, opponent = self.draw(str(episode.id_))
        return MAIN if seat_of(agent_id) % 2 == team else opponent


class LeagueCallbacks(RLlibCallback):
    """EnvRunner side of the league: torch threads, and self-play statistics per episode.

    Args:
        torch_threads: torch threads in each EnvRunner process.
    """

    def __init__(self, torch_threads: int = 1):
        super().__init__()
        self.torch_threads = torch_threads

    def on_environment_created(self, *, env_runner: Any, env: Any, env_context: Any, **kwargs: Any) -> None:
        # optional dependency: torch (the train extra)
        import torch

        torch.set_num_threads(self.torch_threads)

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        if metrics_logger is None:
            return
        agents = episode.agent_episodes
        learners = [a for a in agents if episode.module_for(a) == MAIN]
        others = [a for a in agents if episode.module_for(a) != MAIN]
        if not learners:
            return
        me = seat_of(learners[0]) % 2
        cat = category_of(episode.module_for(others[0])) if others else "none"
        info = agents[learners[0]].get_infos(-1) or {}
        summary = info.get("episode")
        if summary is None:
            return
        hands = summary["hands"]
        score = [sum(h["score"][me] for h in hands), sum(h["score"][1 - me] for h in hands)]
        won = score[0] > score[1]
        if summary["match"] is not None:
            won = summary["match"]["winner"] == me
        counts = episode_counts(cat, agents[learners[0]].get_return(), won, [hand_summary(h, me) for h in hands])
        for key, value in counts.items():
            metrics_logger.log_value(("selfplay", key), float(value), reduce="sum")
