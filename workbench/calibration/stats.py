"""The calibration statistics, vectorized: Wilson intervals, lift with a MOVER interval, Brier, reliability.

A rate (outcomes / changes of a group) is shown only when the group has at least ``MIN_OUTCOMES``
changes whose outcome was observed; a lift only when both groups have; a Brier score and each
reliability bin likewise. A withheld figure is ``None`` and its count stays in the table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

MIN_OUTCOMES = 30
Z95 = 1.959963984540054
BINS = 10


def wilson(k: Any, n: Any, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (lower, upper) of ``k`` successes in ``n`` trials, elementwise (nan for n = 0)."""
    import numpy as np

    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def lift_interval(k1: Any, n1: Any, k0: Any, n0: Any, z: float = Z95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lift ``(k1/n1) / (k0/n0)`` and its 95% interval by MOVER-R on the two Wilson intervals
    (Donner and Zou 2012); the upper end is inf when the unflagged group has no outcome."""
    import numpy as np

    k1, n1, k0, n0 = (np.asarray(v, dtype=float) for v in (k1, n1, k0, n0))
    (l1, u1), (l0, u0) = wilson(k1, n1, z), wilson(k0, n0, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        p1, p0 = k1 / n1, k0 / n0
        lift = np.where(p0 > 0, p1 / np.where(p0 > 0, p0, 1.0), np.where(p1 > 0, np.inf, np.nan))
        prod = p1 * p0
        low_root = np.sqrt(np.clip(prod * prod - l1 * u0 * (2 * p1 - l1) * (2 * p0 - u0), 0.0, None))
        high_root = np.sqrt(np.clip(prod * prod - u1 * l0 * (2 * p1 - u1) * (2 * p0 - l0), 0.0, None))
        low = (prod - low_root) / (u0 * (2 * p0 - u0))
        high_den = l0 * (2 * p0 - l0)
        high = np.where(high_den > 0, (prod + high_root) / np.where(high_den > 0, high_den, 1.0), np.inf)
    low = np.where(p0 > 0, np.clip(low, 0.0, None), np.nan)
    high = np.where(p0 > 0, high, np.nan)
    return lift, low, high


def flag_table(flags: pd.DataFrame, outcomes: pd.DataFrame) -> pd.DataFrame:
    """One row per (flag, outcome) over the observed changes: counts, rates with Wilson intervals,
    lift with its interval, and ``withheld`` when a group has under MIN_OUTCOMES changes.

    ``flags`` and ``outcomes`` are boolean frames with one row per observed change (same index)."""
    import numpy as np
    import pandas as pd

    f = flags.to_numpy(dtype=np.int64)
    o = outcomes.to_numpy(dtype=np.int64)
    n1 = np.repeat(f.sum(axis=0), o.shape[1])
    n0 = len(flags) - n1
    k1 = (f.T @ o).ravel()
    k0 = ((1 - f).T @ o).ravel()
    lift, low, high = lift_interval(k1, n1, k0, n0)
    (r1l, r1h), (r0l, r0h) = wilson(k1, n1), wilson(k0, n0)
    with np.errstate(divide="ignore", invalid="ignore"):
        table = pd.DataFrame(
            {
                "flag": np.repeat(np.array(flags.columns, dtype=object), o.shape[1]),
                "outcome": np.tile(np.array(outcomes.columns, dtype=object), f.shape[1]),
                "flagged": n1,
                "flagged_outcomes": k1,
                "rate_flagged": k1 / n1,
                "rate_flagged_low": r1l,
                "rate_flagged_high": r1h,
                "unflagged": n0,
                "unflagged_outcomes": k0,
                "rate_unflagged": k0 / n0,
                "rate_unflagged_low": r0l,
                "rate_unflagged_high": r0h,
                "lift": lift,
                "lift_low": low,
                "lift_high": high,
            }
        )
    few1, few0 = table["flagged"] < MIN_OUTCOMES, table["unflagged"] < MIN_OUTCOMES
    table.loc[few1, ["rate_flagged", "rate_flagged_low", "rate_flagged_high"]] = np.nan
    table.loc[few0, ["rate_unflagged", "rate_unflagged_low", "rate_unflagged_high"]] = np.nan
    table.loc[few1 | few0, ["lift", "lift_low", "lift_high"]] = np.nan
    table["withheld"] = few1 | few0
    return table


def brier_table(scores: pd.DataFrame, outcome: pd.Series) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per scored flag: the Brier score against ``outcome`` (withheld under MIN_OUTCOMES changes), and
    its reliability bins (BINS equal-width score bins: changes, mean score, outcome rate; a bin with
    under MIN_OUTCOMES changes keeps its count and withholds the rest)."""
    import numpy as np
    import pandas as pd

    y = outcome.to_numpy(dtype=float)
    s = scores.to_numpy(dtype=float)
    n = len(y)
    brier = ((s - y[:, None]) ** 2).mean(axis=0) if n else np.full(s.shape[1], np.nan)
    summary = pd.DataFrame(
        {"flag": list(scores.columns), "changes": n, "brier": brier if n >= MIN_OUTCOMES else np.nan}
    )
    summary["withheld"] = n < MIN_OUTCOMES
    long = scores.reset_index(drop=True).melt(var_name="flag", value_name="score")
    long["outcome"] = np.tile(y, s.shape[1])
    long["bin"] = np.minimum((long["score"].to_numpy() * BINS).astype(np.int64), BINS - 1)
    bins = long.groupby(["flag", "bin"], sort=True).agg(
        changes=("score", "size"), mean_score=("score", "mean"), outcome_rate=("outcome", "mean")
    )
    bins = bins.reset_index()
    bins["low"], bins["high"] = bins["bin"] / BINS, (bins["bin"] + 1) / BINS
    few = bins["changes"] < MIN_OUTCOMES
    bins.loc[few, ["mean_score", "outcome_rate"]] = np.nan
    bins["withheld"] = few
    return summary, bins.drop(columns="bin")
