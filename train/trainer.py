"""The training run: config -> seeding -> pool and games -> MaskablePPO -> logs, checkpoints, evals.

Reads top to bottom in that order (CleanRL style), with stable-baselines3 / sb3-contrib doing
the PPO itself (rollout buffer, GAE, masked sampling, clipped update).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, cast

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import HParam, Logger, configure

from agents.neural.bundle import load_net, printable, save_bundle
from agents.neural.network import BalootNet
from agents.neural.widen import widen
from train.call_iteration import improve_calls
from train.checkpoint import (
    CheckpointError,
    has_checkpoint,
    latest_checkpoint,
    load_checkpoint,
    save_checkpoint,
)
from train.config import TrainConfig, init_bundle, save_config, to_dict
from train.evaluation import EVAL_TAG, promotion_state, restore_promotion_state
from train.expert import EXPERT_LABELS, EXPERT_SEED_OFFSET, expert_round
from train.hardware import device_of, hardware_words
from train.labels import Labels
from train.learners import Helpers, start_helpers
from train.ppo import build_learner, learner_state, restore_learner
from train.pretrain import pretrain
from train.progress import progress_line
from train.selfplay import episode_counts, selfplay_stats
from train.skeleton import RunFrame

SETTINGS = frozenset({"learning_rate", "clip_range", "clip_range_vf", "n_updates"})


def tag(key: str) -> str:
    """The one tensorboard tag of a figure SB3 records: ``train/X`` becomes ``losses/X`` (the
    update's losses, approx_kl, clip_fraction, explained_variance) or ``charts/X`` (learning rate,
    clip range), CleanRL's sections, the RLlib backend's too; other keys are kept."""
    section, _, name = key.partition("/")
    if section != "train":
        return key
    return f"{'charts' if name in SETTINGS else 'losses'}/{name}"


class TagLogger(Logger):
    """SB3's logger writing every figure once, under ``tag(key)`` (no ``train/*`` copies)."""

    def record(self, key: str, value: Any, exclude: str | tuple[str, ...] | None = None) -> None:
        super().record(tag(key), value, exclude)

    def record_mean(self, key: str, value: float | None, exclude: str | tuple[str, ...] | None = None) -> None:
        super().record_mean(tag(key), value, exclude)


def tensorboard_logger(folder: Path) -> TagLogger:
    """The run's logger: tensorboard event files in ``folder``, tags by ``tag``."""
    base = configure(str(folder), ["tensorboard"])
    return TagLogger(base.dir, base.output_formats)


class Trainer(RunFrame):
    """One stable-baselines3 training run in ``run_dir`` (fresh, or resumed from its latest
    checkpoint), in the frame every run shares (``train.skeleton.RunFrame``: the run dir's lock,
    seeding, the schedule after each update, evaluation, the end of the run).

    Resuming (``resume=True``) restores the latest checkpoint, and with it the promotion state
    that checkpoint recorded (champion pointer, promotion history, ``champions/``), so whatever
    a killed run did after its last checkpoint is done again, exactly, by the resumed run.
    The first checkpoint is written when PPO starts, right after the warm start; a run killed
    during its warm start has none, and resuming it is refused (``CheckpointError``) with the
    command that starts it again: the same config and seed give the same warm start, and so the
    same run.

    ``backend`` is where the self-play games run (``SelfPlayVecEnv``): "core", the batched core
    (default), or "python", one driver table a game; both play the same games, so a seed gives
    the same run on either, and a checkpoint of one resumes on the other.
    """

    cfg: TrainConfig

    def __init__(self, cfg: TrainConfig, resume: bool = False, quiet: bool = False, backend: str = "core"):
        self.backend = backend  # where the self-play games run (SelfPlayVecEnv): "core" or "python"
        super().__init__(cfg, resume, quiet)

    def start(self) -> None:
        cfg, resume = self.cfg, self.resume
        self.helpers: Helpers | None = None  # the other learner processes (ppo.processes > 1)
        self.expert_done = 0  # rounds of expert iteration finished (train.expert)
        self.expert_stats: list[dict[str, Any]] = []
        helper_states: list[dict[str, Any]] | None = None
        self.seed_everything()  # one visible block: every random choice flows from cfg.seed

        # --- opponents, games, model: learner process 0's (train.ppo)
        self.spec = cfg.net.spec()
        self.pool, self.venv, self.model = build_learner(cfg, 0, self.backend, self.after_update)
        if resume:
            latest_checkpoint(self.run_dir)  # CheckpointError now, before anything is touched, when there is none
        elif cfg.init_from:  # checked before the run dir is touched
            self._init_from(cfg.init_from)
        self.prepare_run_dir()
        self.model.set_logger(tensorboard_logger(self.run_dir / "tb"))
        self.next = self.first_schedule(logs=False)  # progress lines come from _ProgressCallback
        policy = self.model.policy
        if cfg.ppo.processes > 1:  # started now, they build their games during the warm start (train.learners)
            size = sum(p.numel() for p in policy.parameters())
            self.helpers, self.model.exchange = start_helpers(cfg, self.backend, size)
        if resume:
            helper_states = self._restore()
        else:
            save_config(cfg, self.run_dir / "config.yaml")
            self._record_hparams()
            self._pretrain()
            self.pool.add_snapshot("step_0", self.net.state_dict())
        if self.helpers is not None:  # they go on from these weights
            self.helpers.start(policy.state_dict(), policy.optimizer.state_dict(), helper_states)

    def _record_hparams(self) -> None:
        """The resolved config, flattened (``ppo.learning_rate``, ``env.rules.projects``, ...), in
        tensorboard's HPARAMS tab, with the development evaluation and the self-play reward as its
        metrics (tags written later by the run)."""
        metrics = {f"{EVAL_TAG}/dev/mean_vs_heuristic": 0.0, "selfplay/episode_reward": 0.0}
        hparams = flat_hparams(to_dict(self.cfg))  # the rules with every variant, defaults too
        self.model.logger.record("hparams", HParam(hparams, metrics), exclude=("stdout", "log", "json", "csv"))
        self.model.logger.dump(0)

    def _pretrain(self) -> None:
        """Behaviour-cloning warm start (``train.pretrain``), before the first PPO update."""

        if not self.cfg.pretrain.on:
            return
        if not self.quiet:
            self.log(
                f"pretraining: {self.cfg.pretrain.describe()}, "
                f"{hardware_words(self.cfg.device, self.cfg.pretrain.precision)}"
            )
        e = self.cfg.env
        reward = e.as_reward()  # the value head learns the training reward
        stats = pretrain(self.net, self.cfg.pretrain, self.cfg.seed, e.rules, reward, self.quiet)
        for k, v in stats.items():
            self.model.logger.record(f"pretrain/{k}", v)
        self.pretrain_stats = stats

    def expert_rounds(self) -> None:
        """Expert iteration (``expert.rounds``, ``train.expert``) from the round the run stands at:
        each round plays, labels and fits, then the evaluation with its promotion test on
        ``eval.deal_set``, the new weights sent to the other learner processes, and a checkpoint."""
        x, e = self.cfg.expert, self.cfg.env
        reward = e.as_reward()
        while self.expert_done < x.rounds:
            k = self.expert_done + 1
            if not self.quiet:
                self.log(
                    f"expert round {k}/{x.rounds}: {x.positions:,} positions of the network's games labelled by "
                    f"{x.teacher}, {hardware_words(self.cfg.device, x.precision)}"
                )
            device = device_of(self.net)
            self.net.cpu()  # the round's games are played on the CPU; the fit goes back to the device
            kept = self.run_dir / EXPERT_LABELS
            earlier = [Labels.load(kept / f"round_{j:03d}.npz") for j in range(max(1, k - x.aggregate), k)]
            try:
                seed = self.cfg.seed + EXPERT_SEED_OFFSET * k
                stats, labels = expert_round(
                    self.net, x, seed, e.rules, reward, quiet=self.quiet, device=device, earlier=earlier
                )
            finally:
                self.net.to(device)
            if x.aggregate:
                labels.save(kept / f"round_{k:03d}.npz")
            for key, value in stats.items():
                self.model.logger.record(f"expert/{key}", value)
            self.expert_stats.append({"round": k, **stats})
            self.expert_done = k
            self.evaluate(self.cfg.eval.deals, expert_round=k)
            if self.helpers is not None:
                self.helpers.set_weights(self.model.policy.state_dict())
            self.checkpoint()
            for old in kept.glob("round_*.npz"):  # after the checkpoint: a resumed round finds its earlier ones
                if int(old.stem[6:]) <= k - x.aggregate:
                    old.unlink()

    def _init_from(self, path: str) -> None:
        """Start from a bundle's weights (``init_from``), e.g. to continue training a shipped policy."""

        net, manifest = init_bundle(path, self.spec)
        if net.spec == self.spec:
            self.net.load_state_dict(net.state_dict())
        else:  # a narrower bundle: its weights inside this run's freshly initialised wider network
            widen(net, self.net)
        if not self.quiet:
            name = printable(str(manifest.get("name", "?")))  # read from a file: no forged log line
            grown = "" if net.spec == self.spec else f", widened from trunk {list(net.spec.trunk)}"
            self.log(f"network initialised from bundle {printable(path)} ({name}{grown})")

    @property
    def net(self) -> BalootNet:
        """The policy's network (``train.policy.BalootPolicy.net``)."""
        return cast(BalootNet, self.model.policy.net)

    @property
    def steps(self) -> int:
        return int(self.model.num_timesteps) * self.cfg.ppo.processes  # every process plays its share

    def stop(self) -> None:
        if self.helpers is not None:
            self.helpers.close()
            self.helpers = None

    # ------------------------------------------------------------------ checkpoints
    def checkpoint(self) -> Path:
        """Save everything the run needs to continue exactly, as tensors and plain data."""
        m = self.model
        payload = {
            "config": to_dict(self.cfg),
            "policy": m.policy.state_dict(),
            "optimizer": m.policy.optimizer.state_dict(),
            "n_updates": int(m._n_updates),
            **learner_state(m, self.pool, self.venv),
            "processes": self.cfg.ppo.processes,
            "helpers": [] if self.helpers is None else self.helpers.states(),
            "schedule": dict(self.next),
            "expert": {"rounds": self.expert_done, "stats": _plain(self.expert_stats)},
            "evals": _plain(self.evals),
            "promotion": promotion_state(self.run_dir),
        }
        return save_checkpoint(self.run_dir, self.steps, payload)

    def _restore(self) -> list[dict[str, Any]]:
        """Restore the latest checkpoint; returns the helpers' states (for ``Helpers.start``)."""
        path = latest_checkpoint(self.run_dir)
        data = load_checkpoint(path)
        m = self.model
        processes = int(data.get("processes", 1))
        if processes != self.cfg.ppo.processes:
            raise CheckpointError(
                f"checkpoint {path} was written by {processes} learner processes; this run has "
                f"ppo.processes={self.cfg.ppo.processes} (resume with ppo.processes={processes})"
            )
        try:
            m.policy.load_state_dict(data["policy"])
            m.policy.optimizer.load_state_dict(data["optimizer"])
            m._n_updates = int(data["n_updates"])
            restore_learner(m, self.pool, self.venv, data)
            helpers = list(data.get("helpers", []))
            self.next = {key: data["schedule"][key] for key in ("checkpoint", "snapshot", "eval")}
            self.expert_done = int(data["expert"]["rounds"])
            self.expert_stats = list(data["expert"]["stats"])
            self.evals = list(data["evals"])
            promotion = data["promotion"]
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, RuntimeError) as e:
            raise CheckpointError(f"checkpoint {path} does not fit this run: {type(e).__name__}: {e}") from None
        restore_promotion_state(self.run_dir, promotion)  # undo what a killed run did after this checkpoint
        self.start_step = self.steps
        self.log(f"resumed {self.run_dir} at step {self.steps:,}")
        return helpers

    def has_checkpoint(self) -> bool:
        return has_checkpoint(self.run_dir)

    # ------------------------------------------------------------------ opponents and figures
    def after_update(self) -> None:
        super().after_update()
        if self.helpers is not None:
            self.helpers.go()  # with what the schedule changed in the pool

    def add_snapshot(self) -> None:
        name = f"step_{self.steps}"
        self.pool.add_snapshot(name, self.net.state_dict())
        if self.helpers is not None:
            self.helpers.snapshot(name)

    def add_champion(self, candidate: Path) -> None:
        net, _ = load_net(candidate)
        name = f"champion@{self.steps}"
        self.pool.add_champion(name, net.state_dict(), net.spec)
        if self.helpers is not None:
            self.helpers.champion(name, str(candidate))

    def scalar(self, key: str, value: float) -> None:
        self.model.logger.record(key, value)

    def flush(self) -> None:
        self.model.logger.dump(self.steps)  # at the step of the evaluation (with this update's train/* figures)

    def selfplay_stats(self) -> dict[str, float]:
        """Win rates by opponent and bidding figures over recent episodes (``train.selfplay``)."""
        sums: dict[str, float] = {}
        for e in self.venv.finished:
            for key, value in episode_counts(e["opponent"], e["reward"], e["won"], e["hands"]).items():
                sums[key] = sums.get(key, 0.0) + value
        return selfplay_stats(sums)

    def log_progress(self) -> None:
        elapsed = time.perf_counter() - self.start_time
        rate = (self.steps - self.start_step) / max(elapsed, 1e-9)
        logger = self.model.logger
        logger.record("charts/decisions_per_s", rate)
        logger.record("charts/learner_decisions", self.steps)
        stats = self.selfplay_stats()
        for k, v in stats.items():
            logger.record(f"selfplay/{k}", v)
        if not self.quiet:
            self.log(progress_line(self.steps, self.cfg.ppo.total_steps, rate, stats, self.evals))

    # ------------------------------------------------------------------ evaluation
    def export_bundle(self, path: Path, evaluations: list[dict[str, Any]] | None = None) -> Path:
        return save_bundle(
            path,
            self.net,
            name=f"{self.run_dir.name}@{f'expert{self.expert_done}+' if self.expert_done else ''}{self.steps}",
            rules=self.cfg.env.rules,
            training=to_dict(self.cfg),
            evaluations=evaluations,
        )

    # ------------------------------------------------------------------ run
    def train(self) -> None:
        cfg = self.cfg
        remaining = cfg.ppo.total_steps - self.steps
        if not self.quiet:
            self.log(
                f"run {self.run_dir}: {max(remaining, 0):,} learner decisions to go, {cfg.ppo.n_envs} games, seed {cfg.seed}, "
                f"{cfg.ppo.processes} learner process(es), {hardware_words(cfg.device, cfg.ppo.precision)}"
            )
        progress = _ProgressCallback(self)
        local = -(-remaining // cfg.ppo.processes)  # each process's share, rounded up
        if self.helpers is not None:
            self.helpers.go(learn=(local, not self.resume) if remaining > 0 else None)
        if remaining > 0:
            self.model.learn(
                total_timesteps=local,
                callback=progress,
                reset_num_timesteps=not self.resume,
                log_interval=None,  # type: ignore[arg-type]  # None: no SB3 log lines (train.progress prints ours)
            )
        self.model.logger.dump(self.steps)

    def after_training(self) -> dict[str, Any]:
        """The figures of the expert rounds (``expert``), and the call step (``calls.positions`` > 0): searched calls teach the bid head
        (``train.call_iteration``)."""
        cfg = self.cfg
        expert = {"expert": self.expert_stats} if self.expert_stats else {}
        if cfg.calls.positions <= 0:
            return {"calls": None, **expert}
        device = device_of(self.net)
        self.net.cpu()  # the call step plays games with the network: a CPU step (train.hardware)
        try:
            fit = improve_calls(self.net, cfg.env.rules, cfg.calls, cfg.seed, self.quiet)
        finally:
            self.net.to(device)
        return {"calls": fit, **expert}


def flat_hparams(config: dict[str, Any], prefix: str = "") -> dict[str, bool | int | float | str]:
    """A nested config as flat ``a.b.c`` keys with tensorboard's value types (others as text)."""
    out: dict[str, bool | int | float | str] = {}
    for k, v in config.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flat_hparams(v, key + "."))
        elif isinstance(v, (bool, int, float, str)):
            out[key] = v
        else:
            out[key] = str(v)
    return out


def _plain(x: Any) -> Any:
    """JSON-plain copy (numpy numbers as python numbers, tuples as lists) of evaluation records."""
    return json.loads(json.dumps(x, default=lambda v: v.item() if isinstance(v, np.generic) else v.tolist()))


class _ProgressCallback(BaseCallback):
    """Periodic log lines and tensorboard dumps every ``log_every`` learner decisions."""

    def __init__(self, trainer: Trainer):
        super().__init__()
        self.trainer = trainer
        self.next_log = trainer.steps + trainer.cfg.log_every

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        if self.trainer.steps >= self.next_log:
            self.trainer.log_progress()
            self.model.logger.dump(self.trainer.steps)
            self.next_log += self.trainer.cfg.log_every
