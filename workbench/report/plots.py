"""Figure builders for the report notebooks: each returns a titled, labelled matplotlib Figure.

Figures are built without pyplot (no global state, safe under Agg, never shown twice) and
show in Jupyter as one PNG. Colours are fixed per target: candidates take the palette in run
order, controls are grey. A suite the run lacks gives a one-line ``Note`` instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure

from ..analysis.registry import higher_is_better
from ..columns import CASE, METRIC, PASSED, SUITE, TARGET, VALUE
from ..store.runs import Run
from ._layout import PAD, PlainLogFormatter, ReportFigure, figure, title
from .calibration_plots import flag_lifts, reliability  # noqa: F401 - the calibration page's figures
from .cost_plots import quality_vs_cost  # noqa: F401 - a page's figure, in its own module
from .interleaving_plots import preference_over_time  # noqa: F401 - the interleaving page's figure
from .trend_plots import trend_lines  # noqa: F401 - the trend page's figure
from .views import breakdowns, classifiers, diff, retrieval, scoreboard
from .views.common import Html, Note, is_control, label, primary_target, suite_rows, targets_of, unless_quiet

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
GREYS = {"bm25": "#7f7f7f", "guess": "#a3a3a3", "random": "#c7c7c7"}
UP, DOWN, MUTED = "#1a73e8", "#e8710a", "#80868b"


def target_colours(targets: Sequence[str]) -> dict[str, str]:
    """Target -> colour: candidates in order through the palette, controls grey."""
    candidates = [t for t in targets if not is_control(t)]
    colours = {t: PALETTE[i % len(PALETTE)] for i, t in enumerate(candidates)}
    return {t: GREYS.get(t, "#999999") if is_control(t) else colours[t] for t in targets}


def bars(
    ax: Axes,
    at: np.ndarray,
    values: np.ndarray,
    width: float,
    horizontal: bool = False,
    base: np.ndarray | float = 0.0,
    **style: Any,
) -> PolyCollection:
    """Bars from ``base`` to ``base + values`` centred on ``at``, drawn like ``Axes.bar`` (the
    axis stops at the base, no margin) but as one collection: a Rectangle per bar costs ~0.5 ms to
    add (each re-computes the data limits) and is laid out and drawn one by one."""
    at, values = np.asarray(at, float), np.asarray(values, float)
    start = np.broadcast_to(np.asarray(base, float), values.shape)
    low, high, end = at - width / 2, at + width / 2, start + values
    corners = np.stack([np.column_stack(c) for c in ((low, start), (low, end), (high, end), (high, start))], axis=1)
    collection = PolyCollection(list(corners[..., ::-1] if horizontal else corners), **style)
    (collection.sticky_edges.x if horizontal else collection.sticky_edges.y).extend(np.unique(start).tolist())
    ax.add_collection(collection)
    return collection


def grouped_bars(ax: Axes, wide: pd.DataFrame, colours: dict[str, str], horizontal: bool = False) -> None:
    """One group per row of ``wide`` (categories), one bar per column (targets)."""
    count = max(len(wide.columns), 1)
    width = 0.8 / count
    positions = np.arange(len(wide.index))
    for i, target in enumerate(wide.columns):
        offset = positions - 0.4 + width * (i + 0.5)
        values = wide[target].to_numpy(float)
        bars(
            ax,
            offset,
            np.nan_to_num(values),
            width,
            horizontal,
            label=label(str(target)),
            facecolor=colours.get(str(target)),
            edgecolor="white",
            linewidth=0.5,
        )
    ticks = ax.set_yticks if horizontal else ax.set_xticks
    ticks(positions, [str(c) for c in wide.index])


def _legend(fig: Figure, axes: np.ndarray) -> None:
    handles, labels = axes.flat[0].get_legend_handles_labels()
    seen = dict(zip(labels, handles))
    for ax in axes.flat[1:]:
        for handle, text in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(text, handle)
    room = fig.bbox.width - 2 * PAD * fig.dpi  # fewer columns (more rows) for a legend wider than that
    for ncols in range(min(len(seen), 6), 0, -1):
        legend = fig.legend(list(seen.values()), list(seen), loc="outside lower center", ncols=ncols, frameon=False)
        renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]  # an Agg canvas (figure())
        if ncols == 1 or legend.get_window_extent(renderer).width <= room:
            return
        legend.remove()


def floors(run: Run) -> ReportFigure | Note:
    """Each suite's metrics per target, with the floor each must reach drawn as a black tick."""
    long = scoreboard.floor_frame(run)
    if long.empty:
        return Note("No metrics to plot.")
    suites = list(dict.fromkeys(long[SUITE]))
    cols = min(len(suites), 2)
    heading = (
        "Metrics against their floors (black ticks)"
        if long["floor"].notna().any()
        else "Metrics (NO FLOORS: the corpus sets no floor for these suites, nothing was judged)"
    )
    fig, axes = figure(heading, (len(suites) + 1) // 2, cols, height=3.0)
    colours = target_colours(targets_of(run))
    for ax, suite in zip(axes.flat, suites):
        rows = long[long[SUITE] == suite]
        wide = rows.pivot_table(index="metric", columns=TARGET, values="value", aggfunc="first", sort=False)
        wide = wide.reindex(columns=[t for t in targets_of(run) if t in wide.columns])
        grouped_bars(ax, wide, colours)
        floor = rows.groupby("metric", sort=False)["floor"].first().reindex(wide.index).to_numpy(float)
        ax.hlines(floor, np.arange(len(floor)) - 0.45, np.arange(len(floor)) + 0.45, colors="black", linewidth=2)
        title(ax, suite if np.isfinite(floor).any() else f"{suite} (no floors)")
        ax.set_ylabel("value")
        ax.tick_params(axis="x", labelrotation=20, labelsize=8)
    for ax in axes.flat[len(suites) :]:
        ax.set_visible(False)
    _legend(fig, axes)
    return fig


def pass_rates(run: Run) -> ReportFigure | Note:
    """Share of cases each target passes, per suite."""
    cases = run.cases
    if cases.empty:
        return Note("No cases to plot.")
    rates = cases.assign(_passed=cases[PASSED].fillna(False).astype(float)).pivot_table(
        index=SUITE, columns=TARGET, values="_passed", aggfunc="mean", sort=False
    )
    rates = rates.reindex(columns=[t for t in targets_of(run) if t in rates.columns])
    fig, axes = figure(
        "Share of cases passed, per suite", height=0.5 + 0.55 * len(rates) * max(1, len(rates.columns)) / 2
    )
    grouped_bars(axes[0, 0], rates, target_colours(targets_of(run)), horizontal=True)
    axes[0, 0].set_xlim(0, 1)
    axes[0, 0].set_xlabel("cases passed (share)")
    axes[0, 0].invert_yaxis()
    _legend(fig, axes)
    return fig


def rank_histogram(run: Run) -> ReportFigure | Note:
    """Where each target put the expected files: rank 1..k, beyond k, or not returned."""
    counts = retrieval.rank_counts(run)
    if isinstance(counts, Note):
        return counts
    fig, axes = figure("Where the expected files landed (retrieval)")
    grouped_bars(axes[0, 0], counts.T, target_colours(targets_of(run)))
    axes[0, 0].set_xlabel("rank of the expected file in the pack")
    axes[0, 0].set_ylabel("expected files")
    _legend(fig, axes)
    return fig


def savings_vs_accuracy(run: Run, seed: int = 0) -> ReportFigure | Note:
    """Per case and target: token savings against the pack's recall (jittered so points do not hide)."""
    rows = suite_rows(run, "tokens")
    if isinstance(rows, Note):
        return rows
    fig, axes = figure("Token savings vs accuracy: a random pack saves as much as a perfect one", width=8, height=4.2)
    ax, rng = axes[0, 0], np.random.default_rng(seed)
    colours = target_colours(targets_of(run))
    for target in [t for t in targets_of(run) if t in set(rows[TARGET])]:
        mine = rows[rows[TARGET] == target]
        x = pd.to_numeric(mine["savings"], errors="coerce").to_numpy(float)
        y = pd.to_numeric(mine["recallAtK"], errors="coerce").to_numpy(float)
        ax.scatter(
            x,
            y + rng.uniform(-0.02, 0.02, len(y)),
            s=36,
            alpha=0.8,
            color=colours[target],
            label=label(target),
            edgecolors="white",
            linewidths=0.5,
        )
    ax.set_xlabel("token savings (1 - pack / naive dump)")
    ax.set_ylabel("recall@k of the pack")
    ax.set_ylim(-0.08, 1.08)
    _legend(fig, axes)
    return fig


def risk_confusion(run: Run, target: str | None = None, quiet: bool = False) -> ReportFigure | Html:
    """Heat map of tp/fn/fp/tn per risk concept for one target (``quiet``: no note; the table above has it)."""
    counts = classifiers.concept_counts(run, target)
    if isinstance(counts, Note):
        return unless_quiet(counts, quiet)
    matrix = counts[["tp", "fn", "fp", "tn"]]
    fig, axes = figure(
        f"Risk concepts: confusion for {target or primary_target(run)}", width=6.5, height=0.6 + 0.4 * len(matrix)
    )
    ax = axes[0, 0]
    ax.imshow(matrix.to_numpy(float), cmap="Blues", aspect="auto")
    ax.set_xticks(range(4), ["tp", "fn (missed)", "fp (wrong)", "tn"])
    ax.set_yticks(range(len(matrix)), matrix.index)
    for (i, j), value in np.ndenumerate(matrix.to_numpy()):
        ax.text(j, i, str(int(value)), ha="center", va="center", fontsize=9)
    ax.set_xlabel("outcome of the labels (case count)")
    return fig


def per_case(run: Run, suite: str, metric: str | None = None) -> ReportFigure | Note:
    """One metric per case for every target, cases sorted by the first candidate's value."""
    rows = suite_rows(run, suite)
    if isinstance(rows, Note):
        return rows
    scores = run.scores[run.scores[SUITE] == suite]
    metric = metric or str(scores[METRIC].iloc[0])
    wide = scores[scores[METRIC] == metric].pivot_table(
        index=CASE, columns=TARGET, values=VALUE, aggfunc="first", sort=False
    )
    lead = primary_target(run) if primary_target(run) in wide.columns else wide.columns[0]
    wide = wide.sort_values(lead, kind="stable")
    fig, axes = figure(f"{metric} per case ({suite}), sorted by {lead}", width=9, height=3.8)
    ax, colours = axes[0, 0], target_colours(targets_of(run))
    for target in [t for t in targets_of(run) if t in wide.columns]:
        ax.plot(
            np.arange(len(wide)),
            wide[target].to_numpy(float),
            marker="o",
            markersize=3,
            linewidth=1,
            color=colours[target],
            label=label(target),
            alpha=0.9,
        )
    ax.set_xlabel(f"case (n={len(wide)})")
    ax.set_ylabel(metric)
    ax.set_xticks([])
    _legend(fig, axes)
    return fig


def latency(run: Run, suite: str | None = None) -> ReportFigure | Note:
    """Seconds per case: one box per target within each suite's group (log scale where any is positive)."""
    if suite is not None and isinstance(rows := suite_rows(run, suite), Note):
        return rows
    frame = breakdowns.latency_frame(run, suite)
    if frame.empty:
        return Note("No case timings recorded in this run.")
    cases = run.cases if suite is None else run.cases[run.cases[SUITE] == suite]
    seconds = pd.to_numeric(cases["seconds"], errors="coerce")
    suites, targets = list(dict.fromkeys(frame[SUITE])), [t for t in targets_of(run) if t in set(frame[TARGET])]
    colours, width = target_colours(targets), 0.8 / len(targets)
    fig, axes = figure("Seconds per case", width=max(6.0, 1.6 * len(suites) + 3), height=3.6)
    ax = axes[0, 0]
    for i, target in enumerate(targets):
        data = [seconds[(cases[SUITE] == s) & (cases[TARGET] == target)].dropna().to_numpy() for s in suites]
        keep = [j for j, values in enumerate(data) if len(values)]
        parts = ax.boxplot(
            [data[j] for j in keep],
            positions=[j - 0.4 + width * (i + 0.5) for j in keep],
            widths=width * 0.9,
            patch_artist=True,
            manage_ticks=False,
        )
        for box in parts["boxes"]:
            box.set_facecolor(colours[target])
        ax.plot([], [], color=colours[target], linewidth=6, label=label(target))
    ax.set_xticks(range(len(suites)), suites)
    if (seconds > 0).any():  # a log axis needs a positive value (timings all 0 s draw on a linear one)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(PlainLogFormatter())
        ax.yaxis.set_minor_formatter(PlainLogFormatter())
        ax.set_ylabel("seconds (log scale)")
    else:
        ax.set_ylabel("seconds")
    _legend(fig, axes)
    return fig


def forest(comparison: Any) -> ReportFigure | Note:
    """Each metric's paired difference (B - A) with its bootstrap 95% CI; filled when Holm-significant.

    Metrics on a 0-1 scale share the first panel; any other metric (token counts) gets its own.
    """
    if isinstance(comparison, Note):
        return comparison
    rows = comparison.comparisons.dropna(subset=["delta"])
    if rows.empty:
        return Note("No paired differences to plot.")
    extent = rows[["mean_a", "mean_b", "ci_low", "ci_high"]].abs().max(axis=1)
    panels = [rows[extent <= 1.0]] + [rows.loc[[i]] for i in rows.index[extent > 1.0]]
    panels = [p for p in panels if len(p)]
    heights = [0.6 + 0.3 * len(p) for p in panels]
    fig, axes = figure(
        "Differences B - A with 95% bootstrap CIs",
        len(panels),
        1,
        width=8,
        height=(sum(heights) + 0.8) / len(panels),
        height_ratios=heights,
    )
    for i, (ax, panel) in enumerate(zip(axes.flat, panels)):
        _forest_panel(ax, panel.iloc[::-1])
        ax.set_ylabel("0-1 scale" if i == 0 and (extent <= 1.0).any() else "own scale")
    fig.axes[-1].set_xlabel("difference in metric units (filled: significant after Holm at 0.05)")
    return fig


def _forest_panel(ax: Axes, rows: pd.DataFrame) -> None:
    # Significant and better in the metric's direction: blue; significant and worse: orange (for
    # token counts and latency a drop is the improvement).
    y, significant = np.arange(len(rows)), (rows["p_holm"] < 0.05).to_numpy()
    better = _better(rows["delta"], rows[METRIC]) > 0
    colours = np.where(significant, np.where(better, UP, DOWN), MUTED).tolist()
    ax.hlines(y, rows["ci_low"], rows["ci_high"], colors=colours, linewidth=2)
    ax.scatter(rows["delta"], y, s=40, c=np.where(significant, colours, "white").tolist(), edgecolors=colours, zorder=3)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, [f"{s} · {m}" for s, m in zip(rows[SUITE], rows[METRIC])])
    ax.set_ylim(-0.6, len(rows) - 0.4)


def case_deltas(comparison: Any, limit: int = 4) -> ReportFigure | Note:
    """Per-case differences (B - A) sorted, for up to ``limit`` metrics; blue better, orange worse
    (in each metric's direction: a smaller pack is better)."""
    if isinstance(comparison, Note):
        return comparison
    cases = comparison.cases.dropna(subset=["delta"])
    keys = _delta_keys(cases, comparison.gate, limit)
    if not keys:
        return Note("No paired per-case values to plot.")
    if not (cases["delta"].abs() > 1e-12).any():
        return Note(f"No case differs between the two sides ({len(cases)} paired values, every delta 0).")
    fig, axes = figure("Per-case differences B - A, sorted", len(keys), 1, height=2.4)
    for ax, (suite, metric) in zip(axes.flat, keys):
        deltas = np.sort(cases.loc[(cases[SUITE] == suite) & (cases[METRIC] == metric), "delta"].to_numpy(float))
        better = _better(pd.Series(deltas), pd.Series([metric] * len(deltas))) >= 0
        bars(ax, np.arange(len(deltas)), deltas, 0.9, facecolor=np.where(better, UP, DOWN))
        ax.axhline(0, color="black", linewidth=0.8)
        direction = "higher" if higher_is_better(metric) else "lower"
        title(ax, f"{suite} · {metric} ({direction} is better)", fontsize=10)
        ax.set_ylabel("B - A")
        ax.set_xticks([])
    axes.flat[-1].set_xlabel("cases, sorted by difference")
    return fig


def _better(delta: pd.Series, metric: pd.Series) -> np.ndarray:
    """Each delta signed so that positive is better in its metric's direction."""
    upward = np.array([higher_is_better(str(m)) for m in metric], dtype=bool)
    values = delta.to_numpy(float)
    return np.where(upward, values, -values)


def _delta_keys(cases: pd.DataFrame, gate: Any, limit: int) -> list[tuple[str, str]]:
    """(suite, metric) pairs to show: the gate rule's metrics first, then each suite's first metric."""
    keys = [k for k in dict.fromkeys(zip(cases[SUITE], cases[METRIC])) if k[1] != PASSED]
    wanted = {gate.primary, gate.noninferior} if gate else set()
    ruled = [k for k in keys if k[1] in wanted and getattr(gate, "suite", None) in (None, k[0])]
    firsts = [next(k for k in keys if k[0] == suite) for suite in dict.fromkeys(s for s, _ in keys)]
    return list(dict.fromkeys(ruled + firsts))[:limit]


def change_counts(comparison: Any, quiet: bool = False) -> ReportFigure | Html:
    """Per suite, the cases by change (``quiet``: nothing instead of the Note a page showed)."""
    if isinstance(comparison, Note):
        return unless_quiet(comparison, quiet)
    statuses, one_sided = diff.two_sided(comparison)
    if statuses.empty:
        return Note(" ".join(f"{suite}: not in {side}." for suite, side in one_sided.items()) or "No cases to count.")
    counts = pd.crosstab(statuses[SUITE], statuses["status"]).reindex(columns=list(diff.CASE_STATUSES), fill_value=0)
    colours = {
        "regressed": "#c5221f",
        "mixed": "#f29900",
        "improved": "#137333",
        "new": "#1a73e8",
        "missing": "#5f6368",
        "unchanged": "#dadce0",
    }
    fig, axes = figure("Cases by change, per suite", height=0.8 + 0.45 * len(counts))
    ax, left = axes[0, 0], np.zeros(len(counts))
    for status in counts.columns:
        bars(
            ax,
            np.arange(len(counts)),
            counts[status].to_numpy(float),
            0.8,
            horizontal=True,
            base=left,
            facecolor=colours[status],
            label=status,
        )
        left += counts[status].to_numpy()
    ax.set_yticks(range(len(counts)), counts.index)
    ax.set_xlabel("cases")
    ax.invert_yaxis()
    _legend(fig, axes)
    return fig
