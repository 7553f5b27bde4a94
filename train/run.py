"""``python -m train`` end to end: train, evaluate the result in duplicate, bundle it, summarise."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from train.checkpoint import latest_checkpoint, load_checkpoint
from train.config import TrainConfig, load_config
from train.trainer import Trainer


def load_run_config(config: str | None, overrides: list[str], resume: str | None) -> TrainConfig:
    """The run's config, read and validated (the one place ``python -m train`` does it): a fresh
    run's from ``config`` (the defaults for None) with ``overrides``, a resumed run's from the
    ``config.yaml`` saved in its folder (``fresh=False``: ``init_from`` served the run's start
    and is not read again).

    Raises:
        ConfigError: naming the key and the problem.
    """
    if resume:
        return load_config(Path(resume) / "config.yaml", [*overrides, f"run_dir={resume}"], fresh=False)
    return load_config(config, overrides)


def run_training(cfg: TrainConfig, resume: bool = False, quiet: bool = False) -> dict[str, Any]:
    """Train (fresh, or ``resume`` the run in ``cfg.run_dir``), then (``calls.positions`` > 0) the call step of
    ``train.call_iteration``, then a final duplicate evaluation against ``heuristic``.

    Writes ``bundles/final`` (a verified policy bundle with the evaluation in its manifest) and
    ``summary.json`` into the run directory, and prints a readable summary
    (``train.skeleton.RunFrame.finish``). The run directory stays locked
    (``train.checkpoint.RunLock``) until all of that is written. Resuming a run that is already
    finished (``finished_summary``) changes nothing: it says so and returns the run's summary.
    """
    run_dir = Path(cfg.run_dir)
    if resume:
        done = finished_summary(run_dir, cfg)
        if done is not None:
            print(
                f"run {run_dir} is finished ({done['steps']:,} learner decisions, {len(done.get('expert') or [])} expert "
                f"round(s); {run_dir / 'summary.json'}): nothing to do. To continue it, raise ppo.total_steps or "
                f"expert.rounds in {run_dir / 'config.yaml'} and resume again.",
                file=sys.stdout,
                flush=True,
            )
            return done
    with Trainer(cfg, resume=resume, quiet=quiet) as trainer:
        return trainer.finish()


def finished_summary(run_dir: Path, cfg: TrainConfig) -> dict[str, Any] | None:
    """The summary of a run that has nothing left to do, else None: its ``summary.json`` was
    written from its latest checkpoint (the same decisions and expert rounds), and that checkpoint
    has reached its saved config's ``ppo.total_steps`` and ``expert.rounds``. A run whose config was
    raised after it finished, or that was killed after the checkpoint but before the summary, has
    work left. ``cfg``: the run's saved config."""
    path = run_dir / "summary.json"
    if not path.is_file():
        return None
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
        steps, rounds = int(summary["steps"]), len(summary.get("expert") or [])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # a damaged summary is rewritten by finishing the run again
    data = load_checkpoint(latest_checkpoint(run_dir))
    at = (int(data["step"]), int(data.get("expert", {}).get("rounds", 0)))
    if at != (steps, rounds) or steps < cfg.ppo.total_steps or rounds < cfg.expert.rounds:
        return None
    return dict(summary)
