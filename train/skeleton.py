"""The frame of every training run, whatever plays and learns: ``RunFrame``.

A run lives in its run dir and holds its lock (``train.checkpoint.RunLock``) from the first
step, before anything reads or moves the directory, until ``close()``. Starting, it seeds every
generator from ``cfg.seed``, removes what killed writes left, and moves an earlier run aside
(nothing is lost; ``--resume`` continues one instead). During PPO the same schedule runs after
each update, in this order: an opponent snapshot, an evaluation (with the promotion rule),
a progress line where the backend logs on the schedule, a checkpoint. At the end, ``finish``
evaluates on the final deals, writes ``bundles/final`` and ``summary.json`` and prints the
summary.

The backends are the only difference: ``train.trainer.Trainer`` (stable-baselines3 on the
batched core) and ``train.rllib.backend.RLlibTrainer`` (RLlib on a Ray cluster) say how they
start, step, checkpoint, export a bundle, take a champion into their opponents and record a
figure (the abstract methods below).
"""

from __future__ import annotations

import json
import random
import sys
import time
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import numpy as np
import torch

from baloot_cli import InputError, check_output_dir, one_line
from baloot_io.atomic import remove_stale_temps, write_json_atomic
from train.checkpoint import RunLock
from train.evaluation import evaluate_run, promotion_counts

SCHEDULE = ("snapshot", "eval", "log", "checkpoint")  # what runs after an update, in this order
RUN_MARKS = ("config.yaml", "tb", "checkpoints")  # one of them is in every run folder from its first step


def check_run_dir(path: str) -> None:
    """A fresh run can start in ``path``: a folder path that can be made or written, that does not
    hold the current folder, and that is new, empty or an earlier run (``RUN_MARKS``), which the
    run moves aside. A folder of other files is refused rather than moved: ``--run-dir .`` or a
    project's folder must never be renamed under its user.

    Raises:
        InputError: naming the path and the problem.
    """
    if not path.strip():
        raise InputError(f"run_dir must be a folder path, got {path!r}")
    try:
        where = Path(path).resolve()
    except (RuntimeError, OSError) as e:  # a symlink loop, or a path the system cannot follow
        raise InputError(f"run_dir {path!r} cannot be followed: {one_line(e)}") from None
    here = Path.cwd().resolve()
    if where == here or where in here.parents:
        raise InputError(f"run_dir {path!r} holds the current folder {here}; name a folder for the run below it")
    if where.is_dir() and any(where.iterdir()) and not any((where / m).exists() for m in RUN_MARKS):
        raise InputError(
            f"run_dir {path!r} holds files that are not a run of python -m train (none of "
            f"{', '.join(RUN_MARKS)}); name a new or empty folder (nothing was moved)"
        )
    check_output_dir(path, "run_dir")


class RunFrame(ABC):
    """One training run in ``cfg.run_dir`` (fresh, or resumed from its latest checkpoint); see the
    module docstring. ``cfg`` is a ``TrainConfig`` or ``RLlibTrainConfig``.

    Making one stores its settings and does nothing else. ``open()`` (or entering it as a context
    manager) takes the run dir's lock and builds the run (``start``: fresh, or resumed);
    ``run()`` and ``finish()`` open it first, so ``Trainer(cfg).finish()`` is a whole run, and
    ``close()`` (leaving the context) stops it and releases the lock."""

    LOG_PREFIX = "train"  # of the progress lines on stderr

    def __init__(self, cfg: Any, resume: bool, quiet: bool) -> None:
        self.cfg = cfg
        self.resume = resume
        self.quiet = quiet
        self.run_dir = Path(cfg.run_dir)
        self.evals: list[dict[str, Any]] = []
        self.start_time = time.perf_counter()
        self.start_step = 0
        self.next: dict[str, int | None] = {}
        self.lock = RunLock(self.run_dir)
        self.opened = False

    def open(self) -> RunFrame:
        """Take the run dir's lock (``RunDirBusyError`` when another run holds it), then build the
        run; once. A failure on the way releases the lock and what was built."""
        if self.opened:
            return self
        self.lock.acquire()  # before anything reads or moves the run dir
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        self.opened = True
        return self

    # ------------------------------------------------------------------ what a backend says
    @abstractmethod
    def start(self) -> None:
        """Build the run (fresh or resumed); ``seed_everything`` and ``prepare_run_dir`` help."""

    @property
    @abstractmethod
    def steps(self) -> int:
        """Learner decisions so far."""

    @abstractmethod
    def train(self) -> None:
        """PPO up to ``ppo.total_steps``, calling ``after_update`` after each update."""

    @abstractmethod
    def checkpoint(self) -> Path:
        """Save everything the run needs to continue; returns the checkpoint's path."""

    @abstractmethod
    def export_bundle(self, path: Path, evaluations: list[dict[str, Any]] | None = None) -> Path:
        """A verified policy bundle of the current policy at ``path``."""

    @abstractmethod
    def add_snapshot(self) -> None:
        """The current policy joins the opponents as a snapshot."""

    @abstractmethod
    def add_champion(self, candidate: Path) -> None:
        """A promoted bundle joins the opponents as a champion."""

    @abstractmethod
    def scalar(self, key: str, value: float) -> None:
        """Record one figure at the current step (TensorBoard)."""

    @abstractmethod
    def flush(self) -> None:
        """Write the recorded figures out (after an evaluation)."""

    @abstractmethod
    def log_progress(self) -> None:
        """One progress line and its figures."""

    @abstractmethod
    def selfplay_stats(self) -> dict[str, float]:
        """Win rates by opponent and bidding figures over recent episodes."""

    def stop(self) -> None:
        """Release what the backend holds besides the lock (an algorithm, Ray); none by default."""
        return None

    def after_training(self) -> dict[str, Any]:
        """Work between PPO and the final evaluation; its figures go into the summary."""
        return {}

    @abstractmethod
    def has_checkpoint(self) -> bool:
        """Whether the run dir holds a checkpoint of this backend."""

    def log(self, msg: str) -> None:
        print(f"[{self.LOG_PREFIX} {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

    # ------------------------------------------------------------------ start
    def seed_everything(self) -> None:
        """The process's generators and torch threads, from ``cfg`` (one visible block)."""
        torch.set_num_threads(self.cfg.torch_threads)
        random.seed(self.cfg.seed)
        np.random.seed(self.cfg.seed)
        torch.manual_seed(self.cfg.seed)

    def prepare_run_dir(self, removed: list[Path] | None = None) -> None:
        """Remove what killed writes left (and the backend's own ``removed``); a fresh run moves
        an earlier run aside to ``RUN.old-STAMP`` so that it never mixes with one; then the dir."""
        gone = [*(removed or []), *remove_stale_temps(self.run_dir)]
        if gone and not self.quiet:
            self.log(f"removed {', '.join(p.name for p in gone)}, left by a killed run")
        if not self.resume and self.run_dir.exists() and any(self.run_dir.iterdir()):
            stamp = time.strftime("%Y%m%d-%H%M%S")
            kept = self.run_dir.with_name(f"{self.run_dir.name}.old-{stamp}")
            k = 1
            while kept.exists():
                kept, k = self.run_dir.with_name(f"{self.run_dir.name}.old-{stamp}-{k}"), k + 1
            self.run_dir.rename(kept)
            if not self.quiet:
                self.log(f"{self.run_dir} held an earlier run: moved it to {kept} (use --resume to continue a run)")
        self.run_dir.mkdir(parents=True, exist_ok=True)

    def first_schedule(self, logs: bool) -> dict[str, int | None]:
        """When each scheduled step first comes (``SCHEDULE``; ``logs``: progress lines on it too,
        else the backend logs on its own); no evaluation with ``eval.every: 0``."""
        c = self.cfg
        first: dict[str, int | None] = {
            "checkpoint": c.checkpoint_every,
            "snapshot": c.opponents.snapshot_every,
            "eval": c.eval.every if c.eval.every > 0 else None,
        }
        if logs:
            first["log"] = c.log_every
        return first

    # ------------------------------------------------------------------ during PPO
    def after_update(self) -> None:
        """The schedule after a PPO update (module docstring)."""
        c = self.cfg
        every = {"snapshot": c.opponents.snapshot_every, "eval": c.eval.every, "log": c.log_every}
        every["checkpoint"] = c.checkpoint_every
        actions = {
            "snapshot": self.add_snapshot,
            "eval": lambda: self.evaluate(c.eval.deals),
            "log": self.log_progress,
            "checkpoint": self.checkpoint,
        }
        for key in SCHEDULE:
            at = self.next.get(key)
            if at is not None and self.steps >= at:
                actions[key]()
                self.next[key] = at + every[key]

    def evaluate(
        self, deals: int, final: bool = False, deal_set: str | None = None, expert_round: int | None = None
    ) -> list[dict[str, Any]]:
        """Duplicate evaluation of the current policy against ``eval.opponents`` and the champion; then,
        unless this is the final evaluation, the promotion rule (``train.evaluation.evaluate_run``):
        a promoted policy also joins the opponents as a champion. ``expert_round``: the
        evaluation after that round of expert iteration (its stamp)."""
        found = evaluate_run(
            self.cfg,
            self.run_dir,
            self.steps,
            self.export_bundle(self.run_dir / "bundles" / "current"),
            deals,
            final=final,
            deal_set=deal_set,
            log=None if self.quiet else self.log,
            expert_round=expert_round,
        )
        for tag, value in found.scalars:
            self.scalar(tag, value)
        if found.promoted is not None:
            self.add_champion(found.promoted)
        self.evals += found.results
        self.flush()
        return found.results

    # ------------------------------------------------------------------ run and finish
    def expert_rounds(self) -> None:
        """Expert iteration before PPO (``expert.rounds``): none in this frame (the SB3 backend has it)."""
        return None

    def run(self) -> dict[str, Any]:
        """Expert iteration's rounds, then PPO to ``ppo.total_steps``, from wherever the run
        stands; a checkpoint before (right after the warm start: a kill never costs it again),
        after each round and after PPO."""
        self.open()
        if not self.has_checkpoint():
            self.checkpoint()
        self.expert_rounds()
        self.start_time = time.perf_counter()  # throughput counts PPO only, not the warm start
        self.train()
        self.checkpoint()
        return {
            "steps": self.steps,
            "seconds": time.perf_counter() - self.start_time,
            "selfplay": self.selfplay_stats(),
        }

    def finish(self) -> dict[str, Any]:
        """Train, then ``after_training``, then the final evaluation, ``bundles/final`` and
        ``summary.json`` (written atomically), and the printed summary."""
        stats = self.run()
        extra = self.after_training()
        c = self.cfg
        final = self.evaluate(c.eval.final_deals, final=True, deal_set=c.eval.final_deal_set)
        bundle = self.export_bundle(self.run_dir / "bundles" / "final", evaluations=final)
        summary = {
            "run_dir": str(self.run_dir),
            "steps": stats["steps"],
            "seconds": round(stats["seconds"], 1),
            "decisions_per_s": round((stats["steps"] - self.start_step) / max(stats["seconds"], 1e-9), 1),
            "selfplay": stats["selfplay"],
            **extra,
            "final_evaluation": final,
            "bundle": str(bundle),
            "champion": json.loads((self.run_dir / "champion.json").read_text())["champion"],
            "promotions": promotion_counts(self.run_dir),
        }
        write_json_atomic(self.run_dir / "summary.json", summary)
        print(format_summary(summary), file=sys.stdout, flush=True)
        return summary

    # ------------------------------------------------------------------ lock
    def close(self) -> None:
        """Stop the backend and release the run dir's lock (the run is over or abandoned); nothing
        when the run was never opened."""
        if not self.lock.held:
            return
        try:
            self.stop()
        finally:
            self.lock.release()
            self.opened = False

    def __enter__(self) -> RunFrame:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()


def format_summary(s: dict[str, Any]) -> str:
    """The summary a finished run prints (``RunFrame.finish``)."""
    lines = [
        "",
        f"Training run {s['run_dir']}",
        f"  learner decisions : {s['steps']:,} in {s['seconds']:.0f} s ({s['decisions_per_s']:,.0f}/s this session)",
    ]
    rounds = s.get("expert") or []
    if rounds:
        labelled = sum(r["positions"] for r in rounds)
        lines.append(f"  expert iteration  : {len(rounds)} round(s), {labelled:,} positions labelled in all")
    sp = s["selfplay"]
    wins = ", ".join(f"{k[12:]} {v:.0%}" for k, v in sp.items() if k.startswith("win_rate_vs_"))
    if wins:
        lines.append(f"  self-play wins    : {wins} (recent episodes)")
    for ev in s["final_evaluation"]:
        lo, hi = ev["ci95"]
        lines.append(
            f"  duplicate vs {Path(ev['opponent']).name:<10}: {ev['mean']:+.2f} game points per deal, 95% CI [{lo:+.2f}, {hi:+.2f}], "
            f"{ev['deals']} deals of {ev['deal_set']} ({ev['checksum'][:12]}...)"
        )
        if "matches" in ev and ev["matches"].get("played"):
            m = ev["matches"]
            lines.append(f"    matches to 152: {m['a_wins']}/{m['played']} won")
    lines.append(f"  policy bundle     : {s['bundle']}")
    lines.append(f"  champion          : {s['champion']}{_promotion_note(s.get('promotions'))}")
    lines.append(f"  tensorboard       : tensorboard --logdir {s['run_dir']}/tb")
    return "\n".join(lines)


def _promotion_note(counts: dict[str, int] | None) -> str:
    """What the champion line means: how many of the run's promotion tests passed."""
    if not counts or not counts["tests"]:
        return " (no promotion test in this run)"
    tests, promoted = counts["tests"], counts["promoted"]
    if not promoted:
        return f" (none of the {tests} promotion test(s) passed: the trained policy was not shown better)"
    return f" ({promoted} of {tests} promotion test(s) passed)"
