"""The calibration page's figures, from ``workbench calibrate --json`` output: each flag's lift with
its 95% interval, and the reliability diagram of scored flags. Re-exported by
``workbench.report.plots`` (``wb.plots.flag_lifts``, ``wb.plots.reliability``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..calibration import lift_text
from ._layout import ReportFigure, figure, title
from .views.common import Note


def flag_lifts(data: dict[str, Any], outcome: str = "either") -> ReportFigure | Note:
    """Lift of ``outcome`` (flagged rate over unflagged rate) per flag, with its interval, on a log
    axis; a withheld flag is named with its count and drawn nowhere."""
    rows = [r for r in data["flags"] if r["outcome"] == outcome]
    if not rows:
        return Note(f"No flag to plot for '{outcome}'.")
    shown = [r for r in rows if not r["withheld"] and r["unflagged_outcomes"] and r["lift"] > 0]
    held = [r for r in rows if r not in shown]
    heading = f"Lift of '{outcome}' per flag (95% interval; 1 = no better than unflagged)"
    fig, axes = figure(heading, height=1.2 + 0.3 * len(shown) + 0.15 * len(held))
    ax = axes[0, 0]
    if shown:
        y = np.arange(len(shown))
        lift = np.array([r["lift"] for r in shown], dtype=float)
        low = np.maximum(np.array([r["lift_low"] for r in shown], dtype=float), 1e-3)
        high = np.array([r["lift_high"] if r["lift_high"] is not None else np.nan for r in shown], dtype=float)
        top = np.nanmax(np.concatenate([high, lift])) * 2 if np.isfinite(high).any() else lift.max() * 4
        high = np.where(np.isfinite(high), high, top)
        ax.hlines(y, low, high, color="#1a73e8", linewidth=2)
        ax.scatter(lift, y, color="black", zorder=3, s=20)
        ax.axvline(1.0, color="#9aa0a6", linestyle="--", linewidth=1)
        ax.set_xscale("log")
        ax.set_yticks(y, [f"{r['flag']} (n={r['flagged']})" for r in shown])
        ax.invert_yaxis()
    else:
        ax.set_yticks([])
    ax.set_xlabel("lift (log scale)")
    if held:
        names = "\n".join(f"{r['flag']}: {lift_text(r)}" for r in held)
        ax.annotate(f"not drawn:\n{names}", (1.02, 1.0), xycoords="axes fraction", fontsize=7, va="top")
    title(ax, f"{data['observed']} observed changes of {data['repo']}")
    return fig


def reliability(data: dict[str, Any]) -> ReportFigure | Note:
    """Reliability diagram of each scored flag: per score bin, the mean score against the observed
    rate of 'either' (the diagonal is perfect calibration); bins under the minimum are left out."""
    bins = [b for b in data.get("reliability") or [] if not b["withheld"]]
    if not data.get("reliability"):
        return Note("The target gave no scores, so there is no reliability diagram.")
    fig, axes = figure("Reliability: mean score against observed rate of 'either'", width=5.5, height=4.5)
    ax = axes[0, 0]
    ax.plot([0, 1], [0, 1], color="#9aa0a6", linestyle="--", linewidth=1)
    for flag in dict.fromkeys(b["flag"] for b in bins):
        mine = [b for b in bins if b["flag"] == flag]
        ax.plot([b["mean_score"] for b in mine], [b["outcome_rate"] for b in mine], marker="o", label=flag)
    if bins:
        ax.legend(fontsize=7)
    else:
        ax.annotate("every bin has too few changes", (0.05, 0.9), fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("mean score in bin")
    ax.set_ylabel("observed rate")
    title(ax, f"bins of width 0.1 with >= {data.get('minOutcomes', 30)} changes")
    return fig
