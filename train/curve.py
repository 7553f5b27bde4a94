"""The learning curve of training runs: ``python -m train curve RUN_DIR [RUN_DIR ...]``.

Every periodic evaluation a run made (``train.evaluation.evaluate_run``: after each round of
expert iteration and every ``eval.every`` PPO decisions) is kept in its latest checkpoint, so a
curve can be read while the run goes on, and after a kill. The curve is the duplicate result
against each fixed opponent of the run's ``eval.opponents`` (``heuristic``, ``search``, ...) on
its development set, by expert round, then by PPO decisions; the champion changes as the run
promotes, so the promotion tests are listed but not drawn. Several runs (training seeds of one
recipe) are printed and drawn side by side. Bad input: one line, exit code 2, before any work.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from baloot_cli import OneLineParser, check_output_path, one_line
from train.checkpoint import CheckpointError, latest_checkpoint, load_checkpoint


@dataclass(frozen=True)
class Point:
    """One periodic evaluation of a run: where it was made (``expert_round``, else PPO ``step``),
    the opponent (a name, a spec file, or the champion of the moment) and the result."""

    run: str
    expert_round: int | None
    step: int
    opponent: str
    fixed: bool  # one of the run's eval.opponents (drawn), not the champion of the moment
    deal_set: str
    deals: int
    mean: float
    ci95: tuple[float, float]

    @property
    def at(self) -> str:
        return f"round {self.expert_round}" if self.expert_round is not None else f"{self.step:,} decisions"


def run_points(run_dir: str | Path) -> list[Point]:
    """The periodic evaluations of a run, in the order made (its latest checkpoint's record).

    Raises:
        CheckpointError: no checkpoint, or one without the record.
    """
    data = load_checkpoint(latest_checkpoint(Path(run_dir)))
    try:
        cfg = data["config"]["eval"]
        fixed = set(cfg.get("opponents", ["heuristic"]))
        dev = cfg["deal_set"]
        points = [
            Point(
                str(run_dir),
                e.get("expert_round"),
                int(e["step"]),
                str(e["opponent"]),
                e["opponent"] in fixed,
                str(e["deal_set"]),
                int(e["deals"]),
                float(e["mean"]),
                (float(e["ci95"][0]), float(e["ci95"][1])),
            )
            for e in data["evals"]
        ]
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise CheckpointError(
            f"run {run_dir}: its checkpoint has no evaluation record ({type(e).__name__}: {e})"
        ) from None
    return [p for p in points if p.deal_set == dev]  # the final report's test set is not the curve


def format_points(points: list[Point]) -> str:
    """The curve as a table: one row per evaluation."""
    lines = [f"{'run':<24} {'at':<22} {'opponent':<24} {'deals':>5}  mean d [95% CI]"]
    for p in points:
        who = Path(p.opponent).name if p.fixed else f"champion {Path(p.opponent).name}"
        lines.append(
            f"{Path(p.run).name:<24} {p.at:<22} {who:<24} {p.deals:>5}  "
            f"{p.mean:+.2f} [{p.ci95[0]:+.2f}, {p.ci95[1]:+.2f}]"
        )
    return "\n".join(lines)


def plot_points(points: list[Point], path: str | os.PathLike[str]) -> bool:
    """PNG: mean d with its 95% interval against each fixed opponent, one line per run and
    opponent, by evaluation (expert rounds, then PPO decisions). False without matplotlib."""
    try:
        # optional dependency: matplotlib (the train and eval extras)
        import matplotlib

        matplotlib.use("Agg")
        # optional dependency: matplotlib (the train and eval extras)
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    drawn = [p for p in points if p.fixed]
    places = sorted({(p.expert_round is None, p.expert_round or 0, p.step) for p in drawn})
    x_of = {place: i for i, place in enumerate(places)}
    fig, ax = plt.subplots(figsize=(7, 4))
    series: dict[tuple[str, str], list[Point]] = {}
    for p in drawn:
        series.setdefault((p.run, p.opponent), []).append(p)
    for n, ((run, opponent), ps) in enumerate(series.items()):
        shift = 0.05 * (n - (len(series) - 1) / 2)  # side by side, so the intervals do not hide each other
        xs = [x_of[(p.expert_round is None, p.expert_round or 0, p.step)] + shift for p in ps]
        ys = [p.mean for p in ps]
        err = [[p.mean - p.ci95[0] for p in ps], [p.ci95[1] - p.mean for p in ps]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=f"{Path(run).name} vs {Path(opponent).name}")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(range(len(places)))
    ax.set_xticklabels([f"round {r}" if not ppo else f"{s / 1e6:.1f}M" for ppo, r, s in places])
    ax.set_ylabel("game points per deal (duplicate, 95% CI)")
    ax.set_title(f"learning curve on {drawn[0].deal_set}" if drawn else "learning curve")
    ax.legend(fontsize=8)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(prog="python -m train curve", description=(__doc__ or "").splitlines()[0])
    p.add_argument("runs", nargs="+", help="run directories")
    p.add_argument("--png", help="draw the curve into this PNG file")
    a = p.parse_args(argv)
    try:
        if a.png:
            if not a.png.endswith(".png"):
                raise ValueError(f"--png must name a .png file, got {a.png!r}")
            check_output_path(a.png, "--png")
        points = [pt for run in a.runs for pt in run_points(run)]
    except (ValueError, OSError, CheckpointError) as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    print(format_points(points))
    if a.png:
        if plot_points(points, a.png):
            print(f"curve drawn -> {a.png}")
        else:
            print("no plot: matplotlib is not installed", file=sys.stderr)
    return 0
