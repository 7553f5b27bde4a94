"""The RLlib backend of ``python -m train``: config -> Ray -> seeding -> modules and league ->
PPO iterations -> snapshots, evaluations, logs, checkpoints.

RLlib's PPO (new API stack) trains the ``main`` module (``train.rllib.module.BalootRLModule``,
our ``BalootNet``) on games played by the one game driver (``train.rllib.env``, over
``baloot_env.driver.Table``), with EnvRunners and Learners sized from the ``rllib:`` section, on
the local machine or on a Ray cluster (``--address``). Around RLlib this module does what the
SB3 backend's trainer does (``train.trainer``), with the same config sections, the same warm
start (``train.pretrain``), the same promotion rule and evaluations (``train.evaluation``), the
same policy bundles and TensorBoard tags (``charts/``, ``losses/``, ``selfplay/``, ``pretrain/``,
``eval/dev``, ``eval/test``, ``eval/dev_final`` and the config in the HPARAMS tab; RLlib has no
``clip_fraction``).

Fault tolerance: an EnvRunner that dies is replaced by RLlib (``rllib.restart_failed_env_runners``)
and gets the current weights of every module; a killed driver resumes with ``--resume RUN_DIR``
from its latest checkpoint (weights, optimizer, counters, league, promotion state). A resumed
run is not bit-identical to an unbroken one: RLlib's samplers are not reseeded mid-run.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import ray
import torch
from torch.utils.tensorboard import SummaryWriter

from agents.neural.bundle import BundleError, load_net
from agents.neural.network import BalootNet
from baloot_env.errors import ConfigError
from baloot_env.rewards import Reward
from train.config import save_config, to_dict
from train.evaluation import EVAL_TAG, promotion_state, restore_promotion_state
from train.pretrain import pretrain
from train.progress import progress_line
from train.rllib.algorithm import build_algorithm, connect_ray, module_specs
from train.rllib.checkpoint import (
    checkpoint_to_bundle,
    latest_checkpoint,
    read_state,
    remove_partial_checkpoints,
    save_checkpoint,
)
from train.rllib.config import RLlibTrainConfig, load_rllib_config
from train.rllib.league import MAIN, LeagueMapping, champion_id, snapshot_id
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
        o = cfg.opponents
        weights = (o.self_weight, o.champion_weight, o.heuristic_weight, o.random_weight)
        state: dict[str, Any] | None = None
        if self.resume:
            ckpt = latest_checkpoint(self.run_dir)  # CheckpointError before anything is touched
            state = read_state(ckpt)
        elif cfg.init_from:
            self._init_weights = self._bundle_weights(cfg.init_from)
        self.prepare_run_dir(remove_partial_checkpoints(self.run_dir))
        league = state["league"] if state else {"snapshots": 1, "champions": 0, "next_snapshot": 1, "next_champion": 0}
        self.league = LeagueMapping(weights, league["snapshots"], league["champions"], o.heuristic_weight > 0)
        self.next_slot = {"self": league["next_snapshot"], "champion": league["next_champion"]}
        self.owns_ray = connect_ray(cfg, self.address)
        self.algo = build_algorithm(cfg, self.league)
        self.writer = SummaryWriter(str(self.run_dir / "tb"))
        self.sums: dict[str, float] = {}
        if state is not None:
            self._restore(ckpt, state)
        else:
            save_config(cfg, self.run_dir / "config.yaml")
            self._record_hparams()
            self.next = self.first_schedule(logs=True)
            self._warm_start()
            self.set_weights(snapshot_id(0), self.net_state())

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
    def net_state(self, module_id: str = MAIN) -> dict[str, torch.Tensor]:
        """A module's ``BalootNet`` weights, from the learner (copies)."""
        component = f"learner/rl_module/{module_id}"
        return net_state(self.algo.learner_group.get_state(components=component)["learner"]["rl_module"][module_id])

    def set_weights(self, module_id: str, net_state: dict[str, torch.Tensor]) -> None:
        """Give module ``module_id`` these ``BalootNet`` weights, in the learner and every EnvRunner.

        RLlib's own weight sync skips modules that are not trained, so the EnvRunners get them
        directly, through the object store (one copy however many runners).
        """
        state = {f"net.{k}": v.detach().cpu().numpy() for k, v in net_state.items()}
        self.algo.set_state({"learner_group": {"learner": {"rl_module": {module_id: state}}}})
        ref = ray.put(state)

        def load(runner: Any, ref: Any = ref, module_id: str = module_id) -> None:
            runner.module[module_id].set_state(ray.get(ref) if isinstance(ref, ray.ObjectRef) else ref)

        self.algo.env_runner_group.foreach_env_runner(load, local_env_runner=True)

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
            self.set_weights(MAIN, self._init_weights)
            return
        if self.cfg.pretrain.positions <= 0:
            return

        e = self.cfg.env
        net = BalootNet(self.cfg.net.spec())
        init_like_sb3(net)
        if not self.quiet:
            self.log(f"pretraining: imitating {self.cfg.pretrain.teacher} on {self.cfg.pretrain.positions:,} positions")
        stats = pretrain(
            net, self.cfg.pretrain, self.cfg.seed, e.rules, Reward(e.reward, e.reward_scale, e.match_bonus), self.quiet
        )
        for k, v in stats.items():
            self._writer().add_scalar(f"pretrain/{k}", v, 0)
        self.set_weights(MAIN, net.state_dict())

    # ------------------------------------------------------------------ league
    def add_to_league(self, category: str, net_state: dict[str, torch.Tensor]) -> str:
        """A frozen copy joins the league: a new slot while there are fewer than ``pool_size``,
        else the oldest slot is overwritten. Returns its module id."""
        slot = self.next_slot[category]
        self.next_slot[category] = (slot + 1) % self.cfg.opponents.pool_size
        mid = snapshot_id(slot) if category == "self" else champion_id(slot)
        filled = self.league.snapshots if category == "self" else self.league.champions
        if slot >= filled:  # a new module: RLlib adds it everywhere, then the mapping may name it
            league = (
                dataclasses.replace(self.league, snapshots=filled + 1)
                if category == "self"
                else dataclasses.replace(self.league, champions=filled + 1)
            )
            spec = module_specs(self.cfg, league)[mid]
            self.algo.add_module(
                module_id=mid,
                module_spec=spec,
                new_agent_to_module_mapping_fn=league,
                new_should_module_be_updated=[MAIN],
            )
            self.league = league
        self.set_weights(mid, net_state)
        return mid

    # ------------------------------------------------------------------ checkpoints
    def checkpoint(self) -> Path:
        state = {
            "config": to_dict(self.cfg),
            "steps": self.steps,
            "schedule": dict(self.next),
            "evals": self.evals,
            "league": {
                "snapshots": self.league.snapshots,
                "champions": self.league.champions,
                "next_snapshot": self.next_slot["self"],
                "next_champion": self.next_slot["champion"],
            },
            "promotion": promotion_state(self.run_dir),
        }
        return save_checkpoint(self.run_dir, self.steps, self.algo, state, self.cfg.rllib.keep_checkpoints)

    def _restore(self, ckpt: Path, state: dict[str, Any]) -> None:
        self.algo.restore_from_path(str((ckpt / "algorithm").resolve()))
        self._steps = self.start_step = int(state["steps"])
        self.next = dict(state["schedule"])
        self.evals = list(state["evals"])
        restore_promotion_state(self.run_dir, state["promotion"])  # undo what the killed run did after it
        # every module's weights to every EnvRunner (RLlib's own sync sends the trained one only)
        for mid in self.league.modules():
            if mid not in ("heuristic", "random"):
                self.set_weights(mid, self.net_state(mid))
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
                f"{r.num_env_runners} EnvRunners x {-(-cfg.ppo.n_envs // max(1, r.num_env_runners))} games, "
                f"{max(1, r.num_learners)} learner(s), seed {cfg.seed}"
            )
        while self.steps < cfg.ppo.total_steps:
            result = self.algo.train()
            sampled = result.get("env_runners", {}).get("num_module_steps_sampled", {})
            self._steps += int(sampled.get(MAIN, 0))
            for k, v in result.get("env_runners", {}).get("selfplay", {}).items():
                self.sums[k] = self.sums.get(k, 0.0) + float(v)
            self.last_result = result
            self.after_update()

    def selfplay_stats(self) -> dict[str, float]:
        return selfplay_stats(self.sums)

    def after_training(self) -> dict[str, Any]:
        return {"backend": "rllib"}

    def add_snapshot(self) -> None:
        self.add_to_league("self", self.net_state())

    def add_champion(self, candidate: Path) -> None:
        net, _ = load_net(candidate)
        self.add_to_league("champion", net.state_dict())

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
