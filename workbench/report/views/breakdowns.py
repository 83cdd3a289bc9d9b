"""Suite-agnostic breakdowns: metrics per group of cases, per case across targets, and latency.

They read only the columns every run has (suite, target, case, passed, seconds, the score
frame) plus the one case field named by the caller, so they work for any suite.
"""

from __future__ import annotations

import pandas as pd
from pandas.io.formats.style import Styler

from ...columns import CASE, METRIC, PASSED, SUITE, TARGET, VALUE
from ...store.runs import Run
from .common import Note, primary_target, suite_rows, table, targets_of, wide_scores


def in_run_order(frame: pd.DataFrame, run: Run) -> pd.DataFrame:
    """``frame`` with its target column ordered as the run lists its targets (for sorting)."""
    order = [t for t in targets_of(run) if t in set(frame[TARGET])]
    return frame.assign(**{TARGET: pd.Categorical(frame[TARGET], categories=order, ordered=True)})


def grouped(rows: pd.DataFrame, wide: pd.DataFrame, by: str) -> pd.DataFrame:
    """Per (``by``, target): case count, pass rate and the mean of every metric.

    A list-valued ``by`` field (a case with several rules, say) counts the case in each group.
    """
    keep = rows[[TARGET, CASE, PASSED, by]]
    if keep[by].map(lambda v: isinstance(v, (list, tuple))).any():
        keep = keep.explode(by)
    merged = keep.merge(wide, on=[TARGET, CASE], how="left")
    merged["_passed"] = merged[PASSED].fillna(False).astype(float)
    metrics = [c for c in wide.columns if c not in (TARGET, CASE)]
    aggs = {"cases": (CASE, "size"), "pass rate": ("_passed", "mean"), **{m: (m, "mean") for m in metrics}}
    return merged.groupby([by, TARGET], sort=True, observed=True, dropna=False).agg(**aggs).reset_index()


def group_metrics(run: Run, suite: str, by: str) -> Styler | Note:
    """Metrics of one suite aggregated per value of the case field ``by`` and per target."""
    rows = suite_rows(run, suite)
    if isinstance(rows, Note):
        return rows
    if by not in rows.columns or rows[by].isna().all():
        return Note(f"The {suite} cases carry no {by!r} field to group by.")
    frame = grouped(in_run_order(rows, run), wide_scores(run, suite), by)
    return table(frame, f"{suite}-by-{by}")


def metric_by_case(run: Run, suite: str, metric: str | None = None, text: str = "query") -> Styler | Note:
    """One row per case, one column per target for ``metric`` (default: the suite's first), worst first."""
    rows = suite_rows(run, suite)
    if isinstance(rows, Note):
        return rows
    scores = run.scores[run.scores[SUITE] == suite]
    if scores.empty:
        return Note(f"The {suite} suite recorded no scores.")
    metric = metric or str(scores[METRIC].iloc[0])
    wide = scores[scores[METRIC] == metric].pivot_table(
        index=CASE, columns=TARGET, values=VALUE, aggfunc="first", sort=False
    )
    wide = wide.reindex(columns=[t for t in targets_of(run) if t in wide.columns])
    lead = primary_target(run)
    wide = wide.sort_values(lead if lead in wide else list(wide.columns)[:1], kind="stable")
    cases = rows.drop_duplicates(CASE).set_index(CASE)
    if text in cases.columns:
        wide.insert(0, text, cases[text].reindex(wide.index))
    return table(wide.reset_index().rename_axis(columns=None), f"{suite}-{metric}-by-case").set_caption(
        f"{metric} per case, worst first for {lead}"
    )


def latency_frame(run: Run, suite: str | None = None) -> pd.DataFrame:
    """Seconds per case: count, mean and quantiles per suite and target."""
    cases = run.cases if suite is None else run.cases[run.cases[SUITE] == suite]
    seconds = pd.to_numeric(cases.get("seconds", pd.Series(dtype=float)), errors="coerce")
    frame = in_run_order(cases.assign(seconds=seconds).dropna(subset=["seconds"]), run)
    stats = frame.groupby([SUITE, TARGET], observed=True)["seconds"]
    return pd.concat(
        [
            stats.count().rename("cases"),
            stats.mean().rename("mean"),
            stats.quantile(0.5).rename("p50"),
            stats.quantile(0.9).rename("p90"),
            stats.max().rename("max"),
        ],
        axis=1,
    ).reset_index()


def latency(run: Run, suite: str | None = None) -> Styler | Note:
    """How long each target took per case (seconds), per suite."""
    if suite is not None and isinstance(rows := suite_rows(run, suite), Note):
        return rows
    frame = latency_frame(run, suite)
    if frame.empty:
        return Note("No case timings recorded in this run.")
    return table(frame, f"latency-{suite or 'all'}", precision=4)
