"""The layout engine behind the report figures: one pass that places every panel of a grid.

``figure`` makes a ``ReportFigure`` laid out by ``GridLayout`` (instead of matplotlib's
constrained layout, which measures every artist several times): margins start from a first
guess, are measured once, and measured again only when resizing changed the ticks. Figure
builders in ``plots.py`` never touch this module's internals.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib import rc_context
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.gridspec import SubplotSpec
from matplotlib.layout_engine import LayoutEngine
from matplotlib.ticker import LogFormatter

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
        suptitle = self._suptitle  # type: ignore[attr-defined]  # matplotlib keeps it private
        title = suptitle.get_text() if suptitle is not None else ""
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


def figure(
    title: str, rows: int = 1, cols: int = 1, width: float = 9.0, height: float = 3.6, **grid: Any
) -> tuple[ReportFigure, np.ndarray]:
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
    return {
        "left": 0.75 * across / width,
        "right": 1 - 0.2 * across / width,
        "bottom": 0.75 * down / height,
        "top": 1 - 0.45 * down / height,
        "wspace": 0.3,
        "hspace": 0.5,
    }


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
    return [
        [*axis.get_major_locator()(), *axis.get_minor_locator()()] for ax in panels for axis in (ax.xaxis, ax.yaxis)
    ]


def _place(fig: Figure, panels: Sequence[Axes]) -> None:
    """Measure the panels' decorations and the figure-level texts once, then move the panels."""
    if not panels:
        return
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]  # an Agg canvas (figure())
    width, height = fig.get_size_inches()
    top = _suptitle_margin(fig, renderer)
    bottom = sum(legend.get_window_extent(renderer).height / fig.dpi + 2 * PAD for legend in fig.legends)
    room = (PAD, bottom + PAD, width - PAD, height - top - PAD)  # for the axis labels: x0, y0, x1, y1
    grid = _spec(panels[0]).get_gridspec()
    lefts, rights = np.zeros(grid.ncols), np.zeros(grid.ncols)
    tops, bottoms = np.zeros(grid.nrows), np.zeros(grid.nrows)
    labels = {ax: _label_lengths(ax, renderer, room) for ax in panels}
    for ax in panels:
        (row, col), (left, right, below, above) = _cell(ax), _overhang(ax, renderer)
        lefts[col], rights[col] = max(lefts[col], left), max(rights[col], right)
        tops[row], bottoms[row] = max(tops[row], above), max(bottoms[row], below)
    xs, ws = _spans(width, (0.0, 0.0), lefts + PAD, rights + PAD, np.asarray(grid.get_width_ratios(), float))
    ys, hs = _spans(height, (top, bottom), tops + PAD, bottoms + PAD, np.asarray(grid.get_height_ratios(), float))
    for ax in panels:
        row, col = _cell(ax)
        box = (xs[col], height - ys[row] - hs[row], ws[col], hs[row])  # inches from the bottom left
        ax.set_position((box[0] / width, box[1] / height, box[2] / width, box[3] / height))
        _keep_labels_inside(ax, box, room, labels[ax])


def _cell(ax: Axes) -> tuple[int, int]:
    """The panel's (row, column) in its grid."""
    spec = _spec(ax)
    return spec.rowspan.start, spec.colspan.start


def _spec(ax: Axes) -> SubplotSpec:
    """The panel's place in its grid (every panel of a report figure has one)."""
    spec = ax.get_subplotspec()
    if spec is None:
        raise ValueError("report figure panels are made with figure(...): each has a subplot spec")
    return spec


def _overhang(ax: Axes, renderer: Any) -> tuple[float, float, float, float]:
    """How far (inches) the panel's decorations reach beyond its frame: left, right, below, above.

    The decorations: tick labels, axis labels, titles, the axes' texts and legend. Spines, lines
    and patches are left out (matplotlib's default takes them in): they stay within the frame and
    its tick marks, and each spine's extent re-computes its axis's ticks (twice the tick work).
    Like constrained layout, an axis label's length is not counted (see _keep_labels_inside).
    """
    legend = ax.get_legend()
    extra: list[Artist] = [*ax.texts, *([legend] if legend is not None else [])]
    frame, tight = ax.get_window_extent(renderer), ax.get_tightbbox(renderer, bbox_extra_artists=extra)
    if tight is None:
        return 0.0, 0.0, 0.0, 0.0
    reach = np.array([frame.x0 - tight.x0, tight.x1 - frame.x1, frame.y0 - tight.y0, tight.y1 - frame.y1])
    left, right, below, above = np.maximum(reach, 0) / ax.figure.dpi
    return left, right, below, above


def _suptitle_margin(fig: Figure, renderer: Any) -> float:
    """Put the suptitle ``PAD`` below the top edge; the height (inches) it takes, pads included."""
    title = fig._suptitle  # type: ignore[attr-defined]  # matplotlib keeps it private
    if title is None or not title.get_text():
        return 0.0
    title.set_y(1 - PAD / fig.get_size_inches()[1])
    return title.get_window_extent(renderer).height / fig.dpi + 2 * PAD


def _spans(
    length: float, reserved: tuple[float, float], before: np.ndarray, after: np.ndarray, ratios: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
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
    for text, along, space in (
        (ax.xaxis.label, "width", room[2] - room[0]),
        (ax.yaxis.label, "height", room[3] - room[1]),
    ):
        length = getattr(text.get_window_extent(renderer), along) / ax.figure.dpi if text.get_text() else 0.0
        if length > space:
            text.set_fontsize(float(text.get_fontsize()) * space / length)
        lengths.append(min(length, space))
    return lengths[0], lengths[1]


def _keep_labels_inside(
    ax: Axes,
    box: tuple[float, float, float, float],
    room: tuple[float, float, float, float],
    lengths: tuple[float, float],
) -> None:
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
