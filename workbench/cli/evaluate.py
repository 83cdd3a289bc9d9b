"""``workbench run``, ``validate``, ``merge``, ``report`` and ``lab``: corpus in, runs and reports out."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from ..errors import CompareError, RunStopped
from ..options import GATES, ReportOptions, RunOptions
from ..paths import DEFAULT_RUNS_DIR
from .shared import (
    BASELINES_CORPUS_OPTION,
    CORPUS_OPTION,
    EXIT_ERROR,
    EXIT_FAILED,
    EXIT_OK,
    FORMAT_OPTION,
    RUNS_DIR_OPTION,
    given,
    options_from,
    split_targets,
    split_values,
    stdout_to_stderr,
)

if TYPE_CHECKING:
    from ..store import Run

DEFAULTS = RunOptions()  # the flags' defaults are the options' own
REPORT = ReportOptions()


@click.command("run")
@CORPUS_OPTION
@click.option(
    "--suite", "suites", multiple=True, help="Suite to run (repeatable or comma list; default: every suite with cases)."
)
@click.option(
    "--target",
    "targets",
    multiple=True,
    help="builtin, random, bm25, guess, cmd:<command>, http://host:port, python:<module>:<factory> (repeatable or "
    "comma list; a cmd: command line runs to the end of its value, commas included).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=DEFAULTS.out_dir,
    show_default=True,
    help="Directory that receives the run directory.",
)
@click.option(
    "--baseline",
    "baseline",
    default=None,
    help="Compare with this baseline (a name in <corpus dir>/baselines/, or a file) under compare's gate "
    "rule: REGRESSED (exit 1), UNCHANGED or IMPROVED; a baseline of another corpus version is refused "
    "before any case runs.",
)
@click.option(
    "--on-shared-cases",
    is_flag=True,
    help="With --baseline recorded on another corpus version: compare on the case names both have "
    "(else the run is refused before any case runs).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary object as JSON (same as --format json).")
@FORMAT_OPTION
@click.option(
    "--gate",
    type=click.Choice([gate for gate in GATES if gate]),
    default=DEFAULTS.gate,
    help="controls: a suite without floors passes only if each candidate beats bm25 (else random) "
    "significantly on its headline metric (bm25 is added when no control is given).",
)
@click.option("--strict", is_flag=True, help="Stop at the first case that errors.")
@click.option(
    "--timeout",
    type=float,
    default=DEFAULTS.timeout,
    show_default=True,
    help="Seconds per engine request (a finite number > 0).",
)
@click.option(
    "--jobs",
    type=int,
    default=DEFAULTS.jobs,
    show_default=True,
    help="Cases run concurrently per target, >= 1: the built-in targets in N forked worker processes, "
    "others in N threads (a cmd: target starts up to N engine processes).",
)
@click.option(
    "--shard", default=None, help="Run only shard I of N (I/N, zero-based); merge shards with `workbench merge`."
)
@click.option(
    "--seed", type=int, default=DEFAULTS.seed, show_default=True, help="Seed for the random control and any sampling."
)
@click.option(
    "--deadline",
    type=float,
    default=DEFAULTS.deadline,
    help="Seconds the whole run may take (a finite number >= 0): no case starts after it; cases not "
    "reached are errors (exit 1) and the journal is kept for --resume.",
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
    help="Where cases run: on this machine (--jobs workers or threads), or on Ray (no ADDRESS: $RAY_ADDRESS "
    "or a local Ray).",
)
@click.option(
    "--warm-start/--no-warm-start",
    default=DEFAULTS.warm_start,
    show_default=True,
    help="With --executor ray: while Ray starts, run cases here; then every case left goes to Ray.",
)
@click.option(
    "--repeat",
    type=int,
    default=DEFAULTS.repeat,
    show_default=True,
    help="Run every case N times (>= 1): pass^k, pass@k, flaky cases; metrics are each case's mean.",
)
@click.option("--cache", is_flag=True, help="Reuse unchanged passing answers of builtin and the controls (no latency).")
@click.option(
    "--budget-usd",
    type=float,
    default=DEFAULTS.budget_usd,
    help="Stop starting cases once the engines reported this many dollars (a finite number >= 0, usage.cost_usd); the "
    "cases running finish, the rest are not reached (verdict BUDGET, exit 1) and --resume runs them.",
)
@click.option(
    "--budget-seconds",
    type=float,
    default=DEFAULTS.budget_seconds,
    help="As --budget-usd, for engine time: the sum of the cases' own seconds (a finite number >= 0).",
)
@click.pass_context
def run_command(ctx: click.Context, **params: object) -> None:
    """Run suites against targets; exit 1 when a threshold floor (or --gate controls) is not met.

    A suite the corpus gives no floors is NO FLOORS, never PASS; a run where nothing was gated
    says so in its last line (exit 0).

    Every finished case is saved as it ends, so a run that is interrupted (Ctrl-C, a crash,
    --strict) can be finished with --resume, which runs only the cases not saved yet.
    """
    output_format = "json" if params["as_json"] else str(params["output_format"])
    options = run_options(params, progress=output_format == "text")
    # On --resume only what the user typed is checked against the journal.
    typed = {name for name in ctx.params if given(ctx, name)}
    corpus = None if options.resume and "corpus_path" not in typed else Path(str(params["corpus_path"]))
    result = _run(corpus, options, typed, output_format)
    click.echo(_rendered(result, output_format))
    for line, to_stderr in _stop_lines(result, output_format):
        click.echo(line, err=to_stderr)
    not_compared = (result.summary.get("baseline") or {}).get("error")
    if not_compared:  # the run is written; the comparison it asked for could not be made
        raise CompareError(f"run {result.run_id} written, but not compared with its baseline: {not_compared}")
    ctx.exit(EXIT_FAILED if result.summary["passed"] is False else EXIT_OK)


def run_options(params: Mapping[str, object], progress: bool) -> RunOptions:
    """The ``RunOptions`` of ``run``'s parameters: comma lists split, ``--shard`` parsed."""
    suites, targets = cast(tuple[str, ...], params["suites"]), cast(tuple[str, ...], params["targets"])
    return options_from(
        RunOptions,
        params,
        suites=split_values(suites) or None,
        targets=split_targets(targets) or DEFAULTS.targets,
        shard=RunOptions.parse_shard(cast(str | None, params["shard"])),
        progress=progress,
    )


def _run(corpus: Path | None, options: RunOptions, typed: set[str], output_format: str) -> Run:
    """The one library call: ``run_eval``; a stopped run prints its hint and raises its cause."""
    from ..run import run_eval

    try:
        with stdout_to_stderr(output_format == "json"):
            return run_eval(corpus, options, given=typed)
    except RunStopped as stopped:
        click.echo(stopped.hint(), err=True)
        raise stopped.cause from None


def _stop_lines(result: Run, output_format: str) -> list[tuple[str, bool]]:
    """What a run cut short says after its summary (a passed deadline, a spent budget), each line
    with whether it goes to stderr."""
    from ..run import budget_line

    lines = []
    cut = result.summary.get("deadline")
    if cut:
        lines.append(
            (
                f"--deadline {cut['seconds']:g}s passed: {cut['not_run']} case(s) not run; "
                f"run them with --resume {result.run_id}",
                True,
            )
        )
    stopped = budget_line(result.summary, result.run_id)
    if stopped:
        lines.append((stopped, output_format != "text"))
    return lines


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


@click.command("validate")
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


@click.command("merge")
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


@click.command("report")
@click.argument("run_dir", metavar="[RUN]", required=False)
@BASELINES_CORPUS_OPTION
@click.option(
    "--baseline",
    default=REPORT.baseline,
    help="Compare with a baseline (a name in <corpus dir>/baselines/ of the run's corpus, or a file), "
    "a run or RUN#TARGET.",
)
@RUNS_DIR_OPTION
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=REPORT.out_dir,
    show_default=True,
    help="Directory that receives <run-id>/index.html and the pages.",
)
@click.option("--open", "open_page", is_flag=True, help="Open index.html in a browser when done.")
@click.option("--jobs", type=int, default=REPORT.jobs, help="Notebooks executed at once (default: one per core).")
@click.option(
    "--timeout",
    type=float,
    default=REPORT.timeout,
    show_default=True,
    help="Seconds allowed per notebook (a finite number > 0).",
)
def report_command(
    run_dir: str | None, corpus_path: Path | None, runs_dir: Path, open_page: bool, **params: object
) -> None:
    """Render the report notebooks of RUN (a run directory or run id; default: the latest) to HTML
    and print index.html's path.

    A notebook that fails still gets its partial page; the command then exits 3 naming the notebook and cell.
    """
    import webbrowser

    from ..report import render_report

    options = options_from(ReportOptions, params)
    result = render_report(
        run_dir,
        baseline=options.baseline,
        out_dir=options.out_dir,
        jobs=options.jobs,
        timeout=options.timeout,
        corpus=corpus_path,
        runs_dir=runs_dir,
        progress=True,
    )
    click.echo(result.index)
    if open_page:
        webbrowser.open(result.index.resolve().as_uri())


@click.command("lab", context_settings={"ignore_unknown_options": True})
@click.argument("lab_args", nargs=-1, type=click.UNPROCESSED)
@click.pass_context
def lab_command(ctx: click.Context, lab_args: tuple[str, ...]) -> None:
    """Open JupyterLab on the report notebooks (notebooks/), in this environment.

    Other arguments go to JupyterLab (``workbench lab --no-browser --port 8890``); as root,
    ``--allow-root`` is added. Stopping this command (Ctrl-C, SIGTERM) shuts the server down."""
    from ..report import lab_argv, notebooks_dir, serve_lab

    ctx.exit(serve_lab(lab_argv(lab_args, notebooks_dir())))
