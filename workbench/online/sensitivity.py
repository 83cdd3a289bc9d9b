"""Sensitivity, measured: how many tasks interleaving and the offline paired test need.

For each size n and each of ``resamples`` seeded resamples, n cases are drawn from the corpus with
replacement. Interleaving sees one fresh impression of each drawn case (drawn from that case's
pool of simulated impressions: its own coins and clicks) and detects the difference when the sign
test gives p < alpha. The offline side takes the same drawn cases' per-case metric differences
(B - A; cases the metric does not score are dropped) and runs the paired test ``compare`` uses for
that metric (``workbench.analysis.stats``; the retrieval gate's t-test). Power is the fraction of
resamples that detect the difference. The smallest n with power >= 0.8 is reported per method;
the ratio is offline n over interleaving n (above 1: interleaving needs fewer tasks). A method that
never reaches 0.8 within the sizes has no n and no ratio is claimed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..analysis import stats
from ..columns import METHOD, POWER, TASKS
from ..options import InterleaveOptions
from .preference import sign_test_p

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

INTERLEAVING, OFFLINE = "interleaving", "offline"
SIZES = (2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100)
RESAMPLES = InterleaveOptions.resamples  # written once, in workbench/options.py
TARGET_POWER = 0.8
# ``compare``'s paired tests by the name a gate rule gives them (gates.TESTS).
PAIRED_TESTS: dict[str, Callable[[Any], stats.Significance]] = {
    "t": stats.paired_t,
    "wilcoxon": stats.wilcoxon,
    "randomization": stats.sign_flip,
}


@dataclass(frozen=True)
class Sensitivity:
    """The power table (``METHOD, TASKS, POWER``), each method's smallest n reaching the target
    power (None: not within the sizes tried) and offline n / interleaving n."""

    table: pd.DataFrame
    n_interleaving: int | None
    n_offline: int | None
    resamples: int
    alpha: float
    target_power: float

    @property
    def ratio(self) -> float | None:
        if self.n_interleaving is None or self.n_offline is None:
            return None
        return self.n_offline / self.n_interleaving

    def verdict(self) -> str:
        """The finding in one sentence, as measured."""
        n_i, n_o, goal = self.n_interleaving, self.n_offline, f"{self.target_power:.0%} power"
        if n_i is None and n_o is None:
            return f"neither method reaches {goal} within the sizes tried: no ratio"
        if n_i is None:
            return f"interleaving does not reach {goal} within the sizes tried (offline: {n_o}): not more sensitive"
        if n_o is None:
            return f"interleaving reaches {goal} at {n_i} tasks; the offline test does not within the sizes tried"
        ratio = n_o / n_i
        more = "more" if ratio > 1 else "not more" if ratio < 1 else "equally"
        return f"{goal}: interleaving at {n_i} tasks, offline at {n_o} cases, ratio {ratio:.2f}: {more} sensitive"

    def to_dict(self) -> dict[str, Any]:
        return {
            "resamples": self.resamples,
            "alpha": self.alpha,
            "target_power": self.target_power,
            "n_interleaving": self.n_interleaving,
            "n_offline": self.n_offline,
            "ratio": self.ratio,
            "verdict": self.verdict(),
            "table": self.table.to_dict("records"),
        }


def measure(
    pool: np.ndarray,
    offline_diffs: np.ndarray,
    *,
    test: str = "t",
    sizes: Sequence[int] = SIZES,
    resamples: int = RESAMPLES,
    alpha: float = 0.05,
    target_power: float = TARGET_POWER,
    seed: int = 0,
) -> Sensitivity:
    """Power of both methods at each size: ``pool`` is cases x impressions of outcome codes
    (-1, 0, +1), ``offline_diffs`` the per-case metric difference B - A (NaN: not scored)."""
    import numpy as np
    import pandas as pd

    cases, impressions = pool.shape
    paired = PAIRED_TESTS[test]
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5E5]))
    rows = []
    for n in sizes:
        drawn = rng.integers(0, cases, size=(resamples, n))
        codes = pool[drawn, rng.integers(0, impressions, size=(resamples, n))]
        wins_a, wins_b = (codes < 0).sum(axis=1), (codes > 0).sum(axis=1)
        p_int = np.array([sign_test_p(int(x), int(y)) for x, y in zip(wins_a, wins_b)])
        p_off = np.array([_offline_p(offline_diffs[row], paired) for row in drawn])
        rows += [(INTERLEAVING, n, float(np.mean(p_int < alpha))), (OFFLINE, n, float(np.mean(p_off < alpha)))]
    table = pd.DataFrame(rows, columns=[METHOD, TASKS, POWER])
    return Sensitivity(
        table,
        _first(table, INTERLEAVING, target_power),
        _first(table, OFFLINE, target_power),
        resamples,
        alpha,
        target_power,
    )


def _offline_p(diffs: np.ndarray, paired: Callable[[Any], stats.Significance]) -> float:
    import numpy as np

    kept = diffs[~np.isnan(diffs)]
    return paired(kept).p if kept.size else 1.0


def _first(table: pd.DataFrame, method: str, target_power: float) -> int | None:
    hit = table[(table[METHOD] == method) & (table[POWER] >= target_power)]
    return int(hit[TASKS].min()) if len(hit) else None
