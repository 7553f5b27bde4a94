"""Duplicate evaluation and promotion of a policy bundle during and after training."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

from eval.deals import load_named
from eval.promote import PromotionConfig, PromotionError, promote, read_pointer
from eval.report import summarize, write_json_atomic
from eval.runner import run_duplicate


def evaluate_bundle(
    bundle: Path, opponent: str, deal_set: str, deals: int, seed: int, workers: int, matches: bool = False
) -> dict[str, Any]:
    """Duplicate of ``bundle`` (A) against ``opponent`` (B) on the first ``deals`` of a deal set.

    Returns the evaluation record kept in manifests: opponent, deal set and checksum, deals,
    mean, sd and 95% interval of d (game points per deal), date.
    """
    full = load_named(deal_set)
    ds = full.head(min(deals, len(full)))
    run = run_duplicate(str(bundle), opponent, ds, seed=seed, workers=workers, matches=matches)
    rep = summarize(run, str(bundle), opponent, ds, full, seed, {})
    out = {
        "opponent": opponent,
        "deal_set": full.name,
        "checksum": full.checksum,
        "deals": rep["deals"],
        "mean": rep["mean"],
        "sd": rep["sd"],
        "ci95": rep["ci95"],
        "share_won": rep["share_a_won"],
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    if matches and "matches" in rep:
        out["matches"] = rep["matches"]
    return out


def ensure_pointer(run_dir: Path, initial: str = "heuristic") -> Path:
    """The run's champion pointer, created to name ``initial`` when the run has none."""
    pointer = run_dir / "champion.json"
    if read_pointer(pointer) is None:
        write_json_atomic(pointer, {"format": "baloot-champion-1", "champion": initial, "since": None})
    return pointer


def try_promotion(
    candidate: Path, run_dir: Path, step: int, deal_set: str, deals: int, seed: int, workers: int
) -> dict[str, Any]:
    """Run the evaluation issue's promotion rule for a checkpoint's bundle.

    The candidate is first copied to ``run_dir/champions/step_<N>`` so that the pointer names a
    folder that will not change. Returns the history entry (``promoted`` tells the outcome).
    """
    pointer = ensure_pointer(run_dir)
    stable = run_dir / "champions" / f"step_{step:09d}"
    if stable.exists():
        shutil.rmtree(stable)
    shutil.copytree(candidate, stable)
    try:
        entry = promote(PromotionConfig(candidate=str(stable), champion=str(pointer), deal_set=deal_set,
                                        deals=deals, seed=seed, workers=workers))  # fmt: skip
    except PromotionError:
        shutil.rmtree(stable, ignore_errors=True)
        raise
    if not entry["promoted"]:
        shutil.rmtree(stable, ignore_errors=True)
    return entry
