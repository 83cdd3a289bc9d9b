"""The text report of a calibration: one table per outcome, withheld figures shown with their count."""

from __future__ import annotations

import math
from typing import Any

from .calibrate import OUTCOMES, Calibration


def rate_text(value: Any, low: Any, high: Any, count: int) -> str:
    """``0.125 [0.050, 0.260]``, or ``withheld (n=12)`` when the group is too small."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"withheld (n={count})"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def lift_text(row: dict[str, Any]) -> str:
    """A flag row's lift with its interval, or why there is none (a row of the frame or of ``--json``)."""
    if row["withheld"]:
        return f"withheld (n={min(row['flagged'], row['unflagged'])})"
    if not row["unflagged_outcomes"]:
        return "n/a (no outcome in either group)" if not row["flagged_outcomes"] else "unbounded (no unflagged outcome)"
    high = row["lift_high"]
    upper = "inf" if high is None or math.isinf(high) else f"{high:.2f}"
    return f"{row['lift']:.2f} [{row['lift_low']:.2f}, {upper}]"


def render_text(result: Calibration) -> str:
    """The report for a terminal."""
    from .stats import MIN_OUTCOMES

    lines = [
        f"calibrate {result.repo} with {result.target} (window {result.window.label}): {result.commits} commits read, "
        f"{result.changes} changes, {result.observed} observed, {result.censored} censored "
        f"(window not yet over at the newest commit read)",
        "outcomes: "
        + ", ".join(f"{k} {result.outcome_counts.get(k, 0)}" for k in OUTCOMES)
        + f" ({result.found.fixes} fix commits examined, {result.found.blames} blame calls)",
        f"rates need >= {MIN_OUTCOMES} observed changes per group; 95% Wilson intervals, lift by MOVER-R",
    ]
    rows = result.table.to_dict(orient="records") if result.table is not None else []
    if not rows:
        lines.append("no flags: the target returned no concept for any observed change")
    width = max([len(r["flag"]) for r in rows] + [4])
    for outcome in OUTCOMES:
        chosen = [r for r in rows if r["outcome"] == outcome]
        if not chosen:
            continue
        lines += ["", f"outcome: {outcome}"]
        lines.append(
            f"  {'flag':<{width}}  {'flagged':>7}  {'rate [95%]':<22}  {'unflagged':>9}  {'rate [95%]':<22}  lift [95%]"
        )
        for r in chosen:
            flagged = rate_text(r["rate_flagged"], r["rate_flagged_low"], r["rate_flagged_high"], r["flagged"])
            other = rate_text(r["rate_unflagged"], r["rate_unflagged_low"], r["rate_unflagged_high"], r["unflagged"])
            counts = f"{r['flagged']:>7}  {flagged:<22}  {r['unflagged']:>9}  {other:<22}"
            lines.append(f"  {r['flag']:<{width}}  {counts}  {lift_text(r)}")
    if result.brier is not None:
        lines += ["", "scores against 'either' (Brier; reliability bins of width 0.1)"]
        for r in result.brier.to_dict(orient="records"):
            brier = "withheld" if r["withheld"] else f"{r['brier']:.4f}"
            lines.append(f"  {r['flag']:<{width}}  Brier {brier} (n={r['changes']})")
            for b in result.reliability[result.reliability["flag"] == r["flag"]].to_dict(orient="records"):
                shown = (
                    "withheld" if b["withheld"] else f"mean score {b['mean_score']:.3f}, rate {b['outcome_rate']:.3f}"
                )
                lines.append(f"    [{b['low']:.1f}, {b['high']:.1f})  n={b['changes']:<6} {shown}")
    lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines)
