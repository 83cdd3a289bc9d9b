"""Quality against cost: each target (and the baseline) by pass rate and cost per case, the
Pareto front marked; beside it the same against seconds per case (every engine has a latency).
Re-exported by ``workbench.report.plots`` (``wb.plots.quality_vs_cost``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from ._layout import ReportFigure, figure, title
from .views.common import Note, label
from .views.costs import with_baseline

PANELS = (
    ("cost/case (USD)", "front (cost)", "cost per case (USD)"),
    ("seconds/case", "front (latency)", "seconds per case"),
)


def quality_vs_cost(run: Any, base: Any = None, suite: str | None = None) -> ReportFigure | Note:
    """Pass rate against cost per case and against seconds per case, for the run's targets and the
    baseline, with the Pareto front (no other point cheaper and better) joined and ringed."""
    frame = with_baseline(run, base, suite)
    if frame.empty:
        return Note("This run has no cases.")
    fig, axes = figure("Quality against cost (Pareto front ringed)", 1, 2, width=10.0, height=3.8)
    for ax, (x, front, axis_label) in zip(axes.flat, PANELS, strict=True):
        _panel(ax, frame, x, front, axis_label)
    return fig


def _panel(ax: Axes, frame: pd.DataFrame, x: str, front: str, axis_label: str) -> None:
    known = frame[frame[x].notna()]
    unknown = frame[frame[x].isna()]
    colours = {"candidate": "#1a73e8", "control": "#9aa0a6", "baseline": "#e37400"}
    for row in known.to_dict("records"):
        ax.scatter(row[x], row["pass rate"], color=colours.get(row["role"], "#1a73e8"), s=40, zorder=3)
        point = (row[x], row["pass rate"])
        ax.annotate(label(str(row["target"])), point, fontsize=7, xytext=(4, 3), textcoords="offset points")
    on_front = known[known[front]].sort_values(x)
    if len(on_front):
        ax.step(on_front[x], on_front["pass rate"], where="post", color="black", linewidth=1, zorder=2)
        ax.scatter(on_front[x], on_front["pass rate"], s=140, facecolors="none", edgecolors="black", zorder=4)
    for row in unknown.to_dict("records"):  # no usage reported: its quality as a line, at no cost
        ax.axhline(row["pass rate"], color=colours.get(row["role"], "#9aa0a6"), linestyle=":", linewidth=1)
        text = f"{label(str(row['target']))}: {axis_label.split(' per')[0]} unknown"
        place = (0.01, row["pass rate"])
        ax.annotate(
            text, place, xycoords=("axes fraction", "data"), xytext=(0, 2), textcoords="offset points", fontsize=7
        )
    title(ax, f"pass rate against {axis_label}")
    ax.set_xlabel(axis_label + ("" if len(known) else " (no target reported it)"))
    ax.set_ylabel("pass rate")
    ax.set_ylim(-0.05, 1.08)
    if len(known):
        right = float(np.nanmax(known[x].to_numpy(float)))
        ax.set_xlim(0, right * 1.25 if right > 0 else 1)
