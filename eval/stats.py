"""Statistics for duplicate evaluation: mean, sd, intervals, correlation, a sequential test, Elo.

Everything is computed from plain lists with the standard library, so reports are exact and
reproducible; no global random state is used anywhere.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054  # two-sided 95% normal quantile

# O'Brien-Fleming group-sequential constants for K equally spaced looks, two-sided alpha 0.05
# (Jennison & Turnbull 2000, Table 2.3): reject at look k when |z_k| >= C_K * sqrt(K / k).
OBF_CONSTANTS = {1: 1.960, 2: 1.977, 3: 2.004, 4: 2.024, 5: 2.040, 6: 2.053, 8: 2.072, 10: 2.087}


def mean_sd(xs: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (n - 1); sd is 0 for fewer than two values."""
    n = len(xs)
    if n == 0:
        raise ValueError("no values")
    m = math.fsum(xs) / n
    if n < 2:
        return m, 0.0
    var = math.fsum((x - m) ** 2 for x in xs) / (n - 1)
    return m, math.sqrt(var)


def t_quantile_975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom.

    Exact values for df 1-4, then the Cornish-Fisher expansion around the normal quantile
    (error below 1e-4 for df >= 5).
    """
    exact = {1: 12.706204736, 2: 4.302652730, 3: 3.182446305, 4: 2.776445105}
    if df < 1:
        return math.inf
    if df in exact:
        return exact[df]
    z = Z95
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def ci95(xs: Sequence[float]) -> tuple[float, float]:
    """Student-t 95% interval of the mean of ``xs``."""
    m, sd = mean_sd(xs)
    n = len(xs)
    if n < 2:
        return (m, m) if sd == 0 else (-math.inf, math.inf)
    h = t_quantile_975(n - 1) * sd / math.sqrt(n)
    return m - h, m + h


def correlation(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Pearson correlation; 0 when either side is constant."""
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError("need two sequences of the same length >= 2")
    mx, sx = mean_sd(xs)
    my, sy = mean_sd(ys)
    if sx == 0 or sy == 0:
        return 0.0
    cov = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / (len(xs) - 1)
    return cov / (sx * sy)


def wilson_ci95(successes: float, n: int) -> tuple[float, float]:
    """Wilson 95% interval of a proportion (draws may count as halves)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


# ---------------------------------------------------------------------- sequential test
@dataclass(frozen=True)
class SequentialDecision:
    """Outcome of the group-sequential test at one look.

    Attributes:
        decision: "promote" (candidate better), "reject" (clearly worse or not shown better at
            the last look) or "continue".
        look: 1-based index of the look.
        n: deals seen so far.
        z: mean / standard error so far.
        bound: the critical |z| at this look.
    """

    decision: str
    look: int
    n: int
    z: float
    bound: float


ALPHA = 0.025  # one-sided: the chance of promoting a candidate no better than the champion, per test


def _continue_probability(c: float, looks: int, grid: int = 1201) -> float:
    """P(|S_k| < c * sqrt(looks) at every look k) for a standard random walk S (unit-variance steps).

    On the scale of the sums S_k = z_k * sqrt(k), the O'Brien-Fleming bounds are the constant
    c * sqrt(looks); the density of S among the paths still running is carried from look to
    look by convolving with the normal step on a grid (the recursive integration of Armitage,
    McPherson and Rowe, 1969).
    """

    h = c * math.sqrt(looks)
    x = np.linspace(-h, h, grid)
    dx = x[1] - x[0]
    w = np.full(grid, dx)
    w[0] = w[-1] = dx / 2  # trapezoid weights

    def phi(u: np.ndarray) -> np.ndarray:  # the standard normal density
        density: np.ndarray = np.exp(-0.5 * u * u) / math.sqrt(2 * math.pi)
        return density

    f = phi(x)
    kernel = phi(x[:, None] - x[None, :])
    for _ in range(looks - 1):
        f = kernel @ (f * w)
    return float(np.sum(f * w))


def obf_constant(looks: int, alpha: float = ALPHA) -> float:
    """The O'Brien-Fleming constant C: at look k of ``looks`` the bound on |z| is C * sqrt(looks / k).

    With these symmetric bounds, the probability of ever crossing the upper one when the true
    mean is 0 is ``alpha`` (one-sided). For ``alpha`` 0.025 the published constants are used
    (Jennison and Turnbull 2000, Table 2.3); any other ``alpha`` (a run spending its error rate
    over several tests) is solved for numerically.
    """
    if not isinstance(looks, int) or looks < 1:
        raise ValueError(f"looks must be a positive integer, got {looks!r}")
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha!r}")
    if alpha == ALPHA and looks in OBF_CONSTANTS:
        return OBF_CONSTANTS[looks]
    return _solve_obf(looks, alpha)


@functools.lru_cache(maxsize=64)
def _solve_obf(looks: int, alpha: float) -> float:
    lo, hi = 0.5, 8.0
    for _ in range(60):  # bisection on P(stop early or at the end by crossing) = 2 * alpha
        mid = (lo + hi) / 2
        if 1 - _continue_probability(mid, looks) > 2 * alpha:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def obf_bound(look: int, looks: int, alpha: float = ALPHA) -> float:
    """O'Brien-Fleming critical z at ``look`` of ``looks`` (one-sided error ``alpha`` overall)."""
    if not 1 <= look <= looks:
        raise ValueError(f"look must be between 1 and {looks}, got {look}")
    return obf_constant(looks, alpha) * math.sqrt(looks / look)


def sequential_decision(d: Sequence[float], look: int, looks: int, alpha: float = ALPHA) -> SequentialDecision:
    """Group-sequential test of mean(d) > 0 at look ``look`` of ``looks`` equally spaced looks.

    Promote when z >= bound; stop and reject when z <= -bound (clearly worse); at the last
    look anything short of the bound is a rejection. With the O'Brien-Fleming bounds the
    probability of promoting a candidate that is not better is at most 2.5% (one-sided, normal
    approximation), the same as a single 95% interval on all the deals; the early looks need
    a much stronger result (|z| >= 4.05, 2.86, 2.34 for four looks), so stopping early costs
    almost no power. The last bound (2.024 for four looks) is a little above 1.96, so a
    promotion always implies a lower 95% bound above 0. A smaller ``alpha`` (a training run
    that spends 2.5% over all its tests) raises every bound.
    """
    m, sd = mean_sd(d)
    n = len(d)
    se = sd / math.sqrt(n) if n > 1 else math.inf
    if se == 0:
        z = math.inf if m > 0 else (-math.inf if m < 0 else 0.0)
    else:
        z = m / se
    bound = obf_bound(look, looks, alpha)
    if z >= bound:
        decision = "promote"
    elif z <= -bound or look == looks:
        decision = "reject"
    else:
        decision = "continue"
    return SequentialDecision(decision, look, n, z, bound)


# ---------------------------------------------------------------------- Elo
def elo_ratings(
    scores: Sequence[Sequence[float]], games: Sequence[Sequence[float]], anchor: float = 1500.0, iters: int = 2000
) -> list[float]:
    """Elo ratings fitted to pairwise results (Bradley-Terry maximum likelihood).

    Args:
        scores: ``scores[i][j]`` points i took from j (a won deal 1, a tied one 0.5).
        games: ``games[i][j]`` deals i and j played.
        anchor: the mean rating.

    Returns ratings such that the expected share of i against j is
    ``1 / (1 + 10 ** ((R_j - R_i) / 400))``. A side that won or lost everything gets half
    a point of prior against every opponent so that ratings stay finite.
    """
    k = len(scores)
    if k == 0:
        return []
    prior = 0.5
    wins = [math.fsum(scores[i][j] for j in range(k) if j != i) + prior * (k - 1) for i in range(k)]
    strength = [1.0] * k
    for _ in range(iters):
        new = []
        for i in range(k):
            denom = 0.0
            for j in range(k):
                if i != j:
                    n_ij = games[i][j] + 2 * prior
                    denom += n_ij / (strength[i] + strength[j])
            new.append(wins[i] / denom if denom > 0 else strength[i])
        g = math.exp(math.fsum(math.log(s) for s in new) / k)
        new = [s / g for s in new]
        done = max(abs(a - b) for a, b in zip(new, strength, strict=True)) < 1e-12
        strength = new
        if done:
            break
    return [anchor + 400 * math.log10(s) for s in strength]
