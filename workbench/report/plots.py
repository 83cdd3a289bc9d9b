"""Figure builders for the report notebooks: each returns a titled, labelled matplotlib Figure.

Figures are built without pyplot (no global state, safe under Agg, never shown twice) and
show in Jupyter as one PNG. Colours are fixed per target: candidates take the palette in run
order, controls are grey. A suite the run lacks gives a one-line ``Note`` instead.
"""
from __future__ import annotations

import io
from typing import Any, Sequence

import numpy as np
import pandas as pd
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.layout_engine import LayoutEngine
from matplotlib.ticker import LogFormatter

from ..columns import CASE, METRIC, PASSED, SUITE, TARGET, VALUE
from ..store.runs import Run
from .views import breakdowns, classifiers, diff, retrieval, scoreboard
from .views.common import Note, is_control, label, primary_target, suite_rows, targets_of

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
GREYS = {"bm25": "#7f7f7f", "random": "#c7c7c7"}
UP, DOWN, MUTED = "#1a73e8", "#e8710a", "#80868b"
DPI = 80  # the Jupyter inline look; fewer pixels to rasterise and encode
MIN_HEIGHT = 2.2  # inches per row of panels: a title, a panel, its tick labels and a legend
PAD = 3 / 72  # inches around each panel's decorations and the figure's edge (constrained layout's pad)


class ReportFigure(Figure):
    """A Figure that Jupyter displays as one PNG (no pyplot, so no second copy), drawn at ``DPI``.

    Its Agg canvas is attached up front, so the layout's measurements and the drawing share one
    renderer, and with it matplotlib's cache of text extents (each text is measured once).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("dpi", DPI)
        super().__init__(*args, **kwargs)
        FigureCanvasAgg(self)

    def _repr_png_(self) -> tuple[bytes, dict[str, str]]:
        """What Jupyter shows: the PNG, with its alt text (the titles) in the output metadata."""
        return self.png(), {"alt": self.alt_text()}

    def alt_text(self) -> str:
        """The figure's title and its panels' titles, for readers who cannot see the image."""
        title = self._suptitle.get_text() if self._suptitle is not None else ""
        panels = [ax.get_title() for ax in self.axes if ax.get_visible() and ax.get_title()]
        return "; ".join(filter(None, [title, ", ".join(panels)])) or "A figure"

    def png(self) -> bytes:
        """The PNG, laid out once: with a layout engine set, savefig would first lay the figure
        out inside a draw of its own (every artist walked once more) before drawing it. A figure
        not changed since it was last drawn is not laid out again, so it shows the same twice."""
        engine = self.get_layout_engine()
        buffer = io.BytesIO()
        with rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
            if engine is not None and self.dpi == DPI:
                if self.stale:
                    engine.execute(self)
                self.set_layout_engine(None)
            try:
                self.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
            finally:
                self.set_layout_engine(engine)
                self.stale = False  # drawn as it is now (restoring the engine marked it changed)
        return buffer.getvalue()


def figure(title: str, rows: int = 1, cols: int = 1, width: float = 9.0, height: float = 3.6,
           **grid: Any) -> tuple[ReportFigure, np.ndarray]:
    """A titled figure with a grid of axes (always 2-D), laid out to fit its labels.

    ``grid`` goes to the GridSpec (``height_ratios``, ...). The panels start about where the
    layout will put them (:func:`first_guess`)."""
    height = max(height, MIN_HEIGHT)
    fig = ReportFigure(figsize=(width, height * rows), layout=GridLayout())
    axes = fig.subplots(rows, cols, squeeze=False, gridspec_kw={**first_guess(width, height * rows), **grid})
    fig.suptitle(title, fontsize=12, fontweight="bold")
    return fig, axes


def first_guess(width: float, height: float) -> dict[str, float]:
    """GridSpec margins (typical ones, in inches) close to where :class:`GridLayout` puts the
    panels, so that the ticks a panel gets where it is measured are usually those it keeps."""
    across = min(1.0, 0.6 * width / (0.75 + 0.2))  # margins shrink to leave a small figure 40% inside
    down = min(1.0, 0.6 * height / (0.75 + 0.45))
    return {"left": 0.75 * across / width, "right": 1 - 0.2 * across / width, "bottom": 0.75 * down / height,
            "top": 1 - 0.45 * down / height, "wspace": 0.3, "hspace": 0.5}


class GridLayout(LayoutEngine):
    """Constrained layout's result for a grid of panels (no spans), usually from one measurement.

    Each panel's decorations (tick labels, axis labels, title, texts) are measured where the panel
    stands, then the grid's rows and columns are sized so they fit, keeping the height and width
    ratios, below the suptitle and above the figure legends, with constrained layout's pads.
    Constrained layout measures twice, as resizing a panel can change its ticks and so the size of
    its labels; here the second measurement is made only when the ticks did change.
    """

    _adjust_compatible = False
    _colorbar_gridspec = False

    def execute(self, fig: Figure) -> None:
        """Lay the panels out, and once more if that changed any axis's ticks."""
        panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_subplotspec() is not None]
        for _ in range(2):
            ticks = _tick_locations(panels)
            _place(fig, panels)
            if _tick_locations(panels) == ticks:
                return


def _tick_locations(panels: Sequence[Axes]) -> list[list[float]]:
    """Where every axis's locators put its ticks (cheap: no text is laid out)."""
    return [[*axis.get_major_locator()(), *axis.get_minor_locator()()]
            for ax in panels for axis in (ax.xaxis, ax.yaxis)]


def _place(fig: Figure, panels: Sequence[Axes]) -> None:
    """Measure the panels' decorations and the figure-level texts once, then move the panels."""
    if not panels:
        return
    renderer = fig.canvas.get_renderer()
    width, height = fig.get_size_inches()
    top = _suptitle_margin(fig, renderer)
    bottom = sum(legend.get_window_extent(renderer).height / fig.dpi + 2 * PAD for legend in fig.legends)
    room = (PAD, bottom + PAD, width - PAD, height - top - PAD)  # for the axis labels: x0, y0, x1, y1
    grid = panels[0].get_subplotspec().get_gridspec()
    lefts, rights = np.zeros(grid.ncols), np.zeros(grid.ncols)
    tops, bottoms = np.zeros(grid.nrows), np.zeros(grid.nrows)
    labels = {ax: _label_lengths(ax, renderer, room) for ax in panels}
    for ax in panels:
        (row, col), (left, right, below, above) = _cell(ax), _overhang(ax, renderer)
        lefts[col], rights[col] = max(lefts[col], left), max(rights[col], right)
        tops[row], bottoms[row] = max(tops[row], above), max(bottoms[row], below)
    xs, ws = _spans(width, (0.0, 0.0), lefts + PAD, rights + PAD, grid.get_width_ratios())
    ys, hs = _spans(height, (top, bottom), tops + PAD, bottoms + PAD, grid.get_height_ratios())
    for ax in panels:
        row, col = _cell(ax)
        box = (xs[col], height - ys[row] - hs[row], ws[col], hs[row])  # inches from the bottom left
        ax.set_position([box[0] / width, box[1] / height, box[2] / width, box[3] / height])
        _keep_labels_inside(ax, box, room, labels[ax])


def _cell(ax: Axes) -> tuple[int, int]:
    """The panel's (row, column) in its grid."""
    spec = ax.get_subplotspec()
    return spec.rowspan.start, spec.colspan.start


def _overhang(ax: Axes, renderer: Any) -> tuple[float, float, float, float]:
    """How far (inches) the panel's decorations reach beyond its frame: left, right, below, above.

    The decorations: tick labels, axis labels, titles, the axes' texts and legend. Spines, lines
    and patches are left out (matplotlib's default takes them in): they stay within the frame and
    its tick marks, and each spine's extent re-computes its axis's ticks (twice the tick work).
    Like constrained layout, an axis label's length is not counted (see _keep_labels_inside).
    """
    extra = [*ax.texts, *([ax.get_legend()] if ax.get_legend() else [])]
    frame, tight = ax.get_window_extent(renderer), ax.get_tightbbox(renderer, bbox_extra_artists=extra)
    if tight is None:
        return 0.0, 0.0, 0.0, 0.0
    reach = np.array([frame.x0 - tight.x0, tight.x1 - frame.x1, frame.y0 - tight.y0, tight.y1 - frame.y1])
    left, right, below, above = np.maximum(reach, 0) / ax.figure.dpi
    return left, right, below, above


def _suptitle_margin(fig: Figure, renderer: Any) -> float:
    """Put the suptitle ``PAD`` below the top edge; the height (inches) it takes, pads included."""
    title = fig._suptitle
    if title is None or not title.get_text():
        return 0.0
    title.set_y(1 - PAD / fig.get_size_inches()[1])
    return title.get_window_extent(renderer).height / fig.dpi + 2 * PAD


def _spans(length: float, reserved: tuple[float, float], before: np.ndarray, after: np.ndarray,
           ratios: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Offsets (from the left or top edge) and sizes, in inches, of a grid's cells along one
    direction: ``reserved`` kept free at both ends, each cell's margins ``before`` and ``after``
    it, the rest shared by ``ratios``."""
    weights = np.asarray(ratios, float) / np.sum(ratios)
    sizes = max(length - sum(reserved) - before.sum() - after.sum(), 0.1 * length) * weights
    offsets = reserved[0] + np.cumsum(before) + np.concatenate([[0.0], np.cumsum(sizes + after)[:-1]])
    return offsets, sizes


def _label_lengths(ax: Axes, renderer: Any, room: tuple[float, float, float, float]) -> tuple[float, float]:
    """The lengths (inches) of the x and y labels, after shrinking the font of any longer than all
    the ``room`` (x0, y0, x1, y1) there is for it, so that it can be shown whole."""
    lengths = []
    for text, along, space in ((ax.xaxis.label, "width", room[2] - room[0]),
                               (ax.yaxis.label, "height", room[3] - room[1])):
        length = getattr(text.get_window_extent(renderer), along) / ax.figure.dpi if text.get_text() else 0.0
        if length > space:
            text.set_fontsize(text.get_fontsize() * space / length)
        lengths.append(min(length, space))
    return lengths[0], lengths[1]


def _keep_labels_inside(ax: Axes, box: tuple[float, float, float, float], room: tuple[float, float, float, float],
                        lengths: tuple[float, float]) -> None:
    """Slide an axis label longer than its panel (``box``: x, y, width, height) along it, off the
    panel's centre just enough to stay within ``room`` (x0, y0, x1, y1): clear of the figure's
    edges, suptitle and legends. Layouts leave a label's length out, so a long one would be cut."""
    x, y, width, height = box
    if lengths[0]:
        ax.xaxis.label.set_x((_slide(x + width / 2, lengths[0] / 2, room[0], room[2]) - x) / width)
    if lengths[1]:
        ax.yaxis.label.set_y((_slide(y + height / 2, lengths[1] / 2, room[1], room[3]) - y) / height)


def _slide(centre: float, half: float, low: float, high: float) -> float:
    """The point nearest ``centre`` that keeps it ``+- half`` within [low, high]."""
    return max(min(centre, high - half), low + half)


def title(ax: Axes, text: str, **style: Any) -> None:
    """A panel title at the usual height. Giving that height keeps matplotlib from looking, at
    every layout and draw, for top tick labels or an offset text to dodge (it measures the whole y
    axis for that); these panels have neither."""
    ax.set_title(text, y=1.0, **style)


class PlainLogFormatter(LogFormatter):
    """Log-axis tick labels as plain numbers (0.01, 0.02, 10), on the ticks matplotlib labels.

    Its default writes powers of ten in mathtext, whose parser costs up to 0.2 CPU-s to build in
    each process that draws one."""

    def __call__(self, x: float, pos: int | None = None) -> str:
        return self.fix_minus(f"{x:g}") if super().__call__(x, pos) else ""


def target_colours(targets: Sequence[str]) -> dict[str, str]:
    """Target -> colour: candidates in order through the palette, controls grey."""
    candidates = [t for t in targets if not is_control(t)]
    colours = {t: PALETTE[i % len(PALETTE)] for i, t in enumerate(candidates)}
    return {t: GREYS.get(t, "#999999") if is_control(t) else colours[t] for t in targets}


def bars(ax: Axes, at: np.ndarray, values: np.ndarray, width: float, horizontal: bool = False,
         base: np.ndarray | float = 0.0, **style: Any) -> PolyCollection:
    """Bars from ``base`` to ``base + values`` centred on ``at``, drawn like ``Axes.bar`` (the
    axis stops at the base, no margin) but as one collection: a Rectangle per bar costs ~0.5 ms to
    add (each re-computes the data limits) and is laid out and drawn one by one."""
    at, values = np.asarray(at, float), np.asarray(values, float)
    start = np.broadcast_to(np.asarray(base, float), values.shape)
    low, high, end = at - width / 2, at + width / 2, start + values
    corners = np.stack([np.column_stack(c) for c in ((low, start), (low, end), (high, end), (high, start))], axis=1)
    collection = PolyCollection(corners[..., ::-1] if horizontal else corners, **style)
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
        bars(ax, offset, np.nan_to_num(values), width, horizontal, label=label(str(target)),
             facecolor=colours.get(str(target)), edgecolor="white", linewidth=0.5)
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
        if ncols == 1 or legend.get_window_extent(fig.canvas.get_renderer()).width <= room:
            return
        legend.remove()


def floors(run: Run) -> ReportFigure | Note:
    """Each suite's metrics per target, with the floor each must reach drawn as a black tick."""
    long = scoreboard.floor_frame(run)
    if long.empty:
        return Note("No metrics to plot.")
    suites = list(dict.fromkeys(long[SUITE]))
    cols = min(len(suites), 2)
    fig, axes = figure("Metrics against their floors (black ticks)", (len(suites) + 1) // 2, cols,
                       height=3.0)
    colours = target_colours(targets_of(run))
    for ax, suite in zip(axes.flat, suites):
        rows = long[long[SUITE] == suite]
        wide = rows.pivot_table(index="metric", columns=TARGET, values="value", aggfunc="first", sort=False)
        wide = wide.reindex(columns=[t for t in targets_of(run) if t in wide.columns])
        grouped_bars(ax, wide, colours)
        floor = rows.groupby("metric", sort=False)["floor"].first().reindex(wide.index).to_numpy(float)
        ax.hlines(floor, np.arange(len(floor)) - 0.45, np.arange(len(floor)) + 0.45, colors="black", linewidth=2)
        title(ax, suite)
        ax.set_ylabel("value")
        ax.tick_params(axis="x", labelrotation=20, labelsize=8)
    for ax in axes.flat[len(suites):]:
        ax.set_visible(False)
    _legend(fig, axes)
    return fig


def pass_rates(run: Run) -> ReportFigure | Note:
    """Share of cases each target passes, per suite."""
    cases = run.cases
    if cases.empty:
        return Note("No cases to plot.")
    rates = cases.assign(_passed=cases[PASSED].fillna(False).astype(float)).pivot_table(
        index=SUITE, columns=TARGET, values="_passed", aggfunc="mean", sort=False)
    rates = rates.reindex(columns=[t for t in targets_of(run) if t in rates.columns])
    fig, axes = figure("Share of cases passed, per suite", height=0.5 + 0.55 * len(rates) * max(1, len(rates.columns)) / 2)
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
        ax.scatter(x, y + rng.uniform(-0.02, 0.02, len(y)), s=36, alpha=0.8, color=colours[target],
                   label=label(target), edgecolors="white", linewidths=0.5)
    ax.set_xlabel("token savings (1 - pack / naive dump)")
    ax.set_ylabel("recall@k of the pack")
    ax.set_ylim(-0.08, 1.08)
    _legend(fig, axes)
    return fig


def risk_confusion(run: Run, target: str | None = None) -> ReportFigure | Note:
    """Heat map of tp / fn / fp / tn per risk concept for one target."""
    counts = classifiers.concept_counts(run, target)
    if isinstance(counts, Note):
        return counts
    matrix = counts[["tp", "fn", "fp", "tn"]]
    fig, axes = figure(f"Risk concepts: confusion for {target or primary_target(run)}", width=6.5,
                       height=0.6 + 0.4 * len(matrix))
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
    wide = scores[scores[METRIC] == metric].pivot_table(index=CASE, columns=TARGET, values=VALUE,
                                                        aggfunc="first", sort=False)
    lead = primary_target(run) if primary_target(run) in wide.columns else wide.columns[0]
    wide = wide.sort_values(lead, kind="stable")
    fig, axes = figure(f"{metric} per case ({suite}), sorted by {lead}", width=9, height=3.8)
    ax, colours = axes[0, 0], target_colours(targets_of(run))
    for target in [t for t in targets_of(run) if t in wide.columns]:
        ax.plot(np.arange(len(wide)), wide[target].to_numpy(float), marker="o", markersize=3, linewidth=1,
                color=colours[target], label=label(target), alpha=0.9)
    ax.set_xlabel(f"case (n={len(wide)})")
    ax.set_ylabel(metric)
    ax.set_xticks([])
    _legend(fig, axes)
    return fig


def latency(run: Run, suite: str | None = None) -> ReportFigure | Note:
    """Seconds per case: one box per target within each suite's group (log scale)."""
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
        parts = ax.boxplot([data[j] for j in keep], positions=[j - 0.4 + width * (i + 0.5) for j in keep],
                           widths=width * 0.9, patch_artist=True, manage_ticks=False)
        for box in parts["boxes"]:
            box.set_facecolor(colours[target])
        ax.plot([], [], color=colours[target], linewidth=6, label=label(target))
    ax.set_xticks(range(len(suites)), suites)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(PlainLogFormatter())
    ax.yaxis.set_minor_formatter(PlainLogFormatter())
    ax.set_ylabel("seconds (log scale)")
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
    fig, axes = figure("Differences B - A with 95% bootstrap CIs", len(panels), 1, width=8,
                       height=(sum(heights) + 0.8) / len(panels), height_ratios=heights)
    for i, (ax, panel) in enumerate(zip(axes.flat, panels)):
        _forest_panel(ax, panel.iloc[::-1])
        ax.set_ylabel("0-1 scale" if i == 0 and (extent <= 1.0).any() else "own scale")
    fig.axes[-1].set_xlabel("difference in metric units (filled: significant after Holm at 0.05)")
    return fig


def _forest_panel(ax: Axes, rows: pd.DataFrame) -> None:
    # Colour says "significant", not "better": for token counts a drop is the improvement.
    y, significant = np.arange(len(rows)), (rows["p_holm"] < 0.05).to_numpy()
    colours = np.where(significant, UP, MUTED)
    ax.hlines(y, rows["ci_low"], rows["ci_high"], colors=colours, linewidth=2)
    ax.scatter(rows["delta"], y, s=40, c=np.where(significant, colours, "white"), edgecolors=colours, zorder=3)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, [f"{s} · {m}" for s, m in zip(rows[SUITE], rows[METRIC])])
    ax.set_ylim(-0.6, len(rows) - 0.4)


def case_deltas(comparison: Any, limit: int = 4) -> ReportFigure | Note:
    """Per-case differences (B - A) sorted, for up to ``limit`` metrics; blue up, orange down."""
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
        bars(ax, np.arange(len(deltas)), deltas, 0.9, facecolor=np.where(deltas >= 0, UP, DOWN))
        ax.axhline(0, color="black", linewidth=0.8)
        title(ax, f"{suite} · {metric}", fontsize=10)
        ax.set_ylabel("delta")
        ax.set_xticks([])
    axes.flat[-1].set_xlabel("cases, sorted by difference")
    return fig


def _delta_keys(cases: pd.DataFrame, gate: Any, limit: int) -> list[tuple[str, str]]:
    """(suite, metric) pairs to show: the gate rule's metrics first, then each suite's first metric."""
    keys = [k for k in dict.fromkeys(zip(cases[SUITE], cases[METRIC])) if k[1] != PASSED]
    wanted = {gate.primary, gate.noninferior} if gate else set()
    ruled = [k for k in keys if k[1] in wanted and getattr(gate, "suite", None) in (None, k[0])]
    firsts = [next(k for k in keys if k[0] == suite) for suite in dict.fromkeys(s for s, _ in keys)]
    return list(dict.fromkeys(ruled + firsts))[:limit]


def change_counts(comparison: Any) -> ReportFigure | Note:
    """Per suite, how many cases regressed, improved, appeared, disappeared or stayed the same."""
    if isinstance(comparison, Note):
        return comparison
    statuses = diff.case_status(comparison)
    counts = pd.crosstab(statuses[SUITE], statuses["status"]).reindex(columns=list(diff.CASE_STATUSES), fill_value=0)
    colours = {"regressed": "#c5221f", "mixed": "#f29900", "improved": "#137333", "new": "#1a73e8",
               "missing": "#5f6368", "unchanged": "#dadce0"}
    fig, axes = figure("Cases by change, per suite", height=0.8 + 0.45 * len(counts))
    ax, left = axes[0, 0], np.zeros(len(counts))
    for status in counts.columns:
        bars(ax, np.arange(len(counts)), counts[status].to_numpy(float), 0.8, horizontal=True, base=left,
             facecolor=colours[status], label=status)
        left += counts[status].to_numpy()
    ax.set_yticks(range(len(counts)), counts.index)
    ax.set_xlabel("cases")
    ax.invert_yaxis()
    _legend(fig, axes)
    return fig
