"""Figure builders: a titled, labelled Figure per call, shown once as PNG, controls in grey."""

from __future__ import annotations

import pytest

import workbench as wb
from workbench.report.plots import GREYS, ReportFigure, target_colours
from workbench.report.views import Note

from ..report_runs import build_run

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> wb.Run:
    return wb.views.open_run(build_run(tmp_path_factory.mktemp("runs")))


@pytest.fixture(scope="module")
def comparison(run: wb.Run):
    return wb.views.compare_runs(run, None, against="bm25")


def figures(run: wb.Run, comparison, metric: str = "ndcg@10") -> dict[str, object]:
    return {
        "floors": wb.plots.floors(run),
        "pass_rates": wb.plots.pass_rates(run),
        "rank_histogram": wb.plots.rank_histogram(run),
        "savings": wb.plots.savings_vs_accuracy(run),
        "risk": wb.plots.risk_confusion(run),
        "per_case": wb.plots.per_case(run, "ranking", metric),
        "latency": wb.plots.latency(run),
        "forest": wb.plots.forest(comparison),
        "case_deltas": wb.plots.case_deltas(comparison),
        "change_counts": wb.plots.change_counts(comparison),
    }


@pytest.fixture(scope="module")
def built(run: wb.Run, comparison) -> dict[str, object]:
    """Every builder's figure for the module's run, built once for the tests that only look at them."""
    return figures(run, comparison)


@pytest.fixture(scope="module")
def first_pngs(built: dict[str, object]) -> dict[str, bytes]:
    """The PNG of each figure of ``built``, as first drawn."""
    return {name: fig.png() for name, fig in built.items()}  # type: ignore[attr-defined]


def test_every_builder_returns_a_titled_labelled_png_figure(built: dict[str, object], first_pngs) -> None:
    for name, fig in built.items():
        assert isinstance(fig, ReportFigure), name
        assert fig._suptitle is not None and fig._suptitle.get_text(), name
        visible = [ax for ax in fig.axes if ax.get_visible()]
        assert visible and all(ax.get_xlabel() or ax.get_ylabel() or ax.get_title() for ax in visible), name
        assert fig.canvas.manager is None, f"{name}: built through pyplot"  # never shown twice
        assert fig.png().startswith(PNG_MAGIC) and first_pngs[name].startswith(PNG_MAGIC), name
        png, metadata = fig._repr_png_()  # what Jupyter shows, with alt text for the page
        assert png == fig.png() and metadata["alt"].startswith(fig._suptitle.get_text()), name


def test_png_is_deterministic(run: wb.Run) -> None:
    assert wb.plots.floors(run).png() == wb.plots.floors(run).png()


def test_colours_fixed_per_target_and_controls_grey() -> None:
    colours = target_colours(["builtin", "bm25", "mine", "random"])
    assert colours["bm25"] == GREYS["bm25"] and colours["random"] == GREYS["random"]
    assert len({colours["builtin"], colours["mine"], colours["bm25"], colours["random"]}) == 4
    assert target_colours(["builtin", "random"])["builtin"] == colours["builtin"]


def test_bars_use_the_target_colours(run: wb.Run) -> None:
    fig = wb.plots.rank_histogram(run)
    colours = target_colours(wb.views.targets_of(run))
    legend = {text.get_text(): handle for handle, text in zip(fig.legends[0].legend_handles, fig.legends[0].texts)}
    assert set(legend) == {"builtin", "bm25 (control)", "random (control)"}
    from matplotlib.colors import to_hex

    assert to_hex(legend["bm25 (control)"].get_facecolor()) == colours["bm25"]


def test_absent_data_gives_a_note(tmp_path) -> None:
    run = wb.views.open_run(build_run(tmp_path, suites=("risk",)))
    for shown in (
        wb.plots.rank_histogram(run),
        wb.plots.savings_vs_accuracy(run),
        wb.plots.per_case(run, "ranking"),
        wb.plots.forest(wb.views.open_baseline(None)),
    ):
        assert isinstance(shown, Note)


def test_identical_sides_give_a_note_not_empty_panels(run: wb.Run) -> None:
    same = wb.views.compare_runs(run, run.select("builtin"))
    assert "No case differs" in wb.plots.case_deltas(same).text
    assert isinstance(wb.plots.case_deltas(wb.views.compare_runs(run, None, against="bm25")), ReportFigure)


def test_png_laid_out_once_matches_savefig_and_keeps_the_layout_engine(run: wb.Run) -> None:
    import io

    from matplotlib.figure import Figure

    from workbench.report._layout import DPI, GridLayout

    fig = wb.plots.floors(run)
    reference = wb.plots.floors(run)
    buffer = io.BytesIO()
    Figure.savefig(reference, buffer, format="png", dpi=DPI, metadata={"Software": None})  # savefig's own layout
    assert fig.png() == buffer.getvalue()
    assert isinstance(fig.get_layout_engine(), GridLayout)


def test_every_png_is_deterministic(run: wb.Run, comparison, first_pngs: dict[str, bytes]) -> None:
    # two builds of every figure (the module's first and a new one) draw the same PNG
    assert first_pngs == {name: fig.png() for name, fig in figures(run, comparison).items()}


LONG = "_macro_averaged_over_every_case"
WIDE_TARGETS = ("builtin", "bm25", "random", "semantic-hybrid-reranker-v2", "sparse-splade-experimental")


def crowded_run(tmp_path) -> wb.Run:
    """Five targets (two with long names, so a long legend) and long metric names."""
    from workbench.columns import METRIC

    run = wb.load_run(build_run(tmp_path, targets=WIDE_TARGETS))
    for per in run.summary["suites"].values():
        for result in per.values():
            for key in ("metrics", "thresholds"):
                if isinstance(result.get(key), dict):
                    result[key] = {name + LONG: value for name, value in result[key].items()}
    run.scores[METRIC] = run.scores[METRIC].astype(str) + LONG
    return run


def drawn_boxes(fig) -> list[tuple[str, object]]:
    """(owner, display box) of everything with text: per panel its ticks and titles, each axis
    label on its own (their length is left out of layouts), the suptitle and the legends."""
    renderer = fig.canvas.get_renderer()
    boxes = [("suptitle", fig._suptitle.get_window_extent(renderer))]
    boxes += [(f"legend {i}", legend.get_window_extent(renderer)) for i, legend in enumerate(fig.legends)]
    for i, ax in enumerate(ax for ax in fig.axes if ax.get_visible()):
        boxes.append((f"panel {i}", ax.get_tightbbox(renderer, for_layout_only=True)))
        boxes += [
            (f"panel {i}", axis.label.get_window_extent(renderer))
            for axis in (ax.xaxis, ax.yaxis)
            if axis.label.get_text()
        ]
    return boxes


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["run", "crowded", "sparse"])
def test_nothing_is_cut_off_or_overlaps(run: wb.Run, built: dict[str, object], tmp_path, shape: str) -> None:
    if shape == "run":  # the module's figures of this run
        built_here = built
    elif shape == "crowded":
        run = crowded_run(tmp_path)
    elif shape == "sparse":  # one suite, two targets: the smallest figures
        run = wb.load_run(build_run(tmp_path, targets=("builtin", "bm25"), suites=("risk",)))
    if shape != "run":
        comparison = wb.views.compare_runs(run, None, against="bm25")
        built_here = figures(run, comparison, "ndcg@10" + (LONG if shape == "crowded" else ""))
    drawn = {name: fig for name, fig in built_here.items() if isinstance(fig, ReportFigure)}
    assert len(drawn) >= (4 if shape == "sparse" else len(built_here))
    for name, fig in drawn.items():
        fig.png()
        boxes, frame = drawn_boxes(fig), fig.bbox
        for owner, box in boxes:
            assert box.x0 >= -0.5 and box.y0 >= -0.5 and box.x1 <= frame.x1 + 0.5 and box.y1 <= frame.y1 + 0.5, (
                f"{name}: {owner} cut off ({box.extents} in {frame.extents})"
            )
        for i, (owner, box) in enumerate(boxes):
            for other, box2 in boxes[i + 1 :]:
                overlap = box.intersection(box, box2)
                assert owner == other or overlap is None or min(overlap.width, overlap.height) < 1, (
                    f"{name}: {owner} overlaps {other}"
                )


def test_a_wide_legend_wraps_into_rows(tmp_path) -> None:
    fig = wb.plots.per_case(crowded_run(tmp_path), "ranking", "ndcg@10" + LONG)
    fig.png()
    renderer = fig.canvas.get_renderer()
    assert fig.legends[0].get_window_extent(renderer).width <= fig.bbox.width
    assert len({round(t.get_window_extent(renderer).y0) for t in fig.legends[0].texts}) > 1


def test_log_axis_labels_are_plain_numbers(run: wb.Run) -> None:
    fig = wb.plots.latency(run, "ranking")
    fig.png()
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels() + ax.get_yticklabels(minor=True) if t.get_text()]
    assert labels and not any("$" in text for text in labels)  # no mathtext to parse
    assert "0.01" in labels


def test_bars_start_at_the_axis(run: wb.Run) -> None:
    fig = wb.plots.rank_histogram(run)
    fig.png()
    assert fig.axes[0].get_ylim()[0] == 0  # as with Axes.bar: no margin below the bars


def test_timings_all_zero_draw_on_a_linear_axis_without_a_warning(tmp_path) -> None:
    """A log axis has nothing to show when every case took 0 s (a normalized run): the plot says
    "seconds" on a linear axis, and no matplotlib warning reaches the page."""
    import warnings

    run = wb.views.open_run(build_run(tmp_path))
    run.cases["seconds"] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = wb.plots.latency(run, "ranking")
        fig.png()
    assert fig.axes[0].get_yscale() == "linear" and fig.axes[0].get_ylabel() == "seconds"
