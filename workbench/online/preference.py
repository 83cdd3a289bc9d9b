"""The paired preference of an interleaving experiment: the sign test and a bootstrap interval.

Ties carry no preference, so the sign test is two-sided binomial (p = 0.5) on B's wins among the
non-tied tasks (``scipy.stats.binomtest``). The preference is ``(wins B - wins A) / n`` over all n
tasks, ties included (in [-1, 1]; positive favours B, as ``compare``'s deltas are B - A); its 95%
interval is the percentile bootstrap of the mean outcome code (-1, 0, +1) that ``compare`` uses
for a mean difference (``workbench.analysis.stats.bootstrap_ci``, seeded).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

from ..analysis.stats import RESAMPLES, bootstrap_ci


@lru_cache(maxsize=65536)
def sign_test_p(wins_a: int, wins_b: int) -> float:
    """Two-sided binomial test p of ``wins_b`` out of ``wins_a + wins_b``; 1.0 with no non-tie."""
    from scipy.stats import binomtest

    n = int(wins_a) + int(wins_b)
    return 1.0 if n == 0 else float(binomtest(int(wins_b), n, 0.5, alternative="two-sided").pvalue)


@dataclass(frozen=True)
class Preference:
    """Wins, ties and losses of one experiment, the sign test p and the preference with its interval."""

    wins_a: int
    ties: int
    wins_b: int
    p: float
    preference: float  # (wins_b - wins_a) / n
    ci_low: float
    ci_high: float

    @property
    def n(self) -> int:
        return self.wins_a + self.ties + self.wins_b

    def to_dict(self) -> dict[str, Any]:
        return dict(asdict(self), n=self.n)


def preference(codes: Any, seed: int = 0, resamples: int = RESAMPLES) -> Preference:
    """The preference of per-task outcome codes (-1 A wins, 0 tie, +1 B wins)."""
    import numpy as np

    o = np.asarray(codes, dtype=float).ravel()
    wins_a, wins_b = int(np.sum(o < 0)), int(np.sum(o > 0))
    low, high = bootstrap_ci(o, resamples, seed=seed)
    mean = float(o.mean()) if o.size else float("nan")
    return Preference(wins_a, o.size - wins_a - wins_b, wins_b, sign_test_p(wins_a, wins_b), mean, low, high)
