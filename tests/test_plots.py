"""Figure builders: a titled, labelled Figure per call, shown once as PNG, controls in grey."""
from __future__ import annotations

import pytest

import workbench as wb
from workbench.plots import GREYS, ReportFigure, target_colours
from workbench.views import Note

from .report_runs import build_run

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> wb.Run:
    return wb.views.open_run(build_run(tmp_path_factory.mktemp("runs")))


@pytest.fixture(scope="module")
def comparison(run: wb.Run):
    return wb.views.compare_runs(run, None, against="bm25")


def figures(run: wb.Run, comparison) -> dict[str, object]:
    return {
        "floors": wb.plots.floors(run), "pass_rates": wb.plots.pass_rates(run),
        "rank_histogram": wb.plots.rank_histogram(run), "savings": wb.plots.savings_vs_accuracy(run),
        "risk": wb.plots.risk_confusion(run), "per_case": wb.plots.per_case(run, "ranking", "ndcg@10"),
        "latency": wb.plots.latency(run), "forest": wb.plots.forest(comparison),
        "case_deltas": wb.plots.case_deltas(comparison), "change_counts": wb.plots.change_counts(comparison),
    }


def test_every_builder_returns_a_titled_labelled_png_figure(run: wb.Run, comparison) -> None:
    for name, fig in figures(run, comparison).items():
        assert isinstance(fig, ReportFigure), name
        assert fig._suptitle is not None and fig._suptitle.get_text(), name
        visible = [ax for ax in fig.axes if ax.get_visible()]
        assert visible and all(ax.get_xlabel() or ax.get_ylabel() or ax.get_title() for ax in visible), name
        assert fig.canvas.manager is None, f"{name}: built through pyplot"  # never shown twice
        assert fig._repr_png_().startswith(PNG_MAGIC), name


def test_png_is_deterministic(run: wb.Run) -> None:
    assert wb.plots.floors(run)._repr_png_() == wb.plots.floors(run)._repr_png_()


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
    for shown in (wb.plots.rank_histogram(run), wb.plots.savings_vs_accuracy(run),
                  wb.plots.per_case(run, "ranking"), wb.plots.forest(wb.views.open_baseline(None))):
        assert isinstance(shown, Note)


def test_png_laid_out_once_matches_savefig_and_keeps_the_layout_engine(run: wb.Run) -> None:
    import io

    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    from workbench.plots import DPI
    fig = wb.plots.floors(run)
    reference = wb.plots.floors(run)
    buffer = io.BytesIO()
    Figure.savefig(reference, buffer, format="png", dpi=DPI, metadata={"Software": None})  # savefig's own layout
    assert fig._repr_png_() == buffer.getvalue()
    assert isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
