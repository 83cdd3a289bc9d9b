"""One resolver for what a user names: run directories, run ids, RUN#TARGET, baselines by name or file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import workbench as wb
from workbench.errors import CompareError, StoreError
from workbench.paths import baselines_dir, locate_run, locate_side
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
    assert locate_run(f"{run_dir.name}#bm25", runs).target == "bm25"
    with pytest.raises(StoreError, match="nor a run id in"):
        wb.load_run("20000101T000000Z-nothing", runs_dir=runs)
    with pytest.raises(CompareError, match="not a run directory, nor a run id"):
        locate_run("nothing", runs)


def test_the_report_takes_a_run_id(runs: Path, tmp_path: Path) -> None:
    [run_dir] = [p for p in runs.iterdir() if p.is_dir()]
    header, out = _prepare(run_dir.name, tmp_path, runs)
    assert header.run_id == run_dir.name and out == tmp_path / run_dir.name


def test_a_baseline_name_means_the_named_corpus_s_baseline(tmp_path: Path) -> None:
    corpus = tmp_path / "elsewhere" / "corpus.json"
    (corpus.parent / "baselines").mkdir(parents=True)
    shutil.copy(Path("corpus/baselines/builtin.json"), corpus.parent / "baselines" / "builtin.json")
    assert baselines_dir(corpus) == corpus.parent / "baselines"
    side = locate_side("builtin", tmp_path / "no-runs", baselines_dir(corpus))
    assert side.path == corpus.parent / "baselines" / "builtin.json" and not side.is_run
    assert _resolved_baseline("builtin#builtin", tmp_path, corpus) == str(side.path.resolve()) + "#builtin"
    assert _resolved_baseline("nothing-here", tmp_path, corpus) == "nothing-here"  # left for the check to name


def test_a_notebook_opens_a_run_by_its_id(tmp_path: Path, monkeypatch) -> None:
    run_dir = build_run(tmp_path / "reports" / "runs", suites=("retrieval",))
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")  # as JupyterLab starts a notebook
    assert wb.views.open_run(run_dir.name).path == run_dir
    assert wb.views.open_run(None).path == run_dir
