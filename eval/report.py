"""Duplicate reports: the statistics of a run, a readable table, JSON (atomic) and a PNG plot."""

from __future__ import annotations

import math
import os
from typing import Any

from baloot_env.seats import other_team
from eval.deals import DealSet
from eval.duplicate import DealRecord, MatchRecord
from eval.runner import RunResult
from eval.stats import ci95, correlation, mean_sd, wilson_ci95

REPORT_FORMAT = "baloot-duplicate-report-1"


def _side_stats(records: list[DealRecord], side: str) -> dict[str, Any]:
    """How often a side called, made, was doubled, scored kaboot (R3, R4, R7), over all tables."""
    called = made = doubled = kaboot = 0
    for rec in records:
        for table, tr in enumerate(rec.tables):
            team = table if side == "A" else other_team(table)  # A is team 0 at table 1, team 1 at table 2
            if tr.caller_team == team:
                called += 1
                made += bool(tr.callers_won)
                doubled += tr.level >= 2
            kaboot += tr.kaboot_team == team
    hands = 2 * len(records)
    return {
        "called": called,
        "called_rate": called / hands,
        "made": made,
        "made_rate": made / called if called else None,
        "doubled": doubled,
        "kaboot": kaboot,
        "kaboot_rate": kaboot / hands,
    }


def _match_stats(matches: list[MatchRecord], left_over: tuple[int, int]) -> dict[str, Any]:
    n = len(matches)
    a = sum(m.winner == "A" for m in matches)
    b = sum(m.winner == "B" for m in matches)
    draws = n - a - b
    share = (a + 0.5 * draws) / n if n else None
    return {
        "played": n,
        "a_wins": a,
        "b_wins": b,
        "draws": draws,
        "a_win_rate": share,
        "a_win_rate_ci95": list(wilson_ci95(a + 0.5 * draws, n)) if n else None,
        "mean_deals": sum(m.deals for m in matches) / n if n else None,
        "gahwa_ended": sum(m.reason == "gahwa" for m in matches),
        "unfinished_deals_left_over": list(left_over),
    }


def summarize(
    run: RunResult, spec_a: str, spec_b: str, deal_set: DealSet, full_set: DealSet, seed: int, rules: dict[str, Any]
) -> dict[str, Any]:
    """The report dict: ``deals``, ``mean``, ``sd``, ``ci95``, ``checksum`` and the rest."""
    recs = run.records
    d = [r.d for r in recs]
    x1 = [r.x1 for r in recs]
    x2 = [r.x2 for r in recs]
    n = len(d)
    mean, sd = mean_sd(d)
    single_mean, single_sd = mean_sd(x1 + x2)
    corr = correlation(x1, x2) if n >= 2 else 0.0
    # Two independent tables would give a mean with variance single_sd^2 / 2; duplicate gives sd^2.
    factor = (single_sd**2 / 2) / sd**2 if sd > 0 else math.inf
    report: dict[str, Any] = {
        "format": REPORT_FORMAT,
        "a": spec_a,
        "b": spec_b,
        "deal_set": full_set.name,
        "checksum": full_set.checksum,
        "deals_checksum": deal_set.checksum,
        "seed": seed,
        "rules": rules,
        "deals": n,
        "mean": mean,
        "sd": sd,
        "se": sd / math.sqrt(n) if n else None,
        "ci95": list(ci95(d)),
        "share_a_won": sum(x > 0 for x in d) / n,
        "share_tied": sum(x == 0 for x in d) / n,
        "share_b_won": sum(x < 0 for x in d) / n,
        "single_table_mean": single_mean,
        "single_table_sd": single_sd,
        "table_correlation": corr,
        "duplicate_variance_factor": factor if math.isfinite(factor) else None,
        "thrown_in": sum(r.tables[0].contract is None for r in recs) + sum(r.tables[1].contract is None for r in recs),
        "sides": {"A": _side_stats(recs, "A"), "B": _side_stats(recs, "B")},
        "d": d,
        "seconds": round(run.seconds, 2),
    }
    if run.matches or any(run.left_over):
        report["matches"] = _match_stats(run.matches, run.left_over)
    return report


def format_table(report: dict[str, Any]) -> str:
    """A readable summary of a report."""
    lo, hi = report["ci95"]
    lines = [
        f"duplicate: A = {report['a']}  vs  B = {report['b']}",
        f"deal set {report['deal_set']} (sha256 {report['checksum'][:16]}...), {report['deals']} deals x 2 tables,"
        f" seed {report['seed']}, {report['seconds']} s",
        "",
        f"  mean d (A - B, game points per deal)  {report['mean']:+8.3f}",
        f"  sd of d                               {report['sd']:8.3f}",
        f"  95% interval                          [{lo:+.3f}, {hi:+.3f}]",
        f"  deals won  A / tied / B               {report['share_a_won']:.1%} / {report['share_tied']:.1%}"
        f" / {report['share_b_won']:.1%}",
        f"  single-table sd                       {report['single_table_sd']:8.3f}",
        f"  correlation of the two tables         {report['table_correlation']:+8.3f}",
    ]
    f = report.get("duplicate_variance_factor")
    if f is not None:
        lines.append(f"  variance factor of duplicate          {f:8.2f}  (x fewer deals for the same precision)")
    lines += ["", "  side   called   made    doubled  kaboot"]
    for side in ("A", "B"):
        s = report["sides"][side]
        made = f"{s['made_rate']:.1%}" if s["made_rate"] is not None else "-"
        lines.append(f"  {side:<5}  {s['called_rate']:6.1%}  {made:>6}  {s['doubled']:7d}  {s['kaboot']:6d}")
    lines.append(f"  thrown in: {report['thrown_in']} of {2 * report['deals']} table-hands")
    m = report.get("matches")
    if m:
        rate = "-" if m["a_win_rate"] is None else f"{m['a_win_rate']:.1%}"
        ci = m["a_win_rate_ci95"]
        ci_txt = f" [{ci[0]:.1%}, {ci[1]:.1%}]" if ci else ""
        lines += [
            "",
            f"  matches to 152 (both seatings): {m['played']} played, A won {m['a_wins']}, B won {m['b_wins']},"
            f" drawn {m['draws']}; A's share {rate}{ci_txt}",
        ]
    return "\n".join(lines)


def plot(report: dict[str, Any], path: str | os.PathLike[str]) -> bool:
    """PNG: the distribution of d and the running mean with its 95% band. False without matplotlib."""
    try:
        # optional dependency: matplotlib (the train and eval extras)
        import matplotlib

        matplotlib.use("Agg")
        # optional dependency: matplotlib (the train and eval extras)
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    d = report["d"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    ax1.hist(d, bins=min(60, max(10, len(d) // 10)), color="#4477aa")
    ax1.axvline(report["mean"], color="k", lw=1)
    ax1.set_xlabel("d = mean of (A - B) over the two tables, game points")
    ax1.set_ylabel("deals")
    ax1.set_title(f"{report['a']} vs {report['b']}: distribution of d")
    run_mean, lo, hi = [], [], []
    total = sq = 0.0
    for i, x in enumerate(d, 1):
        total += x
        sq += x * x
        m = total / i
        var = (sq - i * m * m) / (i - 1) if i > 1 else 0.0
        h = 1.96 * math.sqrt(max(var, 0.0) / i) if i > 1 else 0.0
        run_mean.append(m)
        lo.append(m - h)
        hi.append(m + h)
    xs = range(1, len(d) + 1)
    ax2.plot(xs, run_mean, color="#4477aa")
    ax2.fill_between(xs, lo, hi, color="#4477aa", alpha=0.25)
    ax2.axhline(0, color="k", lw=0.8)
    ax2.set_xlabel("deals")
    ax2.set_ylabel("running mean of d")
    ax2.set_title(f"running mean and 95% interval ({report['deal_set']})")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True
