"""Paired statistics for comparing two runs case by case.

Every function takes per-case vectors (or their differences, B - A) and is
seeded through ``np.random.default_rng(seed)``. Degenerate inputs (fewer than
two pairs, zero variance, all ties) get a defined value and a stated
``reason`` instead of a warning or a NaN. The t, Wilcoxon and McNemar p-values
and the MDE equal those of ``scipy.stats`` (``ttest_1samp``, ``wilcoxon``,
``binomtest``, the noncentral t; tests/test_stats_parity.py checks it) but are
computed from numpy and ``scipy.special`` only: ``scipy.stats`` (which loads
``scipy.optimize``) costs another 0.4-0.5 CPU-s to import, paid by every report
kernel that compares two runs. ``scipy.special`` (~0.2 s) is imported inside the
functions that need it, so aligning per-case diffs imports no scipy at all.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import CompareError
from ._distributions import average_ranks, mde_sd, sign_test_p, signed_rank_exact_p, signed_rank_normal_p

if TYPE_CHECKING:
    import numpy as np

RESAMPLES = 10_000
PERMUTATIONS = 10_000
EXACT_MAX_NONZERO = 16  # sign-flip test enumerates all 2**k patterns up to here
CHUNK_ELEMENTS = 1 << 19  # resample/permutation work per chunk (memory bound)
_BLOCK = 256  # bootstrap block size: one random byte picks an element in a block
_TIE = 1e-12  # relative tolerance separating a tie from a win or a loss
WILCOXON_EXACT_MAX = 50  # scipy's 'auto': exact null distribution up to here (no ties or zeros)
WILCOXON_PERMUTATION_MAX = 13  # ... and all 2**n sign flips up to here (ties or zeros)


@dataclass(frozen=True)
class Significance:
    """One test's statistic and two-sided p-value; ``reason`` explains a degenerate input."""

    statistic: float
    p: float
    method: str
    reason: str | None = None


@dataclass(frozen=True)
class McNemar:
    """McNemar's exact test on paired pass/fail: discordant pairs decide."""

    n: int
    both: int
    a_only: int  # passed in A, failed in B (broken by B)
    b_only: int  # failed in A, passed in B (fixed by B)
    neither: int
    p: float
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PairedComparison:
    """Everything reported for one metric compared case by case (delta = B - A)."""

    n: int
    mean_a: float
    mean_b: float
    delta: float
    ci_low: float
    ci_high: float
    p_t: float
    p_wilcoxon: float
    p_randomization: float
    effect_size: float  # Cohen's d_z
    wins: int
    ties: int
    losses: int
    mde: float  # metric units; NaN when the SD of differences is 0 (see mde_sd)
    mde_sd: float  # in SD-of-difference units (d_z), defined for every n >= 2
    reasons: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["reasons"] = list(self.reasons)
        return out


def paired_arrays(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """Two equal-length float vectors with NaN pairs (not scored) dropped."""
    import numpy as np

    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise CompareError(f"paired vectors differ in length: {a.size} vs {b.size}")
    if np.isinf(a).any() or np.isinf(b).any():
        raise CompareError("paired vectors contain an infinite value")
    keep = ~(np.isnan(a) | np.isnan(b))
    return a[keep], b[keep]


def degeneracy(diffs: np.ndarray) -> str | None:
    """Why ``diffs`` cannot support a variance-based test, or None when it can."""
    import numpy as np

    if diffs.size < 2:
        return f"fewer than 2 pairs (n={diffs.size})"
    scale = max(float(np.abs(diffs).max()), 1.0)
    if float(np.ptp(diffs)) <= _TIE * scale:
        if abs(float(diffs[0])) <= _TIE * scale:
            return "all differences are zero"
        return f"zero variance: every difference equals {float(diffs[0]):.6g}"
    return None


def paired_t(diffs: np.ndarray) -> Significance:
    """Paired (one-sample on differences) Student's t-test, two-sided.

    Equals ``scipy.stats.ttest_1samp(diffs, 0)``, computed in its order of
    operations: t = mean / sqrt(var / n) with var = mean((d - mean)^2) * n/(n-1),
    p = 2 * stdtr(n - 1, -|t|).
    """
    import numpy as np

    reason = degeneracy(diffs)
    if reason is None:
        from scipy.special import stdtr

        n, mean = diffs.size, diffs.mean()
        var = np.mean((diffs - mean) ** 2) * (n / (n - 1.0))
        t = float(mean / np.sqrt(var / n))
        return Significance(t, float(np.clip(2.0 * stdtr(n - 1.0, -abs(t)), 0.0, 1.0)), "t")
    if diffs.size >= 2 and reason.startswith("zero variance"):
        # t grows without bound as the SD shrinks to 0: the limit p is 0.
        return Significance(float(np.sign(diffs[0]) * np.inf), 0.0, "t", reason)
    return Significance(0.0, 1.0, "t", reason)


def wilcoxon(diffs: np.ndarray) -> Significance:
    """Wilcoxon signed-rank test, two-sided; equals ``scipy.stats.wilcoxon(diffs)``.

    scipy's defaults: zero differences are dropped before ranking, ties get
    average ranks, the statistic is min(R+, R-). The p-value follows scipy's
    'auto' rule on n (zeros included): exact over every sign pattern when
    n <= 50 without ties or zeros, or when n <= 13 (scipy's permutation test);
    otherwise normal with tie correction and no continuity correction. A NaN
    difference gives NaN, as scipy's nan_policy='propagate' does.
    """
    import numpy as np

    if not np.any(diffs != 0):
        return Significance(0.0, 1.0, "wilcoxon", degeneracy(diffs) or "all differences are zero")
    if np.isnan(diffs).any():
        return Significance(float("nan"), float("nan"), "wilcoxon")
    nonzero = diffs[diffs != 0]
    ranks, tie_sizes = average_ranks(np.abs(nonzero))
    r_plus, r_minus = float(ranks[nonzero > 0].sum()), float(ranks[nonzero < 0].sum())
    untied = nonzero.size == diffs.size and int(tie_sizes.max()) == 1
    if diffs.size <= WILCOXON_PERMUTATION_MAX or (diffs.size <= WILCOXON_EXACT_MAX and untied):
        p = signed_rank_exact_p(ranks, r_plus)
    else:
        p = signed_rank_normal_p(tie_sizes, r_plus)
    return Significance(min(r_plus, r_minus), p, "wilcoxon")


def sign_flip(diffs: np.ndarray, permutations: int = PERMUTATIONS, seed: int = 0) -> Significance:
    """Paired randomization test on the mean difference, two-sided.

    Exact (all 2**k sign patterns of the k non-zero differences) when k <= 16;
    otherwise ``permutations`` random patterns with p = (hits + 1) / (B + 1).
    """
    import numpy as np

    nonzero = diffs[diffs != 0]
    observed = float(diffs.mean()) if diffs.size else 0.0
    if nonzero.size == 0:
        return Significance(observed, 1.0, "exact", degeneracy(diffs) or "all differences are zero")
    target = abs(float(nonzero.sum())) - _TIE * float(np.abs(nonzero).sum())
    if nonzero.size <= EXACT_MAX_NONZERO:
        sums = np.abs(_all_sign_patterns(nonzero.size) @ nonzero)
        return Significance(observed, float(np.mean(sums >= target)), "exact")
    hits = _random_flip_hits(nonzero, target, permutations, seed)
    return Significance(observed, (hits + 1) / (permutations + 1), "monte-carlo")


def _all_sign_patterns(k: int) -> np.ndarray:
    import numpy as np

    codes = np.arange(1 << k, dtype=np.int64)[:, None]
    return ((codes >> np.arange(k)) & 1) * 2.0 - 1.0


def _random_flip_hits(d: np.ndarray, target: float, permutations: int, seed: int) -> int:
    """Count random sign patterns with |sum(s * d)| >= target, 8 signs per random byte.

    A table holds, for each block of 8 differences, the sum selected by each of
    the 256 byte values, so one pattern costs n/8 lookups instead of n products.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    blocks = -(-d.size // 8)
    padded = np.zeros(blocks * 8)
    padded[: d.size] = d
    bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
    table = (padded.reshape(blocks, 8) @ bits.T.astype(float)).ravel()
    span = min(blocks, 256)  # blocks per slice: a 512 KB table slice stays in cache
    offsets = np.arange(span, dtype=np.intp) * 256
    total, hits = float(d.sum()), 0
    rows = max(1, CHUNK_ELEMENTS // span)
    for start in range(0, permutations, rows):
        chosen = np.zeros(min(rows, permutations - start))
        for first in range(0, blocks, span):
            width = min(span, blocks - first)
            codes = rng.integers(0, 256, size=(chosen.size, width), dtype=np.uint8)
            part = table[first * 256 : (first + width) * 256]
            chosen += np.take(part, codes + offsets[:width]).sum(axis=1)
        hits += int(np.count_nonzero(np.abs(2.0 * chosen - total) >= target))
    return hits


def bootstrap_means(diffs: np.ndarray, resamples: int = RESAMPLES, seed: int = 0) -> np.ndarray:
    """Means of ``resamples`` bootstrap resamples of ``diffs`` (with replacement), chunked.

    Exact in distribution but cache-friendly: how many of the n draws land in
    each block of 256 cases is multinomial; within a full block each draw is one
    random byte, so lookups stay in a 2 KB table (a partial last block uses
    bounded integers).
    """
    import numpy as np

    n = diffs.size
    rng = np.random.default_rng(seed)
    blocks = -(-n // _BLOCK)
    sizes = np.full(blocks, _BLOCK)
    sizes[-1] = n - (blocks - 1) * _BLOCK
    bases = np.arange(blocks, dtype=np.intp) * _BLOCK
    rows = max(1, CHUNK_ELEMENTS // n)
    out = np.empty(resamples)
    for start in range(0, resamples, rows):
        size = min(rows, resamples - start)
        counts = rng.multinomial(n, sizes / n, size=size)
        idx = np.repeat(np.tile(bases, size), counts.ravel())
        idx += rng.integers(0, _BLOCK, size=idx.size, dtype=np.uint8)
        _redraw_partial_block(idx.reshape(size, n), counts[:, -1], bases[-1], int(sizes[-1]), rng)
        out[start : start + size] = np.take(diffs, idx).reshape(size, n).mean(axis=1)
    return out


def _redraw_partial_block(idx: np.ndarray, tail: np.ndarray, base: int, width: int, rng) -> None:
    """Redraw, in place, the draws of the last block when it holds fewer than 256 cases.

    Each row's draws are ordered by block, so the last ``tail[r]`` entries of row r
    belong to the partial block.
    """
    import numpy as np

    if width == _BLOCK:
        return
    total = int(tail.sum())
    ends = (np.arange(1, tail.size + 1) * idx.shape[1]) - tail
    first = np.cumsum(tail) - tail
    flat = np.repeat(ends - first, tail) + np.arange(total)
    idx.reshape(-1)[flat] = base + rng.integers(0, width, size=total)


def bootstrap_ci(
    diffs: np.ndarray, resamples: int = RESAMPLES, level: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean difference: (d, d) for a constant difference, NaN for n < 2."""
    import numpy as np

    if diffs.size < 2:
        return float("nan"), float("nan")
    if np.ptp(diffs) == 0:
        return float(diffs[0]), float(diffs[0])
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(bootstrap_means(diffs, resamples, seed), [tail, 1.0 - tail])
    return float(low), float(high)


def mcnemar(passed_a: Any, passed_b: Any) -> McNemar:
    """McNemar's exact test: two-sided binomial(0.5) test on the discordant pairs."""
    import numpy as np

    a = np.asarray(passed_a, dtype=bool).ravel()
    b = np.asarray(passed_b, dtype=bool).ravel()
    if a.shape != b.shape:
        raise CompareError(f"paired pass/fail vectors differ in length: {a.size} vs {b.size}")
    a_only, b_only = int(np.sum(a & ~b)), int(np.sum(~a & b))
    both, neither = int(np.sum(a & b)), int(np.sum(~a & ~b))
    discordant = a_only + b_only
    if discordant == 0:
        return McNemar(a.size, both, a_only, b_only, neither, 1.0, "no discordant pairs")
    return McNemar(a.size, both, a_only, b_only, neither, sign_test_p(min(a_only, b_only), discordant))


def cohens_dz(diffs: np.ndarray) -> float:
    """Mean difference over the SD of differences: 0 for no change, +-inf for a constant shift.

    NaN only for n < 2, where no SD exists.
    """
    import numpy as np

    reason = degeneracy(diffs)
    if reason is None:
        return float(diffs.mean() / diffs.std(ddof=1))
    if diffs.size < 2:
        return float("nan")
    if reason == "all differences are zero":
        return 0.0
    return float(np.sign(diffs[0]) * np.inf)


def win_tie_loss(diffs: np.ndarray) -> tuple[int, int, int]:
    """Cases where B beats, ties or trails A (ties within a 1e-12 relative tolerance)."""
    import numpy as np

    tol = _TIE * max(float(np.abs(diffs).max()) if diffs.size else 0.0, 1.0)
    wins, losses = int(np.sum(diffs > tol)), int(np.sum(diffs < -tol))
    return wins, diffs.size - wins - losses, losses


def holm(pvalues: Any) -> np.ndarray:
    """Holm step-down adjusted p-values (family-wise error); NaN entries stay NaN."""
    import numpy as np

    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = p[order] * (ok.size - np.arange(ok.size))
    out[order] = np.minimum(np.maximum.accumulate(scaled), 1.0)
    return out


def paired_comparison(
    a: Any,
    b: Any,
    *,
    seed: int = 0,
    resamples: int = RESAMPLES,
    permutations: int = PERMUTATIONS,
    alpha: float = 0.05,
    power: float = 0.8,
) -> PairedComparison:
    """Compare per-case values ``a`` and ``b`` (NaN pairs dropped) with every paired statistic."""
    a, b = paired_arrays(a, b)
    d = b - a
    reason = degeneracy(d)
    sd = float(d.std(ddof=1)) if reason is None else 0.0
    dz_mde = mde_sd(d.size, alpha, power)
    reasons = [reason] if reason else []
    if d.size >= 2 and reason is not None:
        reasons.append("mde given in SD units only (SD of differences is 0)")
    ci_low, ci_high = bootstrap_ci(d, resamples, seed=seed)
    wins, ties, losses = win_tie_loss(d)
    return PairedComparison(
        n=int(d.size),
        mean_a=_mean(a),
        mean_b=_mean(b),
        delta=_mean(d),
        ci_low=ci_low,
        ci_high=ci_high,
        p_t=paired_t(d).p,
        p_wilcoxon=wilcoxon(d).p,
        p_randomization=sign_flip(d, permutations, seed).p,
        effect_size=cohens_dz(d),
        wins=wins,
        ties=ties,
        losses=losses,
        mde=dz_mde * sd if sd > 0 else float("nan"),
        mde_sd=dz_mde,
        reasons=tuple(reasons),
    )


def _mean(x: np.ndarray) -> float:
    return float(x.mean()) if x.size else float("nan")
