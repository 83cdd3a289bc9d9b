"""Render a run's report notebooks to HTML pages a reviewer opens from disk.

Each notebook in ``notebooks/`` is executed with papermill (kernel ``python3``, a deadline per
notebook) and converted by nbconvert with inputs hidden, figures embedded as base64 PNG and no
script fetched from the network. Notebooks run in parallel, one worker per core; a worker keeps
its kernel for its next notebook (namespace reset in between), so pandas and matplotlib load once
per kernel rather than once per notebook, in a warm-up cell run as the kernel starts. This
process reads only the run's header (``workbench.headers``: no pandas), since it shares the
cores with the kernels. Kernels outlive the report, warm, for the next one this process renders
(``_kernel_pool``). The executed ``.ipynb`` is kept beside each page, and
``<out>/<run-id>/index.html`` links them under a summary table. A failing notebook still gets its
partial page; ``render_report`` then raises ``RenderError`` naming the notebook and cell (exit 3).
"""

from __future__ import annotations

import functools
import inspect
import os
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec

from ..console import Progress
from ..errors import RenderError
from ..files import WRITE_ERRNOS, write_failure, write_text_atomic
from ..options import ReportOptions
from ..paths import DEFAULT_HTML_DIR, Locations, notebooks_dir
from ..store.headers import DEFAULT_RUNS_DIR, check_side, latest_run, locations_for, read_header
from ._html import escaped, to_html
from .pages import split_pages

if TYPE_CHECKING:
    from ._kernels import Job, JobBoard, KernelSlot

NOTEBOOKS = ("scoreboard", "retrieval", "classifiers", "ranking", "baseline_diff", "significance", "trend")
# Execution order, longest first (bench/report.py): the first notebook on each kernel also pays for
# its imports, and a long notebook started last would run alone at the end.
LONGEST_FIRST = ("significance", "scoreboard", "retrieval", "ranking", "classifiers", "baseline_diff", "trend")
DEFAULT_OUT = DEFAULT_HTML_DIR
DEFAULT_TIMEOUT = ReportOptions.timeout  # written once, in workbench/options.py
# Run in each kernel as it starts: the imports every notebook makes, with the collector paused
# for them and their objects then frozen out of it (the cyclic collector need not walk pandas' and
# matplotlib's import-time objects again on every collection, e.g. at each namespace reset).
WARMUP = "import gc; gc.disable(); import workbench.report.plots, workbench.report.views; gc.freeze(); gc.enable()"


@dataclass
class Page:
    """One rendered notebook: its page, its executed notebook, and the error that stopped it."""

    name: str
    html: Path
    notebook: Path
    seconds: float
    error: str | None = None


@dataclass
class Report:
    """The pages of one run's report and the index that links them."""

    run_id: str
    index: Path
    pages: list[Page]

    @property
    def failed(self) -> list[Page]:
        return [page for page in self.pages if page.error]


def notebook_paths(names: list[str] | None = None, directory: Path | None = None) -> list[Path]:
    """The report notebooks to render, in order; a RenderError names any that are missing."""
    directory = directory or notebooks_dir()
    paths = [directory / f"{name}.ipynb" for name in (names or NOTEBOOKS)]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise RenderError(f"notebook not found: {', '.join(missing)}")
    return paths


def _worker(
    jobs: JobBoard, worker: int, timeout: float, reuse: bool, converter: ThreadPoolExecutor, bar: Progress
) -> list[Future]:
    """Start a kernel at once (while the caller loads the run), then execute jobs until a None.

    Pages are converted on ``converter`` so the kernel moves straight on to its next notebook."""
    from . import _kernel_pool
    from ._kernels import KernelSlot, execute_notebook

    pages, slot = [], _kernel_pool.take(Path.cwd(), WARMUP) if reuse else KernelSlot(Path.cwd(), WARMUP)
    done = False
    try:
        start_kernel(slot)
        while (job := jobs.take(worker)) is not None:
            started = time.perf_counter()
            nb, error = execute_notebook(job.source, job.out / job.source.name, job.params, slot, timeout)
            pages.append(converter.submit(_convert, job, nb, error, started, bar))
            if not reuse:
                slot.shutdown()
        done = reuse
    finally:
        if done:
            _kernel_pool.give(slot)
        else:
            slot.shutdown()
    return pages


def start_kernel(slot: KernelSlot) -> None:
    """Start ``slot``'s kernel; a RenderError says how to register it when it cannot start."""
    try:
        slot.start()
    except Exception as exc:  # no such kernel, or it died on start
        raise RenderError(
            f"cannot start the notebook kernel ({type(exc).__name__}: {exc}); `make setup` registers it in a "
            "checkout's .venv, `python -m ipykernel install --sys-prefix` in any other environment"
        ) from None


def _convert(job: Job, nb: Any, error: str | None, started: float, bar: Progress) -> Page:
    html_path = job.out / f"{job.source.stem}.html"
    if nb is not None:
        write_text_atomic(html_path, to_html(nb))
    bar.update()
    return Page(job.source.stem, html_path, job.out / job.source.name, time.perf_counter() - started, error)


P = ParamSpec("P")


def _disk_errors(render: Callable[P, Report]) -> Callable[P, Report]:
    """``render`` with a failed write (a full disk, a quota, a read-only directory: ``WRITE_ERRNOS``),
    wherever in the pages, kernels' notebooks or index it happens, as one ``StoreError`` line naming
    the file (else the output directory), exit 3, as export, analyze and baseline record do."""

    @functools.wraps(render)
    def rendering(*args: P.args, **kwargs: P.kwargs) -> Report:
        try:
            return render(*args, **kwargs)
        except OSError as exc:
            if exc.errno not in WRITE_ERRNOS:
                raise
            out = inspect.signature(render).bind(*args, **kwargs).arguments.get("out_dir", DEFAULT_OUT)
            raise write_failure(exc.filename or out, exc) from None

    return rendering


@_disk_errors
def render_report(
    run_dir: Path | str | None = None,
    baseline: str | None = None,
    out_dir: Path | str = DEFAULT_OUT,
    notebooks: list[str] | None = None,
    jobs: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    reuse_kernels: bool = True,
    notebook_dir: Path | None = None,
    corpus: Path | str | None = None,
    runs_dir: Path | str = DEFAULT_RUNS_DIR,
    progress: bool = False,
) -> Report:
    """Render every report notebook for a run (default: the latest) into ``<out_dir>/<run-id>/``.

    ``run_dir`` is a run directory or a run id under ``runs_dir``. ``baseline`` is a baseline name
    (in ``<corpus dir>/baselines/`` of ``corpus``, default the run's own corpus), a baseline file, a run or
    ``RUN#TARGET``; it is resolved here once and handed to the notebooks as a path. ``notebooks`` picks some
    of ``NOTEBOOKS`` (or of the notebooks in ``notebook_dir``). A run or baseline that names
    nothing stops before any kernel starts; kernels start while the run is read, and the first
    notebooks while the baseline is checked, and one that does not read stops everything (a
    StoreError or CompareError). Kernels are taken warm from, and given back to, the process's
    pool (``_kernel_pool``) unless ``reuse_kernels`` is False (a fresh kernel per notebook). Raises
    RenderError, after writing every page and the index, if a notebook failed. ``progress`` shows
    the pages done on stderr (``progress.Progress``).
    """
    from ._kernels import Job, JobBoard

    ReportOptions(jobs=jobs, timeout=timeout)  # its checks: a UsageError before any kernel starts

    sources = notebook_paths(notebooks, notebook_dir)
    # A run or baseline that names nothing stops here, before any kernel starts; reading them is
    # left to the time the kernels take to start.
    run_path = _run_path(run_dir, Locations.of(corpus, runs_dir))
    where = locations_for([str(run_path)], corpus, runs_dir)
    baseline = _resolved_baseline(baseline, where)
    board = JobBoard()
    workers = max(1, min(jobs or len(os.sched_getaffinity(0)), len(sources)))
    with (
        ThreadPoolExecutor(workers, thread_name_prefix="report") as pool,
        ThreadPoolExecutor(1, thread_name_prefix="html") as converter,
        Progress(None, "pages", "page", enabled=progress) as bar,
    ):
        futures = [pool.submit(_worker, board, i, timeout, reuse_kernels, converter, bar) for i in range(workers)]
        converter.submit(to_html, None)  # load nbconvert and compile its template while the kernels start
        try:
            run, out = _prepare(run_path, Path(out_dir), where)
            # The default pages fit the run: a page none of whose suites ran is one line in the index.
            sources, left_out = split_pages(sources, run.summary) if notebooks is None else (sources, {})
            bar.set_total(len(sources))
            params = {"run_dir": str(run.path.resolve()), "baseline": baseline}
            rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
            for source in sorted(sources, key=lambda p: rank.get(p.stem, len(rank))):
                board.put(Job(source, out, params))
            _check_baseline(baseline, board, where)
        finally:
            board.close()
        pages = [page.result() for future in futures for page in future.result()]
    order = {source.stem: i for i, source in enumerate(sources)}
    pages.sort(key=lambda page: order[page.name])
    report = Report(run.run_id, write_index(run, pages, out, left_out), pages)
    write_runs_index(Path(out_dir))
    if report.failed:
        reasons = "; ".join(f"{page.notebook.name}: {page.error}" for page in report.failed)
        raise RenderError(f"{len(report.failed)} notebook(s) failed: {reasons} (partial pages in {out})")
    return report


def _prepare(run_dir: Path | str | None, out_dir: Path, where: Locations) -> tuple[Any, Path]:
    """The run's header (default: the latest run; its frames are the kernels' to load) and its
    page directory. ``run_dir`` may be a run id under ``where.runs``."""
    run = read_header(_run_path(run_dir, where))
    out = out_dir / run.run_id
    out.mkdir(parents=True, exist_ok=True)
    return run, out


def _run_path(run_dir: Path | str | None, where: Locations) -> Path:
    """The run directory ``run_dir`` names (default: the latest run); a StoreError
    when there is none."""
    return where.run(str(run_dir)).path if run_dir else latest_run(where.runs)


def _resolved_baseline(baseline: str | None, where: Locations) -> str | None:
    """The baseline spec as an absolute path (``#TARGET`` kept), so every notebook reads the same
    side whatever its working directory; a StoreError when it names no run or baseline."""
    if not baseline:
        return None
    side = where.side(baseline)
    return str(side.path.resolve()) + (f"#{side.target}" if side.target else "")


def _check_baseline(baseline: str | None, board: JobBoard, where: Locations) -> None:
    """Check the baseline while the first notebooks run; if it does not resolve, cancel the
    notebooks not started yet and raise."""
    if not baseline:
        return
    try:
        check_side(baseline, where)
    except Exception:
        board.cancel()
        raise


def write_index(run: Any, pages: list[Page], out: Path, left_out: dict[str, str] | None = None) -> Path:
    """``index.html``: the run's verdict per suite and target, a link to every page, and one line
    for each page left out (its suites were not run)."""
    from ..store.verdicts import run_verdict
    from .text import verdict_text

    suites = run.summary.get("suites") or {}
    targets = list(dict.fromkeys(t for per in suites.values() for t in per))
    head = "".join(f"<th>{escaped(t)}</th>" for t in targets)
    rows = "".join(
        f"<tr><td>{escaped(s)}</td>"
        + "".join(_cell(verdict_text(per[t]) if t in per else "-") for t in targets)
        + "</tr>"
        for s, per in suites.items()
    )
    links = "".join(
        f'<li><a href="{escaped(p.html.name)}">{escaped(p.name)}</a>'
        f"{' - <b>failed</b>: ' + escaped(p.error) if p.error else ''}"
        f' (<a href="{escaped(p.notebook.name)}">notebook</a>)</li>'
        for p in pages
    )
    links += "".join(
        f'<li class="muted">{escaped(name)}: {escaped(why)}</li>' for name, why in (left_out or {}).items()
    )
    verdict = run_verdict(run.summary)
    body = (
        f"<h1>Run {escaped(run.run_id)}: {verdict}</h1><p>Corpus "
        f"{escaped(str((run.manifest.get('corpus') or {}).get('path', '?')))}, created "
        f"{escaped(str(run.manifest.get('created', '?')))}. "
        "Controls (bm25, guess, random) never gate the verdict.</p>"
        f"{_baseline_paragraph(run.summary)}<table><tr><th>suite</th>{head}</tr>{rows}</table>"
        f"<h2>Reports</h2><ul>{links}</ul>"
    )
    path = out / "index.html"
    write_text_atomic(path, _page(f"workbench report {run.run_id}", body))
    return path


def _baseline_paragraph(summary: dict[str, Any]) -> str:
    """The run against its baseline (``run --baseline``), one line per judged target, or nothing."""
    from .text import baseline_lines

    lines = baseline_lines(summary)
    if not lines:
        return ""
    verdict = str((summary.get("baseline") or {}).get("verdict") or "")
    css = "fail" if verdict in ("REGRESSED", "INSUFFICIENT_DATA") or "error" in summary["baseline"] else "pass"
    return "".join(f'<p class="baseline {css}">{escaped(line)}</p>' for line in lines)


def _cell(text: str) -> str:
    css = "pass" if text.startswith("PASS") else "fail" if text.startswith("FAIL") else "muted"
    return f'<td class="{css}">{escaped(text)}</td>'


def _page(title: str, body: str) -> str:
    style = (
        "body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}"
        ".pass{background:#e6f4ea}.fail{background:#fce8e6}.muted{color:#888}"
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escaped(title)}</title>'
        f"<style>{style}</style></head><body>{body}</body></html>\n"
    )


def write_runs_index(out_dir: Path) -> Path:
    """``<out_dir>/index.html``: every rendered run, newest first."""
    runs = sorted((p.parent.name for p in out_dir.glob("*/index.html")), reverse=True)
    items = "".join(f'<li><a href="{escaped(r)}/index.html">{escaped(r)}</a></li>' for r in runs)
    path = out_dir / "index.html"
    write_text_atomic(path, _page("workbench reports", f"<h1>Reports</h1><ul>{items}</ul>"))
    return path
