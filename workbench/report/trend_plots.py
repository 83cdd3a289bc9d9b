"""The trend page's figure: each metric over time, one line per target with its 95% band, the
points where the corpus changed, every recording of each baseline (a dotted line with its short
commit) and each significant step.
Re-exported by ``workbench.report.plots`` (``wb.plots.trend_lines``)."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import pandas as pd

from ..analysis.gates import IMPROVED, REGRESSED
from ..analysis.trend import Trend
from ._layout import ReportFigure, figure, title
from .views.common import Note

MAX_PANELS = 12
STEP_COLOURS = {REGRESSED: "#c5221f", IMPROVED: "#137333"}


def _short(corpus: str) -> str:
    """The corpus file and its folder (``corpus/corpus.json``): the page's text gives the whole path,
    and a figure then looks the same from any checkout."""
    return str(PurePath(*PurePath(corpus).parts[-2:])) if corpus else corpus


def trend_lines(trend: Trend) -> ReportFigure | Note:
    """One panel per (suite, metric), up to ``MAX_PANELS``: each target's mean per run over time
    (runs in order, the x axis is the run's position), its band, dashed lines where the corpus
    version changed, stars for baselines and rings for significant steps."""
    points = trend.points
    if points.empty:
        return Note("No run has a value for these targets and metrics.")
    runs = list(dict.fromkeys(points.sort_values(["created", "run_id"])["run_id"]))
    panels = list(dict.fromkeys(zip(points["suite"], points["metric"], strict=True)))[:MAX_PANELS]
    cols = min(2, len(panels))
    rows = -(-len(panels) // cols)
    fig, axes = figure(f"Trend over {len(runs)} run(s) of {_short(trend.corpus)}", rows=rows, cols=cols, height=3.0)
    position = {run: i for i, run in enumerate(runs)}
    when = dict(zip(points["run_id"], points["created"].astype(str).str[5:10], strict=True))
    for ax, (suite, metric) in zip(axes.flat, panels, strict=False):
        _panel(ax, trend, suite, metric, position)
        ax.set_xticks(range(len(runs)), [when.get(run, "?") for run in runs], fontsize=7)
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    return fig


def _panel(ax: Any, trend: Trend, suite: str, metric: str, position: dict[str, int]) -> None:
    """One metric: a line and band per target, version changes, baselines and flagged steps."""
    mine = trend.points[(trend.points["suite"] == suite) & (trend.points["metric"] == metric)]
    for target, line in mine.groupby("target", sort=False):
        x = line["run_id"].map(position).to_numpy(float)
        drawn = ax.plot(x, line["value"], marker="o", markersize=3, linewidth=1.5, label=str(target))
        ax.fill_between(
            x, line["ci_low"].astype(float), line["ci_high"].astype(float), alpha=0.15, color=drawn[0].get_color()
        )
        for flag, colour in STEP_COLOURS.items():
            hit = line[line["step"] == flag]
            ax.scatter(
                hit["run_id"].map(position),
                hit["value"],
                s=80,
                facecolors="none",
                edgecolors=colour,
                linewidths=1.5,
                label=f"{flag.lower()} (p < 0.05)",
                zorder=3,
            )
    for version in trend.versions[1:]:
        if version["first_run"] in position:
            ax.axvline(position[version["first_run"]] - 0.5, color="#9aa0a6", linestyle="--", linewidth=1)
            ax.annotate(
                f"corpus v{version['version']}",
                (position[version["first_run"]] - 0.45, 0.02),
                xycoords=("data", "axes fraction"),
                fontsize=7,
                color="#5f6368",
            )
    _baselines(ax, trend, suite, metric, position)
    ax.set_xlabel("run (oldest first, month-day)")
    ax.set_ylabel(metric)
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    ax.legend(unique.values(), unique.keys(), fontsize=7)
    title(ax, f"{suite} {metric}")


def _baselines(ax: Any, trend: Trend, suite: str, metric: str, position: dict[str, int]) -> None:
    """Each recording of each baseline: a dotted vertical line at the run it was recorded from (else
    at the right edge) labelled with the short commit that stored it (else its run's commit), and a
    star at its value."""
    marks = trend.baselines[(trend.baselines["suite"] == suite) & (trend.baselines["metric"] == metric)]
    right = max(position.values(), default=0) + 0.3
    for i, mark in enumerate(marks.itertuples(index=False)):
        x = position.get(str(mark.run_id), right) if not pd.isna(mark.run_id) else right
        ax.axvline(x, color="#f29900", linestyle=":", linewidth=1, label="baseline recording")
        ax.scatter([x], [mark.value], marker="*", s=120, color="#f29900", zorder=4, label="baseline")
        ax.annotate(
            f"{str(mark.name)[:40]} @ {_commit_of(mark)}",
            (x, 0.95 - 0.08 * (i % 4)),
            xycoords=("data", "axes fraction"),
            fontsize=7,
            xytext=(3, 0),
            textcoords="offset points",
            color="#b06000",
            parse_math=False,  # a name from a file (or its history) is text, never mathtext
        )


def _commit_of(mark: Any) -> str:
    """The short commit a recording is known by: the one that stored it, else its run's, else ``?``."""
    for commit in (getattr(mark, "committed_in", None), mark.git_commit):
        if isinstance(commit, str) and commit:
            return commit[:7]
    return "?"
