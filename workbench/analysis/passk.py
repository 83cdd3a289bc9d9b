"""Flakiness you can act on: unbiased pass^k and pass@k from c passes of n repeats, per case and
per (suite, target), and how many pass/fail flips between two repeated runs flakiness explains.

- pass^k (tau-bench): the chance that k trials drawn from the n all pass, ``C(c, k) / C(n, k)``;
- pass@k (Codex): the chance that at least one of k passes, ``1 - C(n - c, k) / C(n, k)``;

both estimated without bias from the n repeats a case ran (k = 1 .. n; at k = 1 both are c / n,
at k = n they are "every repeat passed" and "one did").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..columns import CASE, PASSED, SUITE, TARGET


def comb(a: np.ndarray, k: int) -> np.ndarray:
    """C(a, k) per element of non-negative whole ``a`` (0 where a < k), as floats: the product of
    (a - i) / (i + 1) for i < k, which has a zero factor when a < k (no scipy: a case listing loads
    this module, and only the statistics pages pay for scipy)."""
    steps = np.arange(k, dtype=float)
    return np.prod((np.asarray(a, dtype=float)[..., None] - steps) / (steps + 1), axis=-1)


def pass_hat_k(c: np.ndarray, n: np.ndarray, k: int) -> np.ndarray:
    """pass^k per case: C(c, k) / C(n, k); NaN where k > n."""
    c, n = np.asarray(c, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(k <= n, comb(c, k) / comb(n, k), np.nan)


def pass_at_k(c: np.ndarray, n: np.ndarray, k: int) -> np.ndarray:
    """pass@k per case: 1 - C(n - c, k) / C(n, k); NaN where k > n."""
    c, n = np.asarray(c, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(k <= n, 1.0 - comb(n - c, k) / comb(n, k), np.nan)


def passes(cases: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(c, n) per case row: passes and repeats (a row without repeats is one trial of ``passed``)."""
    if "repeat_passed" not in cases:
        return cases[PASSED].fillna(False).astype(int).to_numpy(), np.ones(len(cases), dtype=int)
    lists = [
        v if isinstance(v, list | tuple | np.ndarray) else [p] for v, p in zip(cases["repeat_passed"], cases[PASSED])
    ]
    return np.array([sum(bool(x) for x in v) for v in lists]), np.array([len(v) for v in lists])


def pass_k_table(cases: pd.DataFrame) -> pd.DataFrame:
    """Per (suite, target) and k = 1 .. n: the mean unbiased pass^k and pass@k over its cases."""
    if cases.empty:
        return pd.DataFrame(columns=[SUITE, TARGET, "k", "pass^k", "pass@k", "cases"])
    c, n = passes(cases)
    frames = []
    for k in range(1, int(n.max()) + 1):
        frames.append(
            cases[[SUITE, TARGET]].assign(k=k, **{"pass^k": pass_hat_k(c, n, k), "pass@k": pass_at_k(c, n, k)})
        )
    long = pd.concat(frames, ignore_index=True)
    return (
        long.groupby([SUITE, TARGET, "k"], sort=False)
        .agg(**{"pass^k": ("pass^k", "mean"), "pass@k": ("pass@k", "mean"), "cases": ("pass^k", "count")})
        .reset_index()
    )


def flaky_flips(a: pd.DataFrame, b: pd.DataFrame) -> dict[str, Any] | None:
    """Of the cases whose verdict differs between runs ``a`` and ``b``, how many flipped only because
    of flakiness (the side that failed passed some of its repeats: it is flaky, and the other side's
    verdict is among its outcomes) and how many consistently (that side failed every repeat). None
    unless a side ran repeats."""
    if "repeat_passed" not in a and "repeat_passed" not in b:
        return None
    keys = [SUITE, CASE]

    def side(cases: pd.DataFrame) -> pd.DataFrame:
        c, n = passes(cases)
        return cases[keys].assign(passed=c == n, flaky=(c > 0) & (c < n))

    both = side(a).merge(side(b), on=keys, suffixes=("_a", "_b"))
    flipped = both["passed_a"] != both["passed_b"]
    by_flakiness = flipped & (both["flaky_a"] | both["flaky_b"])
    return {
        "flipped": int(flipped.sum()),
        "by_flakiness": int(by_flakiness.sum()),
        "consistent": int((flipped & ~by_flakiness).sum()),
        "cases": [f"{s}/{c}" for s, c in zip(both.loc[by_flakiness, SUITE], both.loc[by_flakiness, CASE], strict=True)],
    }


def flips_note(flips: dict[str, Any]) -> str:
    """The comparison's sentence about flips and flakiness."""
    return (
        f"{flips['flipped']} case(s) flipped pass/fail; {flips['by_flakiness']} of them because of flakiness "
        f"alone (the failing side passed some repeats), {flips['consistent']} consistently (every repeat failed)"
    )
