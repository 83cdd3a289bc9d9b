"""Null distributions behind ``stats``' p-values and its minimum detectable effect, from numpy and
``scipy.special`` only (equal to ``scipy.stats``: tests/test_stats_parity.py). ``scipy.special`` is
imported inside the functions that need it, so importing this module loads no scipy."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


def average_ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks 1..n of ``x``, ties sharing their average rank, and the size of each tie group."""
    import numpy as np

    _, inverse, sizes = np.unique(x, return_inverse=True, return_counts=True)
    starts = np.cumsum(sizes) - sizes
    return (starts + (sizes + 1) / 2.0)[inverse.ravel()], sizes


def signed_rank_exact_p(ranks: np.ndarray, r_plus: float) -> float:
    """Two-sided p of the rank sum ``r_plus`` over all 2**k sign patterns of ``ranks``.

    Patterns are counted by their sum with an integer convolution over doubled
    ranks (tied ranks are half-integers), so the counts are exact, as in
    scipy's exact distribution and permutation test; the comparison keeps the
    permutation test's relative tolerance of 100 machine epsilons.
    """
    import numpy as np

    doubled = np.rint(2.0 * ranks).astype(np.int64)
    counts = np.zeros(int(doubled.sum()) + 1, dtype=np.int64)
    counts[0] = 1
    for r in doubled:
        counts[r:] = counts[r:] + counts[:-r]
    sums = np.arange(counts.size) / 2.0
    gamma = abs(np.finfo(float).eps * 100 * r_plus)
    below = int(counts[sums <= r_plus + gamma].sum())
    above = int(counts[sums >= r_plus - gamma].sum())
    return min(2 * min(below, above) / 2**ranks.size, 1.0)


def signed_rank_normal_p(tie_sizes: np.ndarray, r_plus: float) -> float:
    """Two-sided normal p of ``r_plus`` on k = sum(tie_sizes) ranks, scipy's tie-corrected variance."""
    import numpy as np
    from scipy.special import ndtr

    k = float(tie_sizes.sum())
    mean = k * (k + 1.0) * 0.25
    ties = float(np.sum(tie_sizes.astype(float) ** 3 - tie_sizes))
    se = math.sqrt((k * (k + 1.0) * (2.0 * k + 1.0) - ties / 2) / 24)
    return float(2.0 * ndtr(-abs((r_plus - mean) / se)))


def sign_test_p(k: int, n: int) -> float:
    """Two-sided binomial(n, 1/2) p of k <= n/2; equals ``scipy.stats.binomtest(k, n).pvalue``.

    binomtest sums every outcome no likelier than k (within a relative 1e-7);
    for p = 1/2 (below 4e7 trials) that is exactly both tails 0..k and n-k..n,
    so p = 2 * P(X <= k) = 2 * I_{1/2}(n - k, k + 1), the incomplete beta that
    scipy's binomial CDF evaluates. p = 1 when the tails meet (2k + 1 >= n).
    """
    from scipy.special import betainc

    if 2 * k + 1 >= n:
        return 1.0
    return min(1.0, 2.0 * float(betainc(n - k, k + 1, 0.5)))


@lru_cache(maxsize=256)
def mde_sd(n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest true effect (in SD-of-difference units) a paired t-test detects with ``power``.

    Solved on the noncentral t distribution (two-sided ``alpha``) to within
    1e-10; NaN for n < 2. Uses the special functions behind ``scipy.stats.t``,
    ``nct`` and ``norm`` (stdtrit, nctdtr, ndtri; the upper tail as 1 - CDF) and
    bisection instead of ``scipy.optimize.brentq``: results agree to ~1e-10.
    """
    from scipy.special import nctdtr, ndtri, stdtrit

    if n < 2:
        return float("nan")
    df, crit = n - 1.0, float(stdtrit(n - 1.0, 1.0 - alpha / 2.0))

    def shortfall(dz: float) -> float:
        nc = dz * math.sqrt(n)
        lower = float(nctdtr(df, nc, -crit))
        # the opposite-tail term is < 1e-15 where nctdtr returns NaN for it
        return 1.0 - float(nctdtr(df, nc, crit)) + (lower if math.isfinite(lower) else 0.0) - power

    high = 2.0 * (float(ndtri(1.0 - alpha / 2.0)) + float(ndtri(power))) / math.sqrt(n)
    while shortfall(high) < 0:
        high *= 2.0
    return bisect(shortfall, 0.0, high, xtol=1e-10)


def bisect(f: Callable[[float], float], low: float, high: float, xtol: float) -> float:
    """Root of an increasing ``f`` in [low, high] to within ``xtol``, by bisection.

    Raises ValueError like ``scipy.optimize.brentq`` when f(low) and f(high)
    share a sign (here: ``power`` <= ``alpha``).
    """
    f_low = f(low)
    if f_low == 0:
        return low
    if f_low > 0:
        raise ValueError("f(a) and f(b) must have different signs")
    while high - low > 2.0 * xtol:
        mid = 0.5 * (low + high)
        if f(mid) < 0:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)
