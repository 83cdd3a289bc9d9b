"""HTML conversion and the index page (no kernel: executed notebooks are built by hand)."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import nbformat
import pytest

import workbench as wb
from workbench.errors import RenderError
from workbench.report._kernels import declared
from workbench.report.render import Page, notebook_paths, to_html, write_index, write_runs_index

from ..report_runs import build_run

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nnot-really-a-png").decode()


def executed_notebook() -> nbformat.NotebookNode:
    """What papermill leaves behind: parameters, injected parameters, outputs."""
    params = nbformat.v4.new_code_cell("run_dir = None", id="parameters")
    params.metadata["tags"] = ["parameters"]
    injected = nbformat.v4.new_code_cell('run_dir = "/x"')  # papermill gives it a random id
    injected.metadata["tags"] = ["injected-parameters"]
    table = nbformat.v4.new_code_cell(
        "wb.views.verdicts(run)",
        id="table",
        execution_count=3,
        outputs=[
            nbformat.v4.new_output(
                "execute_result",
                {"text/html": "<table><tr><td>PASS</td></tr></table>", "text/plain": "frame"},
                execution_count=3,
            )
        ],
    )
    figure = nbformat.v4.new_code_cell(
        "wb.plots.floors(run)",
        id="figure",
        execution_count=4,
        outputs=[
            nbformat.v4.new_output("execute_result", {"image/png": PNG, "text/plain": "<Figure>"}, execution_count=4)
        ],
    )
    text = nbformat.v4.new_markdown_cell("# Scoreboard\n\nMath like $x^2$ needs no script.", id="md")
    return nbformat.v4.new_notebook(
        cells=[params, injected, text, table, figure],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )


def test_html_hides_code_embeds_figures_and_loads_nothing_from_the_network() -> None:
    page = to_html(executed_notebook())
    assert re.search(r'<img [^>]*src="data:image/png;base64,' + re.escape(PNG[:20]), page)
    assert "<table><tr><td>PASS</td></tr></table>" in page and "<h1" in page
    assert "wb.plots.floors" not in page and "run_dir" not in page  # inputs hidden
    assert not re.search(r"<script[^>]+src=", page), "a script is fetched"
    assert not re.search(r'<link[^>]+href="https?:', page)
    assert "mathjax" not in page.lower() and "require.js" not in page


def test_figures_carry_their_alt_text_and_outputs_are_focusable() -> None:
    book = executed_notebook()
    book.cells[-1].outputs[0].metadata = {"image/png": {"alt": "Ranks <per> target"}}
    book.cells[-1].outputs.append(nbformat.v4.new_output("display_data", {"image/png": PNG}))
    images = re.findall(r"<img [^>]*>", to_html(book))
    assert len(images) == 2
    assert 'alt="Ranks &lt;per&gt; target"' in images[0]
    assert 'alt="No description has been provided for this image"' in images[1]  # nbconvert's words
    outputs = re.findall(r'<div class="[^"]*jp-OutputArea-output[^"]*"[^>]*>', to_html(book))
    assert outputs and all('tabindex="0"' in tag for tag in outputs)


def test_html_is_identical_for_the_same_outputs() -> None:
    first, second = executed_notebook(), executed_notebook()
    assert first.cells[1].id != second.cells[1].id  # papermill's random ids...
    assert to_html(first) == to_html(second)  # ...do not reach the page


def test_index_links_every_page_and_marks_failures(tmp_path: Path) -> None:
    run = wb.views.open_run(build_run(tmp_path / "runs", suites=("retrieval", "findings")))
    out = tmp_path / "html" / run.run_id
    out.mkdir(parents=True)
    pages = [
        Page("scoreboard", out / "scoreboard.html", out / "scoreboard.ipynb", 1.0),
        Page("ranking", out / "ranking.html", out / "ranking.ipynb", 1.0, "In [4] `x`: KeyError: 'y'"),
    ]
    index = write_index(run, pages, out).read_text()
    assert '<a href="scoreboard.html">scoreboard</a>' in index and '<a href="ranking.ipynb">notebook</a>' in index
    assert "<b>failed</b>: In [4] `x`: KeyError: &#x27;y&#x27;" in index
    assert "<th>reviewer-a</th>" in index and "retrieval" in index
    assert re.search(r'<td class="fail">FAIL \(\d+/22 cases pass', index)
    listing = write_runs_index(tmp_path / "html").read_text()
    assert f'<a href="{run.run_id}/index.html">' in listing


def test_missing_notebook_is_a_render_error(tmp_path: Path) -> None:
    with pytest.raises(RenderError, match=r"notebook not found: .*nope\.ipynb"):
        notebook_paths(["nope"], tmp_path)


def test_only_declared_parameters_are_passed(tmp_path: Path) -> None:
    book = executed_notebook()
    book.cells = book.cells[:1]
    nbformat.write(book, str(tmp_path / "n.ipynb"))
    assert declared(tmp_path / "n.ipynb", {"run_dir": "r", "baseline": "b"}) == {"run_dir": "r"}


def test_lab_opens_jupyterlab_on_the_notebooks(monkeypatch: pytest.MonkeyPatch) -> None:
    import workbench.report.lab as lab
    from workbench.cli import main

    seen: list[list[str]] = []
    import workbench.report

    monkeypatch.setattr(workbench.report, "serve_lab", lambda command: seen.append(command) or 7, raising=False)
    monkeypatch.setattr(lab.os, "geteuid", lambda: 1000)
    assert main(["lab", "--no-browser"]) == 7
    from workbench.report.render import notebooks_dir

    assert seen[0][1:] == ["-m", "jupyterlab", f"--notebook-dir={notebooks_dir()}", "--no-browser"]
    monkeypatch.setattr(lab.os, "geteuid", lambda: 0)
    assert main(["lab", "--no-browser"]) == 7
    assert seen[1][1:] == ["-m", "jupyterlab", f"--notebook-dir={notebooks_dir()}", "--allow-root", "--no-browser"]


def test_kernel_warmup_runs_before_the_first_notebook_and_leaves_counts_alone(tmp_path: Path) -> None:
    from workbench.report._kernels import KernelSlot, execute_notebook

    cell = nbformat.v4.new_code_cell("import sys; print(sys.warmed_by)")
    source = tmp_path / "probe.ipynb"
    nbformat.write(
        nbformat.v4.new_notebook(
            cells=[cell], metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
        ),
        str(source),
    )
    slot = KernelSlot(tmp_path, "import sys; sys.warmed_by = 'warmup'")
    try:
        nb, error = execute_notebook(source, tmp_path / "out.ipynb", {}, slot, timeout=60)
    finally:
        slot.shutdown()
    assert error is None
    assert nb.cells[0].execution_count == 1
    assert nb.cells[0].outputs[0]["text"] == "warmup\n"


def test_notebook_machinery_loads_without_the_iri_grammar_which_stays_importable() -> None:
    import importlib.util
    import subprocess
    import sys

    code = (
        "import sys, workbench.report._kernels; loaded = 'rfc3987_syntax' in sys.modules\n"
        "try:\n    import rfc3987_syntax; usable = 'yes'\nexcept ModuleNotFoundError:\n    usable = 'absent'\n"
        "print(loaded, usable)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    installed = importlib.util.find_spec("rfc3987_syntax") is not None
    assert done.stdout.split() == ["False", "yes" if installed else "absent"]


def test_a_follower_notebook_waits_for_the_kernel_of_its_leader(tmp_path: Path) -> None:
    from workbench.report._kernels import Job, JobBoard

    board = JobBoard()
    for name in ("significance", "scoreboard", "baseline_diff", "retrieval", "ranking"):
        board.put(Job(tmp_path / f"{name}.ipynb", tmp_path, {}))
    taken = [(worker, board.take(worker).source.stem) for worker in (0, 1, 1, 0, 1)]
    # worker 1 skips baseline_diff (significance ran on worker 0) while it has something else to take
    assert taken == [(0, "significance"), (1, "scoreboard"), (1, "retrieval"), (0, "baseline_diff"), (1, "ranking")]
    board.put(Job(tmp_path / "classifiers.ipynb", tmp_path, {}))
    board.cancel()
    board.close()
    assert board.take(0) is None and board.take(1) is None


def test_a_follower_left_alone_goes_to_any_free_worker(tmp_path: Path) -> None:
    from workbench.report._kernels import Job, JobBoard

    board = JobBoard()
    for name in ("significance", "baseline_diff"):
        board.put(Job(tmp_path / f"{name}.ipynb", tmp_path, {}))
    board.close()
    assert board.take(0).source.stem == "significance"
    assert board.take(1).source.stem == "baseline_diff"


def _dying_first(monkeypatch: pytest.MonkeyPatch, dying: int) -> list[int]:
    """Make the first ``dying`` kernels a slot starts exit before they reply; the starts, counted."""
    from workbench.report import _kernels

    starts: list[int] = []
    real = _kernels.AsyncKernelManager.start_kernel

    async def start_kernel(self: object, **kwargs: object) -> None:
        starts.append(1)
        if len(starts) <= dying:  # as a kernel whose port another process bound first
            kwargs["extra_arguments"] = [*_kernels.KERNEL_ARGS, "--IPKernelApp.exec_lines=['import os; os._exit(3)']"]
        await real(self, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_kernels.AsyncKernelManager, "start_kernel", start_kernel)
    return starts


def test_a_kernel_that_dies_on_start_is_started_once_more(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.report._kernels import KernelSlot

    starts = _dying_first(monkeypatch, dying=1)
    slot = KernelSlot(tmp_path, "import sys; sys.warmed_by = 'warmup'")
    try:
        slot.start()
        assert slot.alive() and slot.run("x = 1")["status"] == "ok"
    finally:
        slot.shutdown()
    assert len(starts) == 2


def test_a_kernel_that_keeps_dying_on_start_is_an_error_after_two_tries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from workbench.report._kernels import START_TRIES, KernelSlot

    starts = _dying_first(monkeypatch, dying=99)
    slot = KernelSlot(tmp_path)
    with pytest.raises(RuntimeError, match="died"):
        slot.start()
    assert len(starts) == START_TRIES == 2 and slot.km is None
