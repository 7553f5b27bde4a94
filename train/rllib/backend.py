"""The RLlib backend of ``python -m train``: config -> Ray -> seeding -> module and pool -> PPO
iterations -> snapshots, evaluations, logs, checkpoints.

RLlib's PPO (new API stack, single-agent) trains one module (``train.rllib.module.BalootRLModule``,
our ``BalootNet``) on the self-play games of the SB3 backend, run many at once on the batched
core in every EnvRunner (``train.rllib.vector_env``), with EnvRunners and Learners sized from the
``rllib:`` section, on the local machine or on a Ray cluster (``--address``). The opponent pool
is the SB3 backend's (``train.opponents``): the driver holds the run's snapshots and champions
and every EnvRunner's games draw from the same members (``train.rllib.league``). Around RLlib
this module does what the
SB3 backend's trainer does (``train.trainer``), with the same config sections, the same warm
start (``train.pretrain``), the same promotion rule and evaluations (``train.evaluation``), the
same policy bundles and TensorBoard tags (``charts/``, ``losses/``, ``selfplay/``, ``pretrain/``,
``eval/dev``, ``eval/test``, ``eval/dev_final`` and the config in the HPARAMS tab; RLlib has no
``clip_fraction``).

Fault tolerance: an EnvRunner that dies is replaced by RLlib (``rllib.restart_failed_env_runners``)
and gets the learner's weights and, before the next sample, the pool's members; a killed driver
resumes with ``--resume RUN_DIR`` from its latest checkpoint (weights, optimizer, counters, the
pool's members, promotion state). A resumed
run is not bit-identical to an unbroken one: RLlib's samplers are not reseeded mid-run.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import ray
import torch
from torch.utils.tensorboard import SummaryWriter

from agents.neural.bundle import BundleError, load_net
from agents.neural.network import BalootNet
from baloot_env.errors import ConfigError
from train.config import save_config, to_dict
from train.evaluation import EVAL_TAG, promotion_state, restore_promotion_state
from train.opponents import OpponentPool
from train.pretrain import pretrain
from train.progress import progress_line
from train.rllib.algorithm import build_algorithm, connect_ray, games_per_runner
from train.rllib.checkpoint import (
    MAIN,
    checkpoint_to_bundle,
    latest_checkpoint,
    read_members,
    read_state,
    remove_partial_checkpoints,
    save_checkpoint,
)
from train.rllib.config import RLlibTrainConfig, load_rllib_config
from train.rllib.league import MemberSync
from train.rllib.module import init_like_sb3, net_state
from train.selfplay import selfplay_stats
from train.skeleton import RunFrame
from train.trainer import flat_hparams

# RLlib's learner figures -> the SB3 backend's tags (CleanRL's sections, train.trainer.tag); RLlib
# has no clip_fraction, and its entropy is logged as SB3's entropy_loss, minus the entropy.
LOSSES = {
    "policy_loss": "losses/policy_gradient_loss",
    "vf_loss": "losses/value_loss",
    "total_loss": "losses/loss",
    "mean_kl_loss": "losses/approx_kl",
    "vf_explained_var": "losses/explained_variance",
    "default_optimizer_learning_rate": "charts/learning_rate",
}


class RLlibTrainer(RunFrame):
    """One RLlib training run in ``run_dir`` (fresh, or resumed from its latest checkpoint), in
    the frame every run shares (``train.skeleton.RunFrame``); closing it stops the algorithm and,
    if it started Ray, Ray too."""

    LOG_PREFIX = "train rllib"
    cfg: RLlibTrainConfig

    def __init__(self, cfg: RLlibTrainConfig, resume: bool = False, quiet: bool = False, address: str | None = None):
        self.address = address
        self._steps = 0
        self.algo: Any = None
        self.owns_ray = False
        self.writer: SummaryWriter | None = None
        self.last_result: dict[str, Any] = {}
        super().__init__(cfg, resume, quiet)

    @property
    def steps(self) -> int:
        return self._steps

    def start(self) -> None:
        cfg = self.cfg
        # the driver's generators; RLlib seeds each EnvRunner from cfg.seed and its index
        self.seed_everything()
        # the run's snapshots and champions (the EnvRunners' pools draw from them; its own
        # generators are never used)
        self.pool = OpponentPool(cfg.opponents, cfg.net.spec(), cfg.seed)
        self.members = MemberSync(self.pool)
        state: dict[str, Any] | None = None
        if self.resume:
            ckpt = latest_checkpoint(self.run_dir)  # CheckpointError before anything is touched
            state = read_state(ckpt)
            self.pool.load_members(read_members(ckpt))
        elif cfg.init_from:
            self._init_weights = self._bundle_weights(cfg.init_from)
        self.owns_ray = connect_ray(cfg, self.address)  # a cluster that cannot be joined: before the run dir is touched
        self.prepare_run_dir(remove_partial_checkpoints(self.run_dir))
        self.algo = build_algorithm(cfg)
        self.writer = SummaryWriter(str(self.run_dir / "tb"))
        self.sums: dict[str, float] = {}
        if state is not None:
            self._restore(ckpt, state)
        else:
            save_config(cfg, self.run_dir / "config.yaml")
            self._record_hparams()
            self.next = self.first_schedule(logs=True)
            self._warm_start()
            self.add_snapshot()

    def _record_hparams(self) -> None:
        """The resolved config, flattened, in TensorBoard's HPARAMS tab with the same metrics as
        the SB3 backend (``train.trainer.Trainer._record_hparams``); ``rllib.*`` keys included."""
        # optional dependency: torch (the train extra)
        from torch.utils.tensorboard.summary import hparams

        config = to_dict(self.cfg)
        metrics = {f"{EVAL_TAG}/dev/mean_vs_heuristic": 0.0, "selfplay/episode_reward": 0.0}
        writer = self._writer()
        for summary in hparams(flat_hparams(config), metrics):  # type: ignore[no-untyped-call]  # torch's
            writer.file_writer.add_summary(summary)  # type: ignore[attr-defined]  # open once the writer is

    # ------------------------------------------------------------------ weights
    def net_state(self) -> dict[str, torch.Tensor]:
        """The learner's ``BalootNet`` weights (copies)."""
        component = f"learner/rl_module/{MAIN}"
        return net_state(self.algo.learner_group.get_state(components=component)["learner"]["rl_module"][MAIN])

    def set_weights(self, net_state: dict[str, torch.Tensor]) -> None:
        """Give the learner these ``BalootNet`` weights, and every EnvRunner the learner's."""
        state = {f"net.{k}": v.detach().cpu().numpy() for k, v in net_state.items()}
        self.algo.set_state({"learner_group": {"learner": {"rl_module": {MAIN: state}}}})
        self.algo.env_runner_group.sync_weights(
            from_worker_or_learner_group=self.algo.learner_group, inference_only=True
        )

    def _bundle_weights(self, path: str) -> dict[str, torch.Tensor]:
        try:
            net, _ = load_net(path)
        except BundleError as e:
            raise ConfigError(f"init_from: {e}") from None
        if net.spec != self.cfg.net.spec():
            raise ConfigError(
                f"init_from: bundle {path} has architecture {net.spec.to_dict()}, "
                f"but this run's net config gives {self.cfg.net.spec().to_dict()}"
            )
        return net.state_dict()

    def _warm_start(self) -> None:
        """``init_from``'s weights, or the behaviour-cloning warm start (``train.pretrain``)."""
        if self.cfg.init_from:
            self.set_weights(self._init_weights)
            return
        if not self.cfg.pretrain.on:
            return

        e = self.cfg.env
        net = BalootNet(self.cfg.net.spec())
        init_like_sb3(net)
        if not self.quiet:
            self.log(f"pretraining: {self.cfg.pretrain.describe()}")
        stats = pretrain(net, self.cfg.pretrain, self.cfg.seed, e.rules, e.as_reward(), self.quiet)
        for k, v in stats.items():
            self._writer().add_scalar(f"pretrain/{k}", v, 0)
        self.set_weights(net.state_dict())

    # ------------------------------------------------------------------ league
    def add_snapshot(self) -> None:
        self.pool.add_snapshot(f"step_{self.steps}", self.net_state())
        self.members.changed()

    def add_champion(self, candidate: Path) -> None:
        net, _ = load_net(candidate)
        self.pool.add_champion(f"champion@{self.steps}", net.state_dict(), net.spec)
        self.members.changed()

    # ------------------------------------------------------------------ checkpoints
    def checkpoint(self) -> Path:
        state = {
            "config": to_dict(self.cfg),
            "steps": self.steps,
            "schedule": dict(self.next),
            "evals": self.evals,
            "promotion": promotion_state(self.run_dir),
        }
        return save_checkpoint(
            self.run_dir, self.steps, self.algo, state, self.pool.members(), self.cfg.rllib.keep_checkpoints
        )

    def _restore(self, ckpt: Path, state: dict[str, Any]) -> None:
        self.algo.restore_from_path(str((ckpt / "algorithm").resolve()))
        self._steps = self.start_step = int(state["steps"])
        self.next = dict(state["schedule"])
        self.evals = list(state["evals"])
        restore_promotion_state(self.run_dir, state["promotion"])  # undo what the killed run did after it
        self.set_weights(self.net_state())  # the restored learner's weights to every EnvRunner
        self.log(f"resumed {self.run_dir} at step {self.steps:,} from {ckpt.name}")

    def has_checkpoint(self) -> bool:
        return (self.run_dir / "checkpoints").is_dir()

    # ------------------------------------------------------------------ run
    def train(self) -> None:
        cfg = self.cfg
        if not self.quiet:
            r = cfg.rllib
            self.log(
                f"run {self.run_dir}: {max(0, cfg.ppo.total_steps - self.steps):,} learner decisions to go, "
                f"{r.num_env_runners} EnvRunners x {games_per_runner(cfg)} games, "
                f"{max(1, r.num_learners)} learner(s), seed {cfg.seed}"
            )
        while self.steps < cfg.ppo.total_steps:
            self.members.sync(self.algo.env_runner_group)  # new members, or a replaced EnvRunner
            result = self.algo.train()
            self._steps += int(result.get("env_runners", {}).get("num_env_steps_sampled", 0))
            for k, v in result.get("env_runners", {}).get("selfplay", {}).items():
                self.sums[k] = self.sums.get(k, 0.0) + float(v)
            self.last_result = result
            self.after_update()

    def selfplay_stats(self) -> dict[str, float]:
        return selfplay_stats(self.sums)

    def after_training(self) -> dict[str, Any]:
        return {"backend": "rllib"}

    def _writer(self) -> SummaryWriter:
        if self.writer is None:
            raise RuntimeError("the run has no TensorBoard writer yet")
        return self.writer

    def scalar(self, key: str, value: float) -> None:
        self._writer().add_scalar(key, value, self.steps)

    def flush(self) -> None:
        self._writer().flush()

    def log_progress(self) -> None:
        result = self.last_result
        rate = (self.steps - self.start_step) / max(time.perf_counter() - self.start_time, 1e-9)
        w, s = self._writer(), self.steps
        w.add_scalar("charts/decisions_per_s", rate, s)
        w.add_scalar("charts/learner_decisions", s, s)
        learner = result.get("learners", {}).get(MAIN, {})
        for key, tag in LOSSES.items():
            if key in learner:
                w.add_scalar(tag, float(learner[key]), s)
        if "entropy" in learner:
            w.add_scalar("losses/entropy_loss", -float(learner["entropy"]), s)
        w.add_scalar("charts/clip_range", self.cfg.ppo.clip_range, s)
        stats = selfplay_stats(self.sums)
        for k, v in stats.items():
            w.add_scalar(f"selfplay/{k}", v, s)
        self.last_stats, self.sums = stats, {}
        w.flush()
        if not self.quiet:
            self.log(progress_line(s, self.cfg.ppo.total_steps, rate, stats, self.evals))

    # ------------------------------------------------------------------ bundles and evaluation
    def export_bundle(self, path: Path, evaluations: list[dict[str, Any]] | None = None) -> Path:
        """A policy bundle of ``main`` now, through a checkpoint (so that what is evaluated is what
        a checkpoint holds), its manifest naming ``backend: rllib``."""
        ckpt = self.checkpoint()
        return checkpoint_to_bundle(ckpt, path, name=f"{self.run_dir.name}@{self.steps}", evaluations=evaluations)

    def stop(self) -> None:
        """Stop the algorithm (and the Ray this process started)."""
        if self.writer is not None:
            self.writer.close()
            self.writer = None
        if self.algo is not None:
            self.algo.stop()
            self.algo = None
        if self.owns_ray and ray.is_initialized():
            ray.shutdown()


def train_from_args(
    config: str | None, overrides: list[str], resume: str | None, quiet: bool = False, address: str | None = None
) -> RLlibTrainer:
    """The trainer for ``python -m train --backend rllib`` (fresh from a config, or resuming)."""
    if resume:
        cfg = load_rllib_config(Path(resume) / "config.yaml", [*overrides, f"run_dir={resume}"], fresh=False)
        return RLlibTrainer(cfg, resume=True, quiet=quiet, address=address)
    return RLlibTrainer(load_rllib_config(config, overrides), quiet=quiet, address=address)


def run_rllib_training(
    config: str | None, overrides: list[str], resume: str | None, quiet: bool = False, address: str | None = None
) -> dict[str, Any]:
    """Train, then the final duplicate evaluation, ``bundles/final`` and ``summary.json``, as
    ``train.run.run_training`` does for the SB3 backend."""

    with train_from_args(config, overrides, resume, quiet, address) as trainer:
        return trainer.finish()
