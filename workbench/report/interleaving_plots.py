"""The interleaving page's figure, from ``workbench interleave analyze --json`` output: the running
preference as tasks accumulate in the order they were shown. Re-exported by
``workbench.report.plots`` (``wb.plots.preference_over_time``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._layout import ReportFigure, figure, title
from .views.common import Note
from .views.interleaving import tasks

CODES = {"a": -1, "tie": 0, "b": 1}


def preference_over_time(data: dict[str, Any]) -> ReportFigure | Note:
    """After each task (oldest first), the preference so far, (wins B - wins A) / tasks so far:
    where it settles, and how soon; the final interval is drawn at the right."""
    frame = tasks(data)
    if frame.empty:
        return Note("No task with feedback, so no preference over time.")
    codes = frame["outcome"].map(CODES).to_numpy(dtype=float)
    n = np.arange(1, codes.size + 1)
    running = np.cumsum(codes) / n
    fig, axes = figure(f"Preference so far: {data['b']} (B, above 0) against {data['a']} (A, below 0)")
    ax = axes[0, 0]
    ax.axhline(0.0, color="#9aa0a6", linestyle="--", linewidth=1)
    ax.plot(n, running, color="#1a73e8", linewidth=1.5, marker="o" if codes.size <= 40 else None, markersize=3)
    pref = data["preference"]
    below, above = pref["preference"] - pref["ci_low"], pref["ci_high"] - pref["preference"]
    ax.errorbar([n[-1]], [pref["preference"]], yerr=[[below], [above]], color="black", capsize=4, fmt="none")
    ax.set_ylim(-1.05, 1.05)
    ax.set_xlabel("tasks, in the order they were shown")
    ax.set_ylabel("(wins B - wins A) / tasks")
    stamps = frame["at"].tolist()
    if stamps[0] and stamps[-1]:
        title(ax, f"{codes.size} tasks from {stamps[0]} to {stamps[-1]}")
    return fig
