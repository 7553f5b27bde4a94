"""``python -m train`` end to end: train, evaluate the result in duplicate, bundle it, summarise."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from baloot_io.atomic import write_json_atomic
from train.call_iteration import improve_calls
from train.trainer import Trainer, train_from_args


def run_training(config: str | None, overrides: list[str], resume: str | None, quiet: bool = False) -> dict[str, Any]:
    """Train (fresh or resumed), then (``calls.positions`` > 0) the call step of
    ``train.call_iteration``, then a final duplicate evaluation against ``heuristic``.

    Writes ``bundles/final`` (a verified policy bundle with the evaluation in its manifest) and
    ``summary.json`` into the run directory, and prints a readable summary. The run directory
    stays locked (``train.checkpoint.RunLock``) until all of that is written.
    """
    trainer: Trainer = train_from_args(config, overrides, resume, quiet=quiet)
    with trainer:
        return _finish(trainer)


def _finish(trainer: Trainer) -> dict[str, Any]:
    stats = trainer.run()
    cfg = trainer.cfg
    calls_fit = None
    if cfg.calls.positions > 0:  # after PPO: searched calls teach the bid head (train.call_iteration)
        calls_fit = improve_calls(trainer.net, cfg.env.rules, cfg.calls, cfg.seed, trainer.quiet)
    final = trainer.evaluate(cfg.eval.final_deals, final=True, deal_set=cfg.eval.final_deal_set)
    trainer.model.logger.dump(trainer.steps)  # the final eval/ figures reach tensorboard too
    bundle = trainer.export_bundle(trainer.run_dir / "bundles" / "final", evaluations=final)
    summary = {
        "run_dir": str(trainer.run_dir),
        "steps": stats["steps"],
        "seconds": round(stats["seconds"], 1),
        "decisions_per_s": round((stats["steps"] - trainer.start_step) / max(stats["seconds"], 1e-9), 1),
        "selfplay": stats["selfplay"],
        "calls": calls_fit,
        "final_evaluation": final,
        "bundle": str(bundle),
        "champion": json.loads((trainer.run_dir / "champion.json").read_text())["champion"],
    }
    write_json_atomic(trainer.run_dir / "summary.json", summary)
    print(format_summary(summary), file=sys.stdout, flush=True)
    return summary


def format_summary(s: dict[str, Any]) -> str:
    lines = [
        "",
        f"Training run {s['run_dir']}",
        f"  learner decisions : {s['steps']:,} in {s['seconds']:.0f} s ({s['decisions_per_s']:,.0f}/s this session)",
    ]
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
    lines.append(f"  champion          : {s['champion']}")
    lines.append(f"  tensorboard       : tensorboard --logdir {s['run_dir']}/tb")
    return "\n".join(lines)
