"""Paired statistics: scipy agreement, worked examples, exactness of the resampling, degenerate inputs."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats as sps

from workbench.analysis import stats
from workbench.errors import CompareError


def _pair(seed: int, n: int, discrete: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if discrete:  # reciprocal ranks: many ties and zero differences
        levels = np.array([0.0, 0.2, 0.25, 1 / 3, 0.5, 1.0])
        return rng.choice(levels, n), rng.choice(levels, n)
    a = rng.random(n)
    return a, np.clip(a + rng.normal(0.03, 0.1, n), 0, 1)


@pytest.mark.parametrize(
    "seed,n,discrete", [(0, 5, False), (1, 22, False), (2, 200, False), (3, 22, True), (4, 300, True)]
)
def test_p_values_equal_scipy(seed: int, n: int, discrete: bool) -> None:
    a, b = _pair(seed, n, discrete)
    result = stats.paired_comparison(a, b, seed=seed)
    assert result.p_t == pytest.approx(sps.ttest_rel(b, a).pvalue, abs=1e-9)
    assert result.p_wilcoxon == pytest.approx(sps.wilcoxon(b, a).pvalue, abs=1e-9)
    assert result.delta == pytest.approx(float(np.mean(b - a)), abs=1e-15)


def test_sign_flip_exact_worked_example() -> None:
    # +-1 +-2 +-3: |sum| >= 6 only for all-plus and all-minus, 2 of 8 patterns
    result = stats.sign_flip(np.array([1.0, 2.0, 3.0]))
    assert result.method == "exact" and result.p == 0.25


def test_sign_flip_exact_matches_brute_force_with_zeros() -> None:
    d = np.random.default_rng(5).normal(0.2, 1.0, 11)
    d[[2, 7]] = 0.0
    observed = abs(d.sum())
    sums = [abs(np.dot(signs, d)) for signs in itertools.product([-1.0, 1.0], repeat=d.size)]
    expected = np.mean([s >= observed - 1e-12 for s in sums])
    assert stats.sign_flip(d).p == pytest.approx(expected, abs=1e-12)


def test_sign_flip_monte_carlo_is_seeded_and_close_to_exact() -> None:
    d = np.random.default_rng(6).normal(0.3, 1.0, 14)
    exact = stats.sign_flip(d).p
    target = abs(d.sum()) - 1e-12 * np.abs(d).sum()
    hits = [stats._random_flip_hits(d, target, 40_000, seed) for seed in (1, 1, 2)]
    assert hits[0] == hits[1] and hits[0] != hits[2]
    assert (hits[0] + 1) / 40_001 == pytest.approx(exact, abs=0.01)


def test_sign_flip_large_n_tracks_t_test_and_never_returns_zero() -> None:
    a, b = _pair(7, 400)
    result = stats.sign_flip(b - a, permutations=10_000, seed=3)
    assert result.method == "monte-carlo"
    assert result.p == pytest.approx(sps.ttest_rel(b, a).pvalue, abs=0.03)
    shifted = stats.sign_flip(np.full(40, 1.0) + np.linspace(0, 0.1, 40), permutations=1000)
    assert shifted.p == pytest.approx(1 / 1001)


def test_bootstrap_is_reproducible_and_seed_dependent() -> None:
    d = np.random.default_rng(8).normal(size=50)
    assert stats.bootstrap_ci(d, seed=4) == stats.bootstrap_ci(d, seed=4)
    assert stats.bootstrap_ci(d, seed=4) != stats.bootstrap_ci(d, seed=5)


def test_bootstrap_resample_distribution_is_exact_for_two_values() -> None:
    means = stats.bootstrap_means(np.array([0.0, 1.0]), resamples=40_000, seed=1)
    freq = np.array([np.mean(means == v) for v in (0.0, 0.5, 1.0)])
    np.testing.assert_allclose(freq, [0.25, 0.5, 0.25], atol=4 * np.sqrt(0.25 / 40_000))


@pytest.mark.parametrize("position", [0, 255, 256])
def test_bootstrap_draws_every_case_uniformly_across_blocks(position: int) -> None:
    # n = 257: one full block of 256 (random bytes) and a partial block of 1 (bounded ints)
    n, resamples = 257, 40_000
    indicator = np.zeros(n)
    indicator[position] = 1.0
    counts = np.rint(stats.bootstrap_means(indicator, resamples, seed=2) * n)
    p_zero = (1 - 1 / n) ** n
    assert np.mean(counts == 0) == pytest.approx(p_zero, abs=4 * np.sqrt(p_zero * (1 - p_zero) / resamples))
    assert counts.mean() == pytest.approx(1.0, abs=0.03)


def test_bootstrap_ci_width_matches_the_standard_error() -> None:
    d = np.random.default_rng(9).normal(0.1, 1.0, 700)
    low, high = stats.bootstrap_ci(d, seed=0)
    se = d.std() / np.sqrt(d.size)
    assert low < d.mean() < high
    assert high - low == pytest.approx(2 * 1.959964 * se, rel=0.08)


def test_mcnemar_worked_examples() -> None:
    # 1 broken, 6 fixed: p = 2 * P(X <= 1 | 7, 1/2) = 2 * 8 / 128
    a = [True] * 1 + [False] * 6 + [True] * 10 + [False] * 3
    b = [False] * 1 + [True] * 6 + [True] * 10 + [False] * 3
    result = stats.mcnemar(a, b)
    assert (result.a_only, result.b_only, result.both, result.neither) == (1, 6, 10, 3)
    assert result.p == pytest.approx(16 / 128, abs=1e-12)
    # 2 vs 9: p = 2 * (1 + 11 + 55) / 2048
    assert stats.mcnemar([1] * 2 + [0] * 9, [0] * 2 + [1] * 9).p == pytest.approx(134 / 2048, abs=1e-12)
    none = stats.mcnemar([True, False], [True, False])
    assert none.p == 1.0 and none.reason == "no discordant pairs"


def test_holm_worked_example() -> None:
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> monotone 0.02, 0.03, 0.06, 0.06
    np.testing.assert_allclose(stats.holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(stats.holm([0.02, np.nan, 0.5]), [0.04, np.nan, 0.5])
    np.testing.assert_allclose(stats.holm([0.6, 0.7]), [1.0, 1.0])  # capped at 1


def test_effect_size_and_win_tie_loss() -> None:
    d = np.array([0.1, 0.3 - 0.2 - 0.1, -0.2, 0.4])  # the second is float noise around 0: a tie
    assert stats.win_tie_loss(d) == (2, 1, 1)
    assert stats.cohens_dz(d) == pytest.approx(d.mean() / d.std(ddof=1))


def test_minimum_detectable_effect_has_the_stated_power() -> None:
    for n in (2, 5, 22, 200):
        dz = stats.mde_sd(n)
        crit, nc = sps.t.ppf(0.975, n - 1), dz * np.sqrt(n)
        assert sps.nct.sf(crit, n - 1, nc) + np.nan_to_num(sps.nct.cdf(-crit, n - 1, nc)) == pytest.approx(
            0.8, abs=1e-6
        )
    normal = (sps.norm.ppf(0.975) + sps.norm.ppf(0.8)) / np.sqrt(10_000)
    assert stats.mde_sd(10_000) == pytest.approx(normal, rel=1e-3)
    a, b = _pair(10, 22)
    result = stats.paired_comparison(a, b)
    assert result.mde == pytest.approx(result.mde_sd * np.std(b - a, ddof=1))


@pytest.mark.parametrize(
    "d,reason",
    [
        ([], "fewer than 2 pairs (n=0)"),
        ([0.3], "fewer than 2 pairs (n=1)"),
        ([0.0, 0.0, 0.0], "all differences are zero"),
        ([0.1, 0.1, 0.1], "zero variance: every difference equals 0.1"),
    ],
)
def test_degenerate_inputs_are_defined_and_quiet(d: list[float], reason: str) -> None:
    d = np.array(d)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = stats.paired_comparison(np.zeros(d.size), d)
    assert result.reasons[0] == reason
    assert 0.0 <= result.p_t <= 1.0 and 0.0 <= result.p_wilcoxon <= 1.0 and 0.0 <= result.p_randomization <= 1.0
    if d.size >= 2:
        assert result.ci_low == result.ci_high == pytest.approx(d[0])
        assert np.isnan(result.mde) and result.mde_sd > 0 and "SD units" in result.reasons[-1]
    if reason.startswith("zero variance"):
        assert result.p_t == 0.0 and result.effect_size == np.inf
    if reason.startswith("all"):
        assert result.p_t == 1.0 and result.effect_size == 0.0


def test_paired_arrays_drop_unscored_pairs_and_reject_bad_input() -> None:
    a, b = stats.paired_arrays([1.0, np.nan, 0.5, 0.2], [0.5, 0.5, np.nan, 0.4])
    assert a.tolist() == [1.0, 0.2] and b.tolist() == [0.5, 0.4]
    with pytest.raises(CompareError, match="differ in length"):
        stats.paired_arrays([1.0], [1.0, 2.0])
    with pytest.raises(CompareError, match="infinite"):
        stats.paired_arrays([np.inf], [1.0])


def test_to_dict_is_plain() -> None:
    result = stats.paired_comparison(*_pair(11, 10)).to_dict()
    assert result["n"] == 10 and isinstance(result["reasons"], list)
    assert {"ci_low", "ci_high", "p_t", "p_wilcoxon", "p_randomization", "effect_size", "mde"} <= set(result)
