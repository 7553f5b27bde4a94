"""The league's picture (``python -m eval league --plot``): the matrix of mean d as a heatmap with
the values in its cells, beside the Elo ratings as bars, agents in rating order.

Separate from ``eval.league`` because it needs matplotlib (an optional plotting dependency) and
reads nothing but a finished league report.
"""

from __future__ import annotations

import io
import os
from typing import Any

from baloot_io.atomic import write_bytes_atomic


def plot_league(rep: dict[str, Any], path: str | os.PathLike[str]) -> bool:
    """PNG (written atomically): (left) the matrix of mean d as a heatmap with the values in the
    cells, (right) the Elo ratings as bars; agents in rating order, best first. False without
    matplotlib."""
    try:
        # optional dependency: matplotlib (the train and eval extras)
        import matplotlib

        matplotlib.use("Agg")
        # optional dependency: matplotlib (the train and eval extras)
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    labels = rep.get("labels") or rep["agents"]
    k = len(labels)
    order = sorted(range(k), key=lambda i: -rep["elo"][i])
    cells = [[float("nan") if i == j else rep["mean"][i][j] for j in order] for i in order]
    top = max((abs(x) for row in cells for x in row if x == x), default=1.0) or 1.0
    names = [labels[i] for i in order]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(5 + 1.1 * k, 1.5 + 0.6 * k), gridspec_kw={"width_ratios": [3, 2]})
    image = ax1.imshow(cells, cmap="RdBu", vmin=-top, vmax=top)
    for r in range(k):
        for c in range(k):
            if r != c:  # white on the dark ends of the colour scale
                color = "white" if abs(cells[r][c]) > 0.6 * top else "black"
                ax1.text(c, r, f"{cells[r][c]:+.1f}", ha="center", va="center", fontsize=9, color=color)
    ax1.set_xticks(range(k), names, rotation=30, ha="right")
    ax1.set_yticks(range(k), names)
    ax1.set_title("mean d, row vs column (game points per deal)")
    fig.colorbar(image, ax=ax1, fraction=0.046, pad=0.04)
    ratings = [rep["elo"][i] for i in order]
    anchor = sum(ratings) / k  # elo_ratings' anchor: the bars show each agent's distance from the mean
    ax2.barh(range(k), [r - anchor for r in ratings], left=anchor, color="#4477aa")
    for y, r in enumerate(ratings):
        ax2.text(r, y, f" {r:.0f} ", ha="left" if r >= anchor else "right", va="center", fontsize=9)
    spread = max(abs(r - anchor) for r in ratings) or 100.0
    ax2.set_xlim(anchor - 1.5 * spread, anchor + 1.5 * spread)
    ax2.set_yticks(range(k), names)
    ax2.invert_yaxis()  # the best at the top, as in the matrix
    ax2.axvline(anchor, color="k", lw=0.8)
    ax2.set_xlabel("Elo (fitted to deals won, a tie counting half)")
    ax2.set_title(f"ratings on {rep['deal_set']} ({rep['deals']} deals)")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, dpi=100, format="png", bbox_inches="tight")  # no label cut at the edge
    plt.close(fig)
    write_bytes_atomic(path, buf.getvalue())  # creates the folder, as the CLI's check promises
    return True
