"""The report notebooks: thin by construction, and executed end to end against a small run.

The thinness test reads the notebooks only; the others execute them (marker ``notebooks``).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from workbench.cli import main
from workbench.errors import RenderError
from workbench.report.render import NOTEBOOKS, notebook_paths, render_report

from ..conftest import REPO_ROOT
from ..report_runs import build_run

FORBIDDEN = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.If,
    ast.IfExp,
    ast.With,
    ast.Try,
)
IMG = re.compile(r'<img [^>]*src="data:image/png;base64,')
# Figures each page must show for the small run (with a baseline).
MIN_FIGURES = {
    "scoreboard": 2,
    "retrieval": 2,
    "classifiers": 1,
    "ranking": 2,
    "baseline_diff": 1,
    "significance": 2,
    "trend": 1,
}


def code_cells(book: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in book.cells if cell.cell_type == "code"]


def rooted_in_wb(node: ast.expr) -> bool:
    while isinstance(node, (ast.Attribute, ast.Call)):
        node = node.value if isinstance(node, ast.Attribute) else node.func
    return isinstance(node, ast.Name) and node.id == "wb"


@pytest.mark.parametrize("path", notebook_paths(directory=REPO_ROOT / "notebooks"), ids=lambda p: p.stem)
def test_notebook_is_thin(path: Path) -> None:
    book = nbformat.read(str(path), as_version=4)
    nbformat.validate(book)
    assert book.metadata["kernelspec"]["name"] == "python3"
    cells = code_cells(book)
    tagged = [c for c in book.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and tagged[0] is cells[0], "exactly one parameters cell, the first code cell"
    params = ast.parse(cells[0].source)
    assert all(isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) for s in params.body)
    defaults = {s.targets[0].id: s.value.value for s in params.body}
    assert defaults["run_dir"] is None and defaults["baseline"] is None
    for cell in cells:
        assert not cell.outputs and cell.execution_count is None, "committed with outputs"
    for cell in cells[1:]:
        tree = ast.parse(cell.source)
        assert len(tree.body) == 1, f"one statement per cell: {cell.source!r}"
        assert not [n for n in ast.walk(tree) if isinstance(n, FORBIDDEN)], cell.source
        statement = tree.body[0]
        if isinstance(statement, ast.Import):
            assert [(a.name, a.asname) for a in statement.names] == [("workbench", "wb")]
            continue
        assert isinstance(statement, (ast.Expr, ast.Assign)), cell.source
        if isinstance(statement, ast.Assign):
            assert len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name), cell.source
        assert isinstance(statement.value, ast.Call) and rooted_in_wb(statement.value.func), cell.source
        assert all(not isinstance(a, ast.Call) for a in ast.walk(statement.value) if a is not statement.value), (
            f"one call per cell: {cell.source!r}"
        )


def test_every_report_notebook_exists() -> None:
    assert [p.stem for p in notebook_paths(directory=REPO_ROOT / "notebooks")] == list(NOTEBOOKS)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("report")
    base = build_run(root / "runs", seed=1, run_id="20261129T000000Z-base")
    run = build_run(root / "runs")
    report = render_report(run, baseline=f"{base}#builtin", out_dir=root / "html", notebook_dir=REPO_ROOT / "notebooks")
    return root, run, base, report


@pytest.mark.notebooks
def test_every_page_has_its_figures_and_tables_and_no_error(rendered) -> None:
    _, _, _, report = rendered
    assert [page.name for page in report.pages] == list(NOTEBOOKS) and not report.failed
    for page in report.pages:
        text = page.html.read_text()
        assert len(IMG.findall(text)) >= MIN_FIGURES[page.name], page.name
        assert "<table" in text, page.name
        assert "Traceback" not in text, page.name
        assert not re.search(r"<script[^>]+src=", text), page.name
        outputs = [o for cell in nbformat.read(str(page.notebook), 4).cells for o in cell.get("outputs", [])]
        assert not [o for o in outputs if o.output_type == "error"], page.name
        assert not [o for o in outputs if o.output_type == "stream" and o.name == "stderr"], page.name
    index = report.index.read_text()
    assert all(f'href="{name}.html"' in index for name in NOTEBOOKS)


@pytest.mark.notebooks
def test_baseline_pages_show_the_comparison(rendered) -> None:
    _, _, base, report = rendered
    pages = {page.name: page.html.read_text() for page in report.pages}
    assert f"{Path(base).name}#builtin" in pages["baseline_diff"]
    assert "Gate <code>" in pages["significance"] and "MDE" in pages["significance"]
    assert "No baseline given" not in "".join(pages.values())


@pytest.mark.notebooks
def test_the_baseline_diff_page_without_a_baseline_says_so_once(rendered, tmp_path: Path) -> None:
    """Not once under every empty heading (issue 42): the headings come only with a comparison."""
    _, run, _, _ = rendered
    report = render_report(run, out_dir=tmp_path, notebooks=["baseline_diff"], notebook_dir=REPO_ROOT / "notebooks")
    text = report.pages[0].html.read_text()
    assert text.count("No baseline given") == 1
    assert "Cases by change" not in text and "Metric deltas" not in text and "Regressed" not in text


@pytest.mark.notebooks
def test_the_trend_page_of_a_run_shows_its_corpus_over_time(rendered) -> None:
    _, _, _, report = rendered
    page = next(p for p in report.pages if p.name == "trend").html.read_text()
    assert "2 run(s), 1 corpus version(s)" in page and 'id="T_trend"' in page


def _kernel_starts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The kernels started from now on (their working directories), counted as they start."""
    from workbench.report._kernels import KernelSlot

    started: list[str] = []
    real = KernelSlot.start

    def counted(self: KernelSlot) -> KernelSlot:
        if self.km is None:
            started.append(str(self.cwd))
        return real(self)

    monkeypatch.setattr(KernelSlot, "start", counted)
    return started


@pytest.mark.notebooks
def test_cli_renders_the_same_html_for_the_same_run(
    rendered, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Also: the report's kernels were kept, warm, so this second report starts none."""
    root, run, base, report = rendered
    started = _kernel_starts(monkeypatch)
    code = main(["report", str(run), "--baseline", f"{base}#builtin", "--out", str(root / "again"), "--jobs", "1"])
    assert code == 0 and started == []
    index = Path(capsys.readouterr().out.strip().splitlines()[-1])
    assert index == root / "again" / report.run_id / "index.html"
    for page in report.pages:
        assert (index.parent / page.html.name).read_text() == page.html.read_text(), page.name
    assert index.read_text() == report.index.read_text()


@pytest.mark.notebooks
def test_papermill_cli_runs_a_notebook_directly(rendered, tmp_path: Path) -> None:
    _, run, _, _ = rendered
    out = tmp_path / "out.ipynb"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "papermill",
            "notebooks/retrieval.ipynb",
            str(out),
            "-p",
            "run_dir",
            str(run),
            "--no-progress-bar",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    outputs = [o for cell in nbformat.read(str(out), 4).cells for o in cell.get("outputs", [])]
    assert any("image/png" in o.get("data", {}) for o in outputs)
    assert not [o for o in outputs if o.output_type == "error"]


@pytest.mark.notebooks
def test_a_failing_notebook_fails_the_report_naming_notebook_and_cell(rendered, tmp_path: Path) -> None:
    _, run, _, _ = rendered

    def notebook(name: str, *sources: str) -> None:
        params = nbformat.v4.new_code_cell("run_dir = None\nbaseline = None")
        params.metadata["tags"] = ["parameters"]
        cells = [params, *(nbformat.v4.new_code_cell(s) for s in sources)]
        nbformat.write(
            nbformat.v4.new_notebook(
                cells=cells,
                metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            ),
            str(tmp_path / f"{name}.ipynb"),
        )

    notebook("broken", "import workbench as wb", "run = wb.views.open_run(run_dir)", "wb.views.no_such_view(run)")
    notebook("slow", "import time", "time.sleep(60)", "print('never')")
    with pytest.raises(RenderError) as failure:
        render_report(run, out_dir=tmp_path / "html", notebooks=["broken", "slow"], notebook_dir=tmp_path, timeout=4)
    message = str(failure.value)
    # counts include the parameters cell and the cell papermill injects
    assert "broken.ipynb: In [5] `wb.views.no_such_view(run)`: AttributeError" in message
    assert "slow.ipynb: In [4] `time.sleep(60)`: timed out after 4s" in message
    pages = tmp_path / "html" / Path(run).name
    assert "AttributeError" in (pages / "broken.html").read_text()  # the partial page is kept
    assert (pages / "slow.html").exists() and "failed" in (pages / "index.html").read_text()


@pytest.mark.notebooks
def test_bad_input_stops_before_rendering(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    started = _kernel_starts(monkeypatch)
    assert main(["report"]) == 3
    assert "no runs yet" in capsys.readouterr().err
    run = build_run(tmp_path / "reports" / "runs")
    assert main(["report", str(run), "--baseline", "no-such-baseline"]) == 3
    assert "no-such-baseline" in capsys.readouterr().err
    assert not (tmp_path / "reports" / "html" / Path(run).name / "index.html").exists()
    assert started == [], "a run or baseline that names nothing stops before any kernel starts"


@pytest.mark.notebooks
def test_report_by_run_id_renders_only_the_pages_the_run_has(tmp_path: Path) -> None:
    run = build_run(tmp_path / "runs", suites=("retrieval",), targets=("builtin",))
    code = main(["report", run.name, "--runs-dir", str(tmp_path / "runs"), "--out", str(tmp_path / "html")])
    assert code == 0
    pages = tmp_path / "html" / run.name
    assert (pages / "retrieval.html").is_file() and not (pages / "ranking.html").exists()
    index = (pages / "index.html").read_text()
    assert "ranking: not rendered: this run has no ranking results" in index


def test_open_run_refuses_a_target_or_suite_the_run_lacks(tmp_path: Path) -> None:
    from workbench.errors import SuiteError, TargetError
    from workbench.report.views.common import open_run

    run = build_run(tmp_path / "runs", suites=("retrieval",))
    assert open_run(run, target="bm25", suite="retrieval").path == run.resolve()
    with pytest.raises(TargetError, match=r"target 'nosuch' is not in run .*\(its targets: builtin, bm25, random\)"):
        open_run(run, target="nosuch")
    with pytest.raises(SuiteError, match=r"suite 'gate' is not in run"):
        open_run(run, suite="gate")


@pytest.mark.notebooks
@pytest.mark.parametrize(
    "param, value, said",
    [
        ("target", "nosuch", "TargetError: target 'nosuch' is not in run"),
        ("run_dir", "no-such-run", "StoreError"),
    ],
)
def test_papermill_fails_a_notebook_given_an_unknown_name_in_one_line(
    tmp_path: Path, param: str, value: str, said: str
) -> None:
    """What ``papermill notebooks/retrieval.ipynb OUT -p NAME VALUE`` does, called in this process
    (the command itself is run by ``test_papermill_cli_runs_a_notebook_directly``): it fails."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    run = build_run(tmp_path / "runs", suites=("retrieval",))
    params = {"run_dir": str(run), param: value}
    with pytest.raises(PapermillExecutionError):
        papermill.execute_notebook(
            str(REPO_ROOT / "notebooks" / "retrieval.ipynb"),
            str(tmp_path / "out.ipynb"),
            parameters=params,
            cwd=str(REPO_ROOT),
            progress_bar=False,
            execution_timeout=180,
        )
    errors = [o for c in nbformat.read(str(tmp_path / "out.ipynb"), 4).cells for o in c.get("outputs", [])]
    (error,) = [o for o in errors if o.output_type == "error"]
    assert said in f"{error.ename}: {error.evalue}" and "\n" not in error.evalue
