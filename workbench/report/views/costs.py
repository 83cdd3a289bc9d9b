"""Cost and latency beside quality: per target (and the baseline), what a passed case costs.

Cost is the ``cost_usd`` the engines reported (``usage`` in the JSON protocol), summed over the
cases that reported it; an engine that reported none has an unknown cost, shown "-", never 0.
Latency is the mean engine seconds per case (cached outcomes have none). The Pareto front marks
the targets no other beats on both quality and cost (or latency).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from ...columns import PASSED, SUITE, TARGET
from ...store.runs import Run
from .common import Note, is_control, table

COLUMNS = ["target", "role", "cases", "pass rate", "cost (USD)", "cost/case (USD)", "seconds/case"]


def _numeric(cases: pd.DataFrame, column: str) -> pd.Series:
    if column not in cases:
        return pd.Series(np.nan, index=cases.index, dtype=float)
    return pd.to_numeric(cases[column], errors="coerce")


def cost_frame(run: Any, suite: str | None = None, role: str | None = None) -> pd.DataFrame:
    """One row per target of ``run`` (a run or a baseline): cases, pass rate, reported cost (total and
    per case that reported it; NaN when none did) and mean seconds per case."""
    cases = run.cases if suite is None else run.cases[run.cases[SUITE] == suite]
    if cases.empty:
        return pd.DataFrame(columns=COLUMNS)
    if TARGET not in cases:
        cases = cases.assign(**{TARGET: getattr(run, "name", "baseline")})
    frame = cases.assign(
        _passed=cases[PASSED].fillna(False).astype(bool),
        _cost=_numeric(cases, "cost_usd"),
        _seconds=_numeric(cases, "seconds"),
    )
    stats = frame.groupby(TARGET, sort=False).agg(
        cases=("_passed", "size"),
        passed=("_passed", "sum"),
        cost=("_cost", lambda s: s.sum() if s.notna().any() else np.nan),
        costed=("_cost", "count"),
        seconds=("_seconds", "mean"),
    )
    out = pd.DataFrame(
        {
            "target": stats.index,
            "role": [role or ("control" if is_control(str(t)) else "candidate") for t in stats.index],
            "cases": stats["cases"].to_numpy(),
            "pass rate": (stats["passed"] / stats["cases"]).to_numpy(float),
            "cost (USD)": stats["cost"].to_numpy(float),
            "cost/case (USD)": (stats["cost"] / stats["costed"].where(stats["costed"] > 0)).to_numpy(float),
            "seconds/case": stats["seconds"].to_numpy(float),
        }
    )
    return out


def pareto(x: np.ndarray, quality: np.ndarray) -> np.ndarray:
    """Whether each point is on the Pareto front: no other point has x <= its x and quality >= its
    quality with one of them strictly better. Points with an unknown x or quality are never on it."""
    known = ~(np.isnan(x) | np.isnan(quality))
    xi, qi = x[:, None], quality[:, None]
    xj, qj = x[None, :], quality[None, :]
    dominated = ((xj <= xi) & (qj >= qi) & ((xj < xi) | (qj > qi)) & known[None, :]).any(axis=1)
    return known & ~dominated


def with_baseline(run: Run, base: Any = None, suite: str | None = None) -> pd.DataFrame:
    """The run's cost frame, plus the baseline's rows (role ``baseline``) when ``base`` is a run or
    baseline (a ``Note`` from ``open_baseline`` is left out), with the Pareto fronts marked."""
    frames = [cost_frame(run, suite)]
    if base is not None and not isinstance(base, Note) and hasattr(base, "cases"):
        side = cost_frame(base, suite, role="baseline")
        frames.append(side.assign(target=[f"{t} (baseline)" for t in side["target"]]))
    frame = pd.concat([f for f in frames if not f.empty] or frames[:1], ignore_index=True)
    quality = frame["pass rate"].to_numpy(float)
    return frame.assign(
        **{
            "front (cost)": pareto(frame["cost/case (USD)"].to_numpy(float), quality),
            "front (latency)": pareto(frame["seconds/case"].to_numpy(float), quality),
        }
    )


def costs(run: Run, base: Any = None, suite: str | None = None) -> Styler | Note:
    """Quality, cost and latency per target (and the baseline): "-" where an engine reported no usage."""
    frame = with_baseline(run, base, suite)
    if frame.empty:
        return Note("This run has no cases.")
    shown = frame.assign(**{c: frame[c].map({True: "yes", False: ""}) for c in ("front (cost)", "front (latency)")})
    styler = table(shown, "costs", precision=4)
    unknown = int(frame["cost (USD)"].isna().sum())
    note = f"; {unknown} target(s) reported no usage: cost unknown (-), never 0" if unknown else ""
    return styler.set_caption(f"Quality, cost and latency per target{note}")
