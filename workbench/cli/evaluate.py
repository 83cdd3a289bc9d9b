"""``workbench run``, ``validate``, ``merge``, ``report`` and ``lab``: corpus in, runs and reports out."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import RunStopped
from ..options import RunOptions
from ..paths import DEFAULT_HTML_DIR, DEFAULT_RUNS_DIR
from . import CORPUS_OPTION, EXIT_ERROR, EXIT_FAILED, EXIT_OK, FORMAT_OPTION, RUNS_DIR_OPTION, cli, split_values

if TYPE_CHECKING:
    from ..store import Run

DEFAULTS = RunOptions()  # the flags' defaults are the options' own


@cli.command("run")
@CORPUS_OPTION
@click.option(
    "--suite", "suites", multiple=True, help="Suite to run (repeatable or comma list; default: every suite with cases)."
)
@click.option(
    "--target",
    "targets",
    multiple=True,
    help="builtin, random, bm25, cmd:<command>, http://host:port, python:<module>:<factory> (repeatable).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=DEFAULT_RUNS_DIR,
    show_default=True,
    help="Directory that receives the run directory.",
)
@click.option(
    "--baseline", "baseline", default=None, help="Compare with this baseline (name or path) and mark regressions."
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary object as JSON (same as --format json).")
@FORMAT_OPTION
@click.option(
    "--gate",
    type=click.Choice(["controls"]),
    default=None,
    help="controls: a suite without floors passes only if each candidate beats bm25 (else random) "
    "significantly on its headline metric (bm25 is added when no control is given).",
)
@click.option("--strict", is_flag=True, help="Stop at the first case that errors.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=DEFAULTS.timeout,
    show_default=True,
    help="Seconds per engine request.",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=DEFAULTS.jobs,
    show_default=True,
    help="Cases run concurrently per target (a cmd: target starts up to N engine processes).",
)
@click.option(
    "--shard", default=None, help="Run only shard I of N (I/N, zero-based); merge shards with `workbench merge`."
)
@click.option(
    "--seed", type=int, default=DEFAULTS.seed, show_default=True, help="Seed for the random control and any sampling."
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0),
    default=None,
    help="Seconds the whole run may take: no case starts after it; cases not reached are errors "
    "(exit 1) and the journal is kept for --resume.",
)
@click.option(
    "--resume",
    "resume",
    type=click.Path(path_type=Path),
    metavar="RUN",
    default=None,
    help="Finish an interrupted run (a run id under --out, or its .<run-id>.journal path): reuse its "
    "saved cases, run the rest, write it under its own run id. The corpus, suites, targets, "
    "seed, shard, timeout, --repeat and --strict come from the run's journal; giving a different one is "
    "an error.",
)
@click.option(
    "--executor",
    default=DEFAULTS.executor,
    show_default=True,
    metavar="local|ray[:ADDRESS]",
    help="Where cases run: here (--jobs threads), or on Ray (no ADDRESS: $RAY_ADDRESS or a local Ray).",
)
@click.option(
    "--warm-start/--no-warm-start",
    default=DEFAULTS.warm_start,
    show_default=True,
    help="With --executor ray: while Ray starts, run cases here; then every case left goes to Ray.",
)
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=DEFAULTS.repeat,
    show_default=True,
    help="Run every case N times: pass^k, pass@k, flaky cases; metrics are each case's mean.",
)
@click.option("--cache", is_flag=True, help="Reuse unchanged passing answers of builtin and the controls (no latency).")
@click.option(
    "--budget-usd",
    type=click.FloatRange(min=0),
    default=None,
    help="Stop starting cases once the engines reported this many dollars (usage.cost_usd); the "
    "cases running finish, the rest are not reached (verdict BUDGET, exit 1) and --resume runs them.",
)
@click.option(
    "--budget-seconds",
    type=click.FloatRange(min=0),
    default=None,
    help="As --budget-usd, for engine time: the sum of the cases' own seconds.",
)
@click.pass_context
def run_command(
    ctx: click.Context,
    corpus_path: Path,
    suites: tuple[str, ...],
    targets: tuple[str, ...],
    out_dir: Path,
    baseline: str | None,
    as_json: bool,
    output_format: str,
    gate: str | None,
    strict: bool,
    timeout: float,
    jobs: int,
    shard: str | None,
    seed: int,
    deadline: float | None,
    resume: Path | None,
    executor: str,
    warm_start: bool,
    repeat: int,
    cache: bool,
    budget_usd: float | None,
    budget_seconds: float | None,
) -> None:
    """Run suites against targets; exit 1 when a threshold floor (or --gate controls) is not met.

    A suite the corpus gives no floors is NO FLOORS, never PASS; a run where nothing was gated
    says so in its last line (exit 0).

    Every finished case is saved as it ends, so a run that is interrupted (Ctrl-C, a crash,
    --strict) can be finished with --resume, which runs only the cases not saved yet.
    """
    from ..run import budget_line, run_eval

    output_format = "json" if as_json else output_format
    options = RunOptions(
        suites=split_values(suites) or None,
        targets=split_values(targets) or ["builtin"],
        out_dir=out_dir,
        strict=strict,
        timeout=timeout,
        jobs=jobs,
        seed=seed,
        shard=RunOptions.parse_shard(shard),
        progress=output_format == "text",
        resume=resume,
        baseline=baseline,
        deadline=deadline,
        executor=executor,
        warm_start=warm_start,
        repeat=repeat,
        cache=cache,
        gate=gate,
        budget_usd=budget_usd,
        budget_seconds=budget_seconds,
    )
    # On --resume only what the user typed is checked against the journal.
    given = {name for name in ctx.params if _given(ctx, name)}
    corpus = None if resume and not _given(ctx, "corpus_path") else corpus_path
    try:
        with _stdout_to_stderr(output_format == "json"):
            result = run_eval(corpus, options, given=given)
    except RunStopped as stopped:
        click.echo(stopped.hint(), err=True)
        raise stopped.cause from None
    click.echo(_rendered(result, output_format))
    cut = result.summary.get("deadline")
    if cut:
        click.echo(
            f"--deadline {cut['seconds']:g}s passed: {cut['not_run']} case(s) not run; "
            f"run them with --resume {result.run_id}",
            err=True,
        )
    stopped_line = budget_line(result.summary, result.run_id)
    if stopped_line:
        click.echo(stopped_line, err=output_format != "text")
    ctx.exit(EXIT_FAILED if result.summary["passed"] is False else EXIT_OK)


def _rendered(result: Run, output_format: str) -> str:
    """The run's summary as JSON, the scoreboard text (with each pair's engine latency), or markdown
    for a PR comment."""
    summary, k = result.summary, result.manifest["corpus"]["k"]
    if output_format == "json":
        return json.dumps(summary, indent=2)
    from ..analysis import regression_keys
    from ..report import latencies, render_markdown, render_scoreboard

    regressions = regression_keys(summary.get("baseline") or {})
    if output_format == "markdown":
        return render_markdown(summary, k=k, regressions=regressions)
    return render_scoreboard(summary, k=k, regressions=regressions, latency=latencies(result.cases))


@contextmanager
def _stdout_to_stderr(active: bool) -> Iterator[None]:
    """With ``--json``, whatever writes to file descriptor 1 while the run runs (Ray's workers and
    raylet logs, an engine library's prints) goes to stderr, so stdout holds the JSON alone."""
    if not active:
        yield
        return
    stream = sys.stdout
    stream.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stdout = stream
        os.dup2(saved, 1)
        os.close(saved)


def _given(ctx: click.Context, name: str) -> bool:
    """Whether the user gave option ``name`` (not its default)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source != click.core.ParameterSource.DEFAULT


@cli.command("validate")
@CORPUS_OPTION
@click.pass_context
def validate_command(ctx: click.Context, corpus_path: Path) -> None:
    """Check a corpus: schema, fixtures, expected files. Exit 3 on any problem."""
    from ..corpus import validate_corpus

    problems = validate_corpus(corpus_path)
    for problem in problems:
        click.echo(f"{corpus_path}: {problem}", err=True)
    if problems:
        click.echo(f"{len(problems)} problem(s) in {corpus_path}", err=True)
        ctx.exit(EXIT_ERROR)
    click.echo(f"{corpus_path}: ok")


@cli.command("merge")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=DEFAULT_RUNS_DIR,
    show_default=True,
    help="Directory that receives the merged run.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the merged summary as JSON.")
@click.pass_context
def merge_command(ctx: click.Context, runs: tuple[Path, ...], out_dir: Path, as_json: bool) -> None:
    """Merge shard runs (same corpus) into one run; exit 1 when the merged run fails its floors."""
    from ..run import merge_runs

    merged = merge_runs(list(runs), out_dir)
    click.echo(_rendered(merged, "json" if as_json else "text"))
    ctx.exit(EXIT_FAILED if merged.summary["passed"] is False else EXIT_OK)


@cli.command("report")
@click.argument("run_dir", metavar="[RUN]", required=False)
@CORPUS_OPTION
@click.option(
    "--baseline",
    default=None,
    help="Compare with a baseline (a name among the corpus's baselines, or a file), a run or RUN#TARGET.",
)
@RUNS_DIR_OPTION
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=DEFAULT_HTML_DIR,
    show_default=True,
    help="Directory that receives <run-id>/index.html and the pages.",
)
@click.option("--open", "open_page", is_flag=True, help="Open index.html in a browser when done.")
@click.option(
    "--jobs", type=click.IntRange(min=1), default=None, help="Notebooks executed at once (default: one per core)."
)
@click.option(
    "--timeout", type=click.FloatRange(min=1), default=300.0, show_default=True, help="Seconds allowed per notebook."
)
def report_command(
    run_dir: str | None,
    corpus_path: Path,
    baseline: str | None,
    runs_dir: Path,
    out_dir: Path,
    open_page: bool,
    jobs: int | None,
    timeout: float,
) -> None:
    """Render the report notebooks of RUN (a run directory or run id; default: the latest) to HTML
    and print index.html's path.

    A notebook that fails still gets its partial page; the command then exits 3 naming the notebook and cell.
    """
    import webbrowser

    from ..report import render_report

    result = render_report(
        run_dir,
        baseline=baseline,
        out_dir=out_dir,
        jobs=jobs,
        timeout=timeout,
        corpus=corpus_path,
        runs_dir=runs_dir,
        progress=True,
    )
    click.echo(result.index)
    if open_page:
        webbrowser.open(result.index.resolve().as_uri())


@cli.command("lab", context_settings={"ignore_unknown_options": True})
@click.argument("lab_args", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def lab_command(ctx: click.Context, lab_args: tuple[str, ...]) -> None:
    """Open JupyterLab on the report notebooks (notebooks/), in this environment.

    Other arguments go to JupyterLab (``workbench lab --no-browser --port 8890``); as root,
    ``--allow-root`` is added. Stopping this command (Ctrl-C, SIGTERM) shuts the server down."""
    from ..report import lab_argv, notebooks_dir, serve_lab

    ctx.exit(serve_lab(lab_argv(lab_args, notebooks_dir())))
