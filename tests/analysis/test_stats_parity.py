"""workbench.stats without scipy.stats: every p-value and the MDE against scipy.stats on seeded inputs.

workbench.stats recomputes ttest_1samp, wilcoxon (every branch of its 'auto'
method), binomtest and the noncentral-t power solve from numpy and
scipy.special; these tests call the scipy.stats originals on the same inputs.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Iterator

import numpy as np
import pytest
from scipy import optimize
from scipy import stats as sps

from workbench.analysis import stats

RTOL = 1e-9


def _diff_vectors() -> Iterator[np.ndarray]:
    """Differences of every shape scipy's wilcoxon treats differently (seeded).

    scipy's permutation branch (ties or zeros, n <= 13) enumerates 2**n sign
    patterns slowly (0.7 s at n = 13), so tied inputs of 10-13 pairs are few.
    """
    rng = np.random.default_rng(20261201)
    for n in [*range(1, 16), 20, 30, 45, 49, 50, 51, 52, 60, 200]:
        tied_reps = {10: 1, 11: 0, 12: 0, 13: 1}.get(n, 4)
        for _ in range(4):
            yield rng.normal(0.1, 1.0, n)  # continuous: no ties, no zeros
            yield np.abs(rng.normal(0.0, 1.0, n)) + 0.01  # all positive
        for _ in range(tied_reps):
            yield rng.integers(-3, 4, n).astype(float)  # many ties and zeros
        if tied_reps > 1:
            yield rng.choice([0.0, 0.2, 0.25, 1 / 3, 0.5, 1.0], n) - rng.choice([0.0, 0.5, 1.0], n)
            yield -rng.integers(1, 3, n).astype(float)  # all negative, tied
            single = np.zeros(n)
            single[rng.integers(0, n)] = rng.choice([-0.7, 0.4])
            yield single  # one non-zero difference
            yield rng.integers(1, 4, n) * rng.choice([-1.0, 1.0], n)  # ties without zeros
            with_zeros = rng.normal(0.0, 1.0, n)
            with_zeros[: n // 4 + 1] = 0.0
            yield with_zeros  # zeros without ties


DIFFS = list(_diff_vectors())


def _scipy_branch(d: np.ndarray) -> str:
    """Which p-value scipy.stats.wilcoxon(d) computes (its method='auto' rule)."""
    nonzero = np.abs(d[d != 0])
    if d.size > 50:
        return "asymptotic"
    if nonzero.size == d.size and np.unique(nonzero).size == nonzero.size:
        return "exact"
    return "permutation" if d.size <= 13 else "asymptotic"


def test_inputs_reach_every_scipy_branch() -> None:
    branches = [_scipy_branch(d) for d in DIFFS if np.any(d != 0)]
    assert all(branches.count(b) >= 50 for b in ("exact", "permutation", "asymptotic")), branches


def test_paired_t_equals_scipy_ttest_1samp() -> None:
    checked = 0
    for d in DIFFS:
        if stats.degeneracy(d) is not None:
            continue
        ours, ref = stats.paired_t(d), sps.ttest_1samp(d, 0.0)
        assert ours.statistic == pytest.approx(float(ref.statistic), rel=1e-12)
        assert ours.p == pytest.approx(float(ref.pvalue), rel=RTOL, abs=1e-300)
        checked += 1
    assert checked >= 340


def test_wilcoxon_equals_scipy_on_every_branch() -> None:
    checked = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns about ties/zeros in the normal approximation
        for d in DIFFS:
            if not np.any(d != 0):
                continue
            ours, ref = stats.wilcoxon(d), sps.wilcoxon(d)
            assert ours.statistic == float(ref.statistic), d
            assert ours.p == pytest.approx(float(ref.pvalue), rel=RTOL, abs=1e-300), (d, _scipy_branch(d))
            checked += 1
    assert checked >= 360


@pytest.mark.parametrize(
    "d,statistic,p",
    [
        ([1.0, 2.0, 3.0], 0.0, 0.25),  # exact: R+ = 6 is 1 of 8 patterns, doubled
        ([-1.0, 2.0, 2.0, 0.0], 1.0, 0.5),  # permutation: zero dropped, ranks 1, 2.5, 2.5; R+ >= 5 in 2 of 8
    ],
)
def test_wilcoxon_worked_examples(d: list[float], statistic: float, p: float) -> None:
    result = stats.wilcoxon(np.array(d))
    assert (result.statistic, result.p) == (statistic, p)


def test_wilcoxon_propagates_nan_like_scipy() -> None:
    d = np.array([np.nan, 1.0, 2.0, -0.5])
    ours, ref = stats.wilcoxon(d), sps.wilcoxon(d)
    assert np.isnan(ours.statistic) and np.isnan(ours.p) and np.isnan(ref.statistic) and np.isnan(ref.pvalue)


def _mcnemar_vectors(a_only: int, b_only: int, both: int, neither: int) -> tuple[np.ndarray, np.ndarray]:
    a = np.repeat([True, False, True, False], [a_only, b_only, both, neither])
    b = np.repeat([False, True, True, False], [a_only, b_only, both, neither])
    return a, b


def test_mcnemar_equals_scipy_binomtest() -> None:
    rng = np.random.default_rng(7)
    counts = [(i, j) for i in range(0, 31) for j in range(0, 31) if i + j]
    counts += [tuple(rng.integers(0, m, 2)) for m in (100, 1000, 20_000) for _ in range(40)]
    counts += [(0, 1), (1, 0), (0, 200), (49_000, 51_000), (24_999, 25_000)]
    for a_only, b_only in counts:
        result = stats.mcnemar(*_mcnemar_vectors(int(a_only), int(b_only), 3, 2))
        ref = sps.binomtest(int(min(a_only, b_only)), int(a_only + b_only), 0.5).pvalue
        assert result.p == pytest.approx(ref, rel=RTOL, abs=1e-300), (a_only, b_only)
        if abs(int(a_only) - int(b_only)) <= 1:  # the two tails meet: exactly 1, as binomtest says
            assert result.p == ref == 1.0
    for seed in range(60):  # random 0/1 pass vectors
        gen = np.random.default_rng(seed)
        n = int(gen.integers(1, 300))
        a, b = gen.random(n) < gen.random(), gen.random(n) < gen.random()
        discordant = int(np.sum(a != b))
        ref = sps.binomtest(int(min(np.sum(a & ~b), np.sum(~a & b))), discordant).pvalue if discordant else 1.0
        assert stats.mcnemar(a, b).p == pytest.approx(ref, rel=RTOL, abs=1e-300)


def _scipy_mde(n: int, alpha: float, power: float) -> float:
    """The scipy.stats + scipy.optimize.brentq solve workbench.stats.mde_sd replaced."""
    df, crit = n - 1, float(sps.t.ppf(1.0 - alpha / 2.0, n - 1))

    def shortfall(dz: float) -> float:
        nc = dz * np.sqrt(n)
        lower = float(sps.nct.cdf(-crit, df, nc))
        return float(sps.nct.sf(crit, df, nc)) + (lower if np.isfinite(lower) else 0.0) - power

    high = 2.0 * (sps.norm.ppf(1.0 - alpha / 2.0) + sps.norm.ppf(power)) / np.sqrt(n)
    while shortfall(high) < 0:
        high *= 2.0
    return float(optimize.brentq(shortfall, 0.0, high, xtol=1e-10))


@pytest.mark.parametrize(
    "alpha,power,ns",
    [
        (0.05, 0.8, [*range(2, 301), 500, 1000, 10_000, 100_000]),
        (0.01, 0.9, [2, 3, 5, 8, 13, 22, 50, 51, 120, 300, 5000]),
        (0.1, 0.5, [2, 3, 5, 8, 13, 22, 50, 51, 120, 300, 5000]),
    ],
)
def test_mde_sd_equals_the_scipy_solve(alpha: float, power: float, ns: list[int]) -> None:
    # Both solves stop within xtol = 1e-10 of the root (brentq vs bisection), hence abs=1e-9.
    for n in ns:
        assert stats.mde_sd(n, alpha, power) == pytest.approx(_scipy_mde(n, alpha, power), rel=0, abs=1e-9), n


def test_mde_sd_rejects_power_below_alpha_as_brentq_did() -> None:
    with pytest.raises(ValueError, match="different signs"):
        stats.mde_sd(10, 0.05, 0.01)
    assert np.isnan(stats.mde_sd(1))


def test_comparing_runs_does_not_import_scipy_stats_or_optimize() -> None:
    code = (
        "import sys, numpy as np, workbench.analysis.stats as s\n"
        "assert not any(m.startswith('scipy') for m in sys.modules), 'scipy at import'\n"
        "rng = np.random.default_rng(0)\n"
        "a, b = rng.random(20), rng.random(20)\n"
        "s.paired_comparison(a, b, resamples=200, permutations=200)\n"
        "s.paired_comparison(np.round(a, 1), np.round(b, 1), resamples=200, permutations=200)\n"
        "s.paired_comparison(rng.random(60), rng.random(60), resamples=200, permutations=200)\n"
        "s.mcnemar(a > 0.5, b > 0.5)\n"
        "print(sorted(m for m in sys.modules if m in ('scipy.stats', 'scipy.optimize', 'scipy.special')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["['scipy.special']"]
