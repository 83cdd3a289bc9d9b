"""``run --baseline`` is a comparison with a verdict (issue 42, items 1 and 2): the gate rule
``compare`` applies, one line naming the baseline, part of the exit code and the summary; a
baseline of another corpus version is refused before any case runs, or compared on shared cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main
from workbench.contract import FileRef, Pack, Repo

from ..conftest import write_corpus

CASES = 12


class _Engine:
    """Answers case i with file i (``good``), or with the wrong file for all but one case
    (``collapsed``: the mrr falls from 1 to about 0.1)."""

    name, version = "engine", "1"

    def __init__(self, collapsed: bool) -> None:
        self.collapsed = collapsed

    def context_pack(self, query: str, repos: list[Repo], limit: int) -> Pack:
        i = int(query.split()[-1])
        wrong = f"src/f{(i + 1) % CASES}.ts"
        right = f"src/f{i}.ts"
        files = [wrong, right] if self.collapsed and i % 2 else [wrong] if self.collapsed else [right]
        return Pack(primary=[FileRef(repos[0].name, f) for f in files])


def good() -> _Engine:
    return _Engine(False)


def collapsed() -> _Engine:
    return _Engine(True)


Capture = pytest.CaptureFixture[str]
GOOD, COLLAPSED = (f"python:tests.run.test_run_baseline:{name}" for name in ("good", "collapsed"))


def _corpus(root: Path, cases: int = CASES) -> Path:
    for i in range(CASES + 2):
        (root / "fixtures" / "api" / "src" / f"f{i}.ts").parent.mkdir(parents=True, exist_ok=True)
        (root / "fixtures" / "api" / "src" / f"f{i}.ts").write_text(f"// file {i}\n")
    retrieval = [
        {"name": f"c{i}", "query": f"find thing {i}", "repoFixture": "api", "expectedPrimary": [f"src/f{i}.ts"]}
        for i in range(cases)
    ]
    return write_corpus(root, {"k": 5, "fixtureRoots": {"api": "fixtures/api"}, "retrieval": retrieval})


def _run(capsys: Capture, corpus: Path, runs: Path, target: str, *extra: str) -> tuple[int, str, str, Any]:
    """``workbench run`` once: its exit code, stdout, stderr and the newest run's summary (or None)."""
    before = set(runs.iterdir()) if runs.is_dir() else set()
    args = ["run", "--corpus", str(corpus), "--suite", "retrieval", "--target", target, "--out", str(runs), *extra]
    code = main(args)
    made = [p for p in (set(runs.iterdir()) if runs.is_dir() else set()) - before if not p.name.startswith(".")]
    summary = json.loads((made[0] / "summary.json").read_text()) if made else None
    captured = capsys.readouterr()
    return code, captured.out, captured.err, summary


@pytest.fixture
def recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """A corpus, its runs folder, and baseline ``eng`` recorded from the good engine."""
    corpus, runs = _corpus(tmp_path), tmp_path / "runs"
    code, _, _, summary = _run(capsys, corpus, runs, GOOD)
    assert code == 0 and summary is not None
    run_id = Path(summary["run_dir"]).name
    assert main(["baseline", "record", run_id, "--name", "eng", "--corpus", str(corpus), "--runs-dir", str(runs)]) == 0
    capsys.readouterr()
    return corpus, runs


def test_a_collapsed_engine_regresses_and_compare_says_the_same(recorded: tuple[Path, Path], capsys: Capture) -> None:
    corpus, runs = recorded
    code, out, _, summary = _run(capsys, corpus, runs, COLLAPSED, "--baseline", "eng")
    verdict_line = next(line for line in out.splitlines() if line.startswith("Baseline eng:"))
    assert code == 1, out
    assert verdict_line.startswith("Baseline eng: REGRESSED: mrr 1.000 -> 0.250, p=")
    assert out.splitlines()[-1] == "Overall: REGRESSED (exit 1)"
    assert summary["verdict"] == "REGRESSED" and summary["passed"] is False
    assert summary["baseline"]["verdict"] == "REGRESSED" and summary["baseline"]["line"] == verdict_line
    # the same pair through compare: the same rule, the same line, exit 1
    run_id = Path(summary["run_dir"]).name
    assert main(["compare", "eng", run_id, "--corpus", str(corpus), "--runs-dir", str(runs)]) == 1
    compared = capsys.readouterr().out
    moved = verdict_line.removeprefix("Baseline eng: ")
    assert f"B against A: {moved}" in compared and "Gate [" in compared


def test_the_same_engine_is_unchanged_and_exits_0(recorded: tuple[Path, Path], capsys: Capture) -> None:
    corpus, runs = recorded
    code, out, _, summary = _run(capsys, corpus, runs, GOOD, "--baseline", "eng")
    assert code == 0, out
    assert "Baseline eng: UNCHANGED: every paired difference is zero" in out
    assert out.splitlines()[-1] == "Overall: UNCHANGED (exit 0)"
    assert summary["baseline"]["verdict"] == "UNCHANGED" and summary["verdict"] == "UNCHANGED"


def test_a_changed_corpus_is_refused_before_any_case_runs(recorded: tuple[Path, Path], capsys: Capture) -> None:
    corpus, runs = recorded
    _corpus(corpus.parent.parent, cases=CASES - 2)  # re-mined: two cases fewer
    journals = set(runs.iterdir())
    code, out, err, summary = _run(capsys, corpus, runs, COLLAPSED, "--baseline", "eng")
    assert code == 3 and summary is None and set(runs.iterdir()) == journals  # nothing ran, nothing left
    assert len(err.strip().splitlines()) == 1, err
    assert "was recorded on another version of" in err and "nothing was run" in err
    assert "workbench baseline record" in err and "--on-shared-cases" in err
    # the option it names exists on run: the run is written and compared on the shared cases
    code, out, _, summary = _run(capsys, corpus, runs, COLLAPSED, "--baseline", "eng", "--on-shared-cases")
    assert code == 1 and summary["baseline"]["verdict"] == "REGRESSED"
    assert any("compared on the 10 case(s) both share" in n for n in summary["baseline"]["targets"]["engine"]["notes"])


def test_a_missing_baseline_is_refused_before_any_case_runs(recorded: tuple[Path, Path], capsys: Capture) -> None:
    corpus, runs = recorded
    code, _, err, summary = _run(capsys, corpus, runs, GOOD, "--baseline", "nope")
    assert code == 3 and summary is None and "nope" in err and len(err.strip().splitlines()) == 1


def test_one_way_to_find_a_baseline_from_any_command_and_from_notebooks(
    tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A corpus outside ``corpus/``: ``baseline record``, ``compare NAME`` and ``run --baseline``
    find ``<corpus dir>/baselines/`` from the run's own corpus without ``--corpus``; the Python API
    finds runs and baselines with the working directory in ``notebooks/``."""
    import workbench as wb
    from workbench.store.headers import locations_for

    (tmp_path / "reports" / "runs").mkdir(parents=True)
    (tmp_path / "notebooks").mkdir()
    _corpus(tmp_path / "mined")
    monkeypatch.chdir(tmp_path)
    corpus, runs = Path("mined/corpus/corpus.json"), Path("reports/runs")
    code, _, _, first = _run(capsys, corpus, runs, GOOD)
    first_id = Path(first["run_dir"]).name
    assert main(["baseline", "record", first_id, "--name", "eng"]) == 0
    assert (tmp_path / "mined" / "corpus" / "baselines" / "eng.json").is_file()
    assert "mined/corpus/baselines/eng.json" in capsys.readouterr().out
    code, out, _, second = _run(capsys, corpus, runs, COLLAPSED, "--baseline", "eng")
    second_id = Path(second["run_dir"]).name
    assert code == 1 and "Baseline eng: REGRESSED" in out
    assert main(["compare", "eng", second_id]) == 1 and "B against A: REGRESSED" in capsys.readouterr().out
    where = locations_for([second_id], None, None)  # what report --baseline eng uses
    assert where.side("eng").path.resolve() == (tmp_path / "mined/corpus/baselines/eng.json").resolve()

    monkeypatch.chdir(tmp_path / "notebooks")  # as JupyterLab starts a kernel
    assert wb.latest_run().name == second_id
    assert wb.load_run(second_id).run_id == second_id
    assert wb.load_run(f"reports/runs/{first_id}").run_id == first_id
    comparison = wb.compare("eng", second_id)
    assert comparison.change is not None and comparison.change.verdict == "REGRESSED"
    assert wb.compare("eng", first_id).change.verdict == "UNCHANGED"  # type: ignore[union-attr]
    assert getattr(wb.views.open_baseline("eng", run=wb.load_run(second_id)), "name", None) == "eng"


def test_the_report_index_page_shows_the_baseline_verdict(
    recorded: tuple[Path, Path], capsys: Capture, tmp_path: Path
) -> None:
    from workbench.report.render import write_index
    from workbench.store import read_header

    corpus, runs = recorded
    code, out, _, summary = _run(capsys, corpus, runs, COLLAPSED, "--baseline", "eng")
    index = write_index(read_header(Path(summary["run_dir"])), [], tmp_path).read_text()
    assert ": REGRESSED</h1>" in index
    assert '<p class="baseline fail">Baseline eng: REGRESSED: mrr 1.000 -&gt; 0.250, p=' in index
