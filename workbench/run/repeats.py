"""``--repeat N``: every case runs N times, for engines that do not answer the same way twice.

Each repeat is scored on its own, exactly as a single run is; then the repeats of a case are
folded into one case row and one score per metric, so every frame keeps one row per
(suite, target, case) and merge, compare and the reports work unchanged:

- ``scores.parquet`` holds each case's **mean** over its repeats (so comparisons and the
  summary's aggregates use each case's mean; the summary's ``repeats`` section says so);
- the case row is repeat 0's row plus ``repeats`` (N), ``repeat_passed``, ``repeat_errors``,
  ``repeat_seconds``, ``repeat_scores`` (metric -> N values: the mean's spread), ``pass_all``
  (pass^k), ``pass_any`` (pass@k), ``flaky`` (some repeats pass, some fail), ``repeat_passes``
  (how many passed) and ``repeat_spread`` (metric -> max - min over the repeats); ``passed``
  is pass^k and ``error`` the first repeat's error, so an errored repeat fails its suite;
- the (suite, target) summary gains ``repeats``: k, the pass^k and pass@k counts and rates,
  and the flaky cases by name.

With N = 1 nothing changes: the summary, rows and scores are a single run's.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..columns import CASE, ERROR, METRIC, PASSED, SUITE, TARGET, VALUE
from ..contract import USAGE_COLUMNS, Usage
from ..suites import Outcome, RunContext, Suite
from .summary import SuiteSummary, suite_summary, summarise

if TYPE_CHECKING:
    import pandas as pd

NOTE = "metrics are means over each case's repeats; comparisons pair each case's mean"


def summarise_repeats(
    suite: Suite, target: str, by_repeat: list[list[Outcome]], ctx: RunContext, floors: dict[str, float]
) -> tuple[SuiteSummary, list[dict[str, Any]], pd.DataFrame]:
    """Score every repeat of one (suite, target) and fold them: summary, case rows, scores."""
    import pandas as pd

    if len(by_repeat) == 1:
        return summarise(suite, target, by_repeat[0], ctx, floors)
    parts = [summarise(suite, target, outcomes, ctx, floors) for outcomes in by_repeat]
    scores = _mean_scores([scores for _, _, scores in parts])
    rows = fold_rows([rows for _, rows, _ in parts], [scores for _, _, scores in parts])
    summary = suite_summary(suite, scores.drop(columns=[SUITE, TARGET]), pd.DataFrame(rows), floors)
    summary["repeats"] = repeats_section(pd.DataFrame(rows))
    return summary, rows, scores


def _mean_scores(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """One row per (case, metric) in repeat 0's order: the mean of its repeats (NaN ones skipped)."""
    import pandas as pd

    means = pd.concat(frames, ignore_index=True).groupby([CASE, METRIC], sort=False)[VALUE].mean()
    return frames[0].drop(columns=[VALUE]).merge(means.reset_index(), on=[CASE, METRIC], how="left")


def fold_rows(rows_by_repeat: list[list[dict[str, Any]]], scores: list[pd.DataFrame]) -> list[dict[str, Any]]:
    """One row per case: repeat 0's row with the repeats' verdicts, errors, times and scores."""
    import numpy as np

    per_repeat = [{row[CASE]: row for row in rows} for rows in rows_by_repeat]
    values = [{(c, m): v for c, m, v in zip(f[CASE], f[METRIC], f[VALUE], strict=True)} for f in scores]
    metrics = list(dict.fromkeys(scores[0][METRIC]))
    folded = []
    for row in rows_by_repeat[0]:
        name = row[CASE]
        runs = [rows[name] for rows in per_repeat]
        passed = [bool(r.get(PASSED)) for r in runs]
        errors = [r.get(ERROR) for r in runs]
        seconds = [r.get("seconds") for r in runs]
        timed = [s for s in seconds if s is not None]
        folded.append(
            {
                **row,
                **_summed_usage(runs),
                PASSED: all(passed),
                ERROR: next((e for e in errors if e), None),
                "seconds": round(float(np.mean(timed)), 4) if timed else None,
                "repeats": len(runs),
                "repeat_passed": passed,
                "repeat_errors": errors,
                "repeat_seconds": seconds,
                "pass_all": all(passed),
                "pass_any": any(passed),
                "flaky": any(passed) and not all(passed),
                "repeat_passes": sum(passed),
                **_spread({m: [_plain(v.get((name, m))) for v in values] for m in metrics if (name, m) in values[0]}),
            }
        )
    return folded


def _spread(scores: dict[str, list[float | None]]) -> dict[str, Any]:
    """``repeat_scores`` (metric -> each repeat's value) and ``repeat_spread`` (metric -> max - min
    over the repeats that have a value; None when none has)."""
    spread = {}
    for metric, values in scores.items():
        kept = [v for v in values if v is not None]
        spread[metric] = round(max(kept) - min(kept), 12) if kept else None
    return {"repeat_scores": scores, "repeat_spread": spread}


def _summed_usage(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """A case's usage over its repeats: each known part summed (what the N askings cost together)."""
    total = Usage()
    for run in runs:
        parts = {key: run.get(key) for key in USAGE_COLUMNS}
        total = total.plus(Usage(**{k: v for k, v in parts.items() if v is not None and not _missing(v)}))
    return total.columns()


def _missing(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _plain(value: Any) -> float | None:
    import pandas as pd

    return None if value is None or pd.isna(value) else float(value)


def repeats_section(cases: pd.DataFrame) -> dict[str, Any]:
    """pass^k / pass@k counts and rates and the flaky cases of one (suite, target)'s folded rows."""
    k = int(cases["repeats"].max()) if len(cases) else 0
    all_pass = cases["pass_all"].fillna(False).astype(bool)
    any_pass = cases["pass_any"].fillna(False).astype(bool)
    n = len(cases)
    return {
        "k": k,
        "pass^k": int(all_pass.sum()),
        "pass@k": int(any_pass.sum()),
        "pass^k_rate": float(all_pass.mean()) if n else None,
        "pass@k_rate": float(any_pass.mean()) if n else None,
        "flaky": [str(c) for c, f in zip(cases[CASE], cases["flaky"].fillna(False), strict=True) if f],
        "note": NOTE,
    }
