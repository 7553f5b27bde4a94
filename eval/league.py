"""League table: round-robin duplicate among several agents, with Elo ratings.

Each pair plays the same deals in duplicate (``runner.run_duplicate``, no matches). The matrix
holds the mean of d (row agent as A) and the Elo ratings are fitted (``stats.elo_ratings``) to
the deals won, a tied deal counting half.
"""

from __future__ import annotations

from typing import Any

from agents.registry import resolve_spec
from eval.deals import DealSet
from eval.runner import run_duplicate
from eval.stats import ci95, elo_ratings, mean_sd


def league(
    specs: list[str],
    deal_set: DealSet,
    full_checksum: str,
    *,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    torch_threads: int | None = None,
) -> dict[str, Any]:
    """Round robin among ``specs`` on ``deal_set``; returns the league report dict.

    Every agent is resolved before the first pair plays, so a bad one costs no evaluation;
    ``torch_threads`` is passed to ``runner.run_duplicate``.

    Raises:
        ValueError: fewer than two different agents.
        AgentSpecError: an agent spec is unknown or its file missing or corrupt.
    """
    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise ValueError(f"a league needs at least two different agents, got {specs}")
    for spec in specs:
        resolve_spec(spec)
    k = len(specs)
    mean = [[0.0] * k for _ in range(k)]
    interval: list[list[list[float] | None]] = [[None] * k for _ in range(k)]
    scores = [[0.0] * k for _ in range(k)]
    games = [[0.0] * k for _ in range(k)]
    for i in range(k):
        for j in range(i + 1, k):
            run = run_duplicate(
                specs[i],
                specs[j],
                deal_set,
                seed=seed,
                workers=workers,
                matches=False,
                progress=progress,
                torch_threads=torch_threads,
            )
            d = [r.d for r in run.records]
            m, _ = mean_sd(d)
            lo, hi = ci95(d)
            mean[i][j], mean[j][i] = m, -m
            interval[i][j], interval[j][i] = [lo, hi], [-hi, -lo]
            wins = sum(x > 0 for x in d) + 0.5 * sum(x == 0 for x in d)
            scores[i][j], scores[j][i] = wins, len(d) - wins
            games[i][j] = games[j][i] = len(d)
    elo = elo_ratings(scores, games)
    order = sorted(range(k), key=lambda i: -elo[i])
    return {
        "agents": specs,
        "deal_set": deal_set.name,
        "checksum": full_checksum,
        "deals": len(deal_set),
        "seed": seed,
        "mean": mean,
        "ci95": interval,
        "deal_wins": scores,
        "elo": elo,
        "ranking": [{"agent": specs[i], "elo": round(elo[i], 1)} for i in order],
    }


def format_league(rep: dict[str, Any]) -> str:
    """Ratings and the matrix of mean d (row as A against column as B)."""
    names = rep["agents"]
    w = max(10, *(len(n) for n in names))
    lines = [f"league on {rep['deal_set']} ({rep['deals']} deals, sha256 {rep['checksum'][:16]}...)", ""]
    lines.append(f"  {'agent':<{w}}  elo")
    for row in rep["ranking"]:
        lines.append(f"  {row['agent']:<{w}}  {row['elo']:7.1f}")
    lines += [
        "",
        "  mean d, row vs column (game points per deal)",
        "  " + " " * w + "".join(f"{n[:10]:>12}" for n in names),
    ]
    for i, n in enumerate(names):
        cells = "".join(f"{'-':>12}" if i == j else f"{rep['mean'][i][j]:>+12.2f}" for j in range(len(names)))
        lines.append(f"  {n:<{w}}" + cells)
    return "\n".join(lines)
