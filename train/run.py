"""``python -m train`` end to end: train, evaluate the result in duplicate, bundle it, summarise."""

from __future__ import annotations

from typing import Any

from train.trainer import Trainer, train_from_args


def run_training(config: str | None, overrides: list[str], resume: str | None, quiet: bool = False) -> dict[str, Any]:
    """Train (fresh or resumed), then (``calls.positions`` > 0) the call step of
    ``train.call_iteration``, then a final duplicate evaluation against ``heuristic``.

    Writes ``bundles/final`` (a verified policy bundle with the evaluation in its manifest) and
    ``summary.json`` into the run directory, and prints a readable summary
    (``train.skeleton.RunFrame.finish``). The run directory stays locked
    (``train.checkpoint.RunLock``) until all of that is written.
    """
    trainer: Trainer = train_from_args(config, overrides, resume, quiet=quiet)
    with trainer:
        return trainer.finish()
