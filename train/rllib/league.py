"""The league on RLlib's EnvRunners: each runner's opponent pool kept in step with the driver's,
and what the games tell.

The opponents are the SB3 backend's (``train.opponents.OpponentPool``, drawn per game by the
config's weights inside every EnvRunner's games, ``train.rllib.vector_env``). The driver holds
the run's pool (the snapshots and champions it adds, saved in its checkpoints);
``sync_members`` gives every EnvRunner those members whenever they changed, and every EnvRunner
that does not hold the driver's newest members, a replaced one included (a fresh runner holds
none). One ``ray.put`` a change, whatever the number of runners.

``LeagueCallbacks`` runs inside the EnvRunners: it sets their torch threads when the games are
made, and after each sample turns the episodes that ended (``SelfPlayVectorEnv.finished``) into
sums of ``train.selfplay.episode_counts`` (the learner team's reward, its win against each
opponent category, its hands' call/make/double/kaboot counts), which the driver turns into the
``selfplay/`` figures (``train.selfplay.selfplay_stats``), as the SB3 backend does.
"""

from __future__ import annotations

from typing import Any

import ray
from ray.rllib.callbacks.callbacks import RLlibCallback

from train.opponents import OpponentPool
from train.selfplay import episode_counts


class MemberSync:
    """The driver's side of the league: which members (by a version number) the runners need."""

    def __init__(self, pool: OpponentPool):
        self.pool = pool
        self.version = 0
        self._ref: Any = None  # the object-store copy of the current members

    def changed(self) -> None:
        """The driver's pool gained a member: every runner needs the new set."""
        self.version += 1
        self._ref = None

    def sync(self, env_runner_group: Any) -> None:
        """Give the newest members to every EnvRunner that lacks them (the driver's own too, when
        it samples)."""
        if self._ref is None:
            self._ref = ray.put(self.pool.members())
        ref, version = self._ref, self.version

        def load(runner: Any) -> None:
            if runner.env is None:  # the driver's own runner, when remote ones sample
                return
            env = runner.env.unwrapped
            if env.members_version != version:
                env.set_members(ray.get(ref), version)

        env_runner_group.foreach_env_runner(load, local_env_runner=True)


class LeagueCallbacks(RLlibCallback):
    """EnvRunner side of the league: torch threads, and self-play statistics per sample.

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

    def on_sample_end(self, *, env_runner: Any = None, metrics_logger: Any = None, **kwargs: Any) -> None:
        if env_runner is None or metrics_logger is None:
            return
        finished = env_runner.env.unwrapped.finished
        for summary in finished:
            counts = episode_counts(summary["opponent"], summary["reward"], summary["won"], summary["hands"])
            for key, value in counts.items():
                metrics_logger.log_value(("selfplay", key), float(value), reduce="sum")
        finished.clear()
