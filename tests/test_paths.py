"""One resolver for what a user names: run directories, run ids, RUN#TARGET, baselines by name or file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import workbench as wb
from workbench.errors import StoreError
from workbench.paths import Locations, notebooks_dir, split_target
from workbench.report.render import _prepare, _resolved_baseline

from .report_runs import build_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    build_run(out)
    return out


def test_a_run_id_resolves_like_a_directory(runs: Path) -> None:
    [run_dir] = [p for p in runs.iterdir() if p.is_dir()]
    by_id = wb.load_run(run_dir.name, runs_dir=runs)
    assert by_id.path == run_dir and by_id.run_id == wb.load_run(run_dir).run_id
    assert Locations(runs=runs).run(f"{run_dir.name}#bm25").target == "bm25"
    with pytest.raises(StoreError, match="nor a run id in"):
        wb.load_run("20000101T000000Z-nothing", runs_dir=runs)
    with pytest.raises(StoreError, match="not a run directory, nor a run id"):
        Locations(runs=runs).run("nothing")


def test_the_report_takes_a_run_id(runs: Path, tmp_path: Path) -> None:
    [run_dir] = [p for p in runs.iterdir() if p.is_dir()]
    header, out = _prepare(run_dir.name, tmp_path, Locations(runs=runs))
    assert header.run_id == run_dir.name and out == tmp_path / run_dir.name


def test_a_baseline_name_means_the_named_corpus_s_baseline(tmp_path: Path) -> None:
    corpus = tmp_path / "elsewhere" / "corpus.json"
    (corpus.parent / "baselines").mkdir(parents=True)
    shutil.copy(Path("corpus/baselines/builtin.json"), corpus.parent / "baselines" / "builtin.json")
    where = Locations.of(corpus, tmp_path / "no-runs")
    assert where == Locations(tmp_path / "no-runs", corpus.parent / "baselines")
    side = where.side("builtin")
    assert side.path == corpus.parent / "baselines" / "builtin.json" and not side.is_run
    assert _resolved_baseline("builtin#builtin", where) == str(side.path.resolve()) + "#builtin"
    with pytest.raises(StoreError, match="nothing-here: not a run directory"):  # before any kernel starts
        _resolved_baseline("nothing-here", where)
    assert Locations.of() == Locations(Path("reports/runs"), Path("corpus/baselines"))


def test_one_parser_of_a_target_suffix() -> None:
    assert split_target("runs/r1#bm25") == ("runs/r1", "bm25")
    assert split_target("r1") == ("r1", "")
    assert split_target("r1#a#b") == ("r1", "a#b")  # only the first # splits


def test_a_notebook_opens_a_run_by_its_id(tmp_path: Path, monkeypatch) -> None:
    run_dir = build_run(tmp_path / "reports" / "runs", suites=("retrieval",))
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")  # as JupyterLab starts a notebook
    assert wb.views.open_run(run_dir.name).path == run_dir
    assert wb.views.open_run(None).path == run_dir


def test_a_view_resolves_a_baseline_name_through_the_locations_it_is_given(tmp_path: Path, monkeypatch) -> None:
    corpus = tmp_path / "elsewhere" / "corpus.json"
    (corpus.parent / "baselines").mkdir(parents=True)
    shutil.copy(Path("corpus/baselines/builtin.json"), corpus.parent / "baselines" / "builtin.json")
    side = wb.views.open_baseline("builtin", Locations.of(corpus))
    assert getattr(side, "name", None) == "builtin" and side.path == corpus.parent / "baselines" / "builtin.json"
    monkeypatch.chdir(tmp_path)  # the project's own corpus/baselines has no such baseline
    assert "Baseline 'builtin' unavailable" in wb.views.open_baseline("builtin").text


def test_the_report_notebooks_come_from_a_checkout_first_and_never_from_a_users_own_folder(
    tmp_path: Path, monkeypatch
) -> None:
    checkout = Path(wb.__file__).resolve().parent.parent / "notebooks"
    monkeypatch.chdir(tmp_path)
    assert notebooks_dir() == checkout  # this editable install's own notebooks/
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "analysis.ipynb").write_text("{}")
    assert notebooks_dir() == checkout  # a user's notebooks/ without the report's is passed over
    shutil.copy(checkout / "scoreboard.ipynb", tmp_path / "notebooks")
    assert notebooks_dir() == Path("notebooks")  # the working directory's report notebooks win
