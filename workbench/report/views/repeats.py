"""Runs with ``--repeat N``: pass^k and pass@k per suite and target, and the flaky cases with
the mean and spread of each metric over their repeats. A run without repeats gets a Note."""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from ...analysis.passk import pass_k_table
from ...columns import CASE, SUITE, TARGET
from ...store.runs import Run, has_repeats
from .common import Html, Note, table


def repeat_summary(run: Run) -> pd.DataFrame:
    """One row per (suite, target) of a repeated run: k, pass^k, pass@k and the flaky count."""
    rows = [
        {
            SUITE: suite,
            TARGET: target,
            "k": r["k"],
            "cases": s["cases"],
            "pass^k": r["pass^k"],
            "pass@k": r["pass@k"],
            "pass^k rate": r["pass^k_rate"],
            "pass@k rate": r["pass@k_rate"],
            "flaky": len(r["flaky"]),
        }
        for suite, per in run.summary.get("suites", {}).items()
        for target, s in per.items()
        if (r := s.get("repeats"))
    ]
    return pd.DataFrame(rows)


def flaky_frame(run: Run) -> pd.DataFrame:
    """The flaky cases (some repeats pass, some fail): passes out of k, and per metric its mean
    and spread (standard deviation, min-max) over the repeats."""
    cases = run.cases
    if "flaky" not in cases:
        return pd.DataFrame()
    flaky = cases[cases["flaky"].fillna(False).astype(bool)]
    rows = []
    for _, row in flaky.iterrows():
        out = {
            SUITE: row[SUITE],
            TARGET: row[TARGET],
            CASE: row[CASE],
            "passes": f"{sum(row['repeat_passed'])}/{len(row['repeat_passed'])}",
        }
        for metric, values in (row.get("repeat_scores") or {}).items():
            kept = np.array([v for v in values if v is not None], dtype=float)
            if kept.size:
                out[f"{metric} mean"] = float(kept.mean())
                out[f"{metric} sd"] = float(kept.std(ddof=1)) if kept.size > 1 else 0.0
                out[f"{metric} range"] = f"{kept.min():.3f}-{kept.max():.3f}"
        rows.append(out)
    return pd.DataFrame(rows)


def repeats(run: Run) -> Html | Note:
    """pass^k / pass@k per suite and target, then the flaky cases (a Note when the run has no repeats)."""
    summary = repeat_summary(run)
    if summary.empty:
        return Note("This run has no repeats (run with --repeat N to measure flakiness).")
    k = int(summary["k"].max())
    parts = [
        f"<p>Every case ran {k} times. pass^k: every repeat passed; pass@k: at least one did. "
        "Metrics and comparisons use each case's mean over its repeats.</p>",
        _html(table(summary, "repeats", precision=3)),
    ]
    flaky = flaky_frame(run)
    parts.append(
        _html(table(flaky, "flaky-cases", precision=3))
        if not flaky.empty
        else str(Note("No flaky case: every case passed all its repeats or none."))
    )
    return Html("\n".join(parts))


def pass_k(run: Run, suite: str | None = None) -> Styler | Note:
    """Unbiased pass^k and pass@k for k = 1 .. N per suite and target (``analysis.passk``): the chance
    that k fresh trials all pass, and that one of them does. A Note for a run without repeats."""
    cases = run.cases if suite is None else run.cases[run.cases[SUITE] == suite]
    if not has_repeats(cases):
        return Note("This run has no repeats (run with --repeat N for pass^k and pass@k).")
    long = pass_k_table(cases)
    wide = long.pivot_table(index=[SUITE, TARGET], columns="k", values=["pass^k", "pass@k"], sort=False)
    wide.columns = [f"{name.replace('k', str(k))}" for name, k in wide.columns]
    flaky = cases.groupby([SUITE, TARGET], sort=False)["flaky"].apply(lambda f: int(f.fillna(False).astype(bool).sum()))
    frame = wide.join(flaky.rename("flaky cases")).reset_index()
    k = int(long["k"].max())
    return table(frame, f"pass-k-{suite or 'all'}", precision=3).set_caption(
        f"pass^k: all k of k trials pass; pass@k: at least one does; unbiased from each case's passes of {k}"
    )


def _html(styler: Styler) -> str:
    return styler.to_html()
