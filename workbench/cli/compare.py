"""``workbench compare`` and ``workbench baseline``: a run against another run or a recorded baseline."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..options import BaselineOptions
from ..paths import Locations
from .shared import (
    BASELINES_CORPUS_OPTION,
    CORPUS_OPTION,
    EXIT_FAILED,
    EXIT_OK,
    FORMAT_OPTION,
    RUNS_DIR_OPTION,
    options_from,
    split_values,
)


@click.command("compare")
@click.argument("side_a", metavar="A")
@click.argument("side_b", metavar="B")
@click.option(
    "--gate",
    default=None,
    help="Gate rule: go-code, retrieval, none, or key=value pairs "
    "(primary=mrr,noninferior=recallAtK,margin=0.02,alpha=0.05,test=t). "
    "Default: the first preset both sides have metrics for.",
)
@click.option("--json", "as_json", is_flag=True, help="Print {verdict, comparisons, cases} as JSON (--format json).")
@FORMAT_OPTION
@click.option(
    "--on-shared-cases",
    is_flag=True,
    help="Compare runs of different corpora on the case names both have (else different corpora exit 3).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the bootstrap and randomization test.")
@BASELINES_CORPUS_OPTION
@RUNS_DIR_OPTION
@click.pass_context
def compare_command(
    ctx: click.Context,
    side_a: str,
    side_b: str,
    gate: str | None,
    as_json: bool,
    output_format: str,
    on_shared_cases: bool,
    seed: int,
    corpus_path: Path | None,
    runs_dir: Path,
) -> None:
    """Compare B with A case by case (RUN, RUN#TARGET or a baseline name); exit 1 when the gate
    fails or cannot decide (INSUFFICIENT_DATA). Both must have run the same corpus and k (exit 3
    otherwise, unless --on-shared-cases)."""
    from ..analysis import compare, comparison_github, resolve_side
    from ..store import locations_for

    where = locations_for((side_b, side_a), corpus_path, runs_dir)
    result = compare(
        resolve_side(side_a, where),
        resolve_side(side_b, where),
        gate=gate,
        seed=seed,
        on_shared_cases=on_shared_cases,
    )
    output_format = "json" if as_json else output_format
    if output_format == "json":
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        click.echo(comparison_github(result) if output_format == "markdown" else result.to_markdown())
    ctx.exit(EXIT_FAILED if result.failed else EXIT_OK)


@click.group("baseline")
def baseline_group() -> None:
    """Record, list and show baselines (<corpus dir>/baselines/<name>.json)."""


@baseline_group.command("record")
@click.argument("run_spec", metavar="RUN")
@click.option("--name", required=True, help="Baseline name (the file is <corpus dir>/baselines/<name>.json).")
@BASELINES_CORPUS_OPTION
@click.option(
    "--write-thresholds", is_flag=True, help="Also rewrite the corpus floors and the EVALS.md baseline table."
)
@click.option(
    "--slack",
    type=float,
    default=BaselineOptions.slack,  # the flags' defaults are the options' own
    show_default=True,
    help="Floor = baseline minus slack, a finite number >= 0 (pass rates: one more failure trips it).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing baseline of that name.")
@RUNS_DIR_OPTION
def baseline_record_command(run_spec: str, corpus_path: Path | None, runs_dir: Path, **params: object) -> None:
    """Record RUN (or RUN#TARGET) as baseline NAME, in <corpus dir>/baselines/ of the run's corpus."""
    from ..analysis import resolve_run
    from ..store import baseline_corpus, record_baseline

    options = options_from(BaselineOptions, params)
    run = resolve_run(run_spec, Locations.of(corpus_path, runs_dir))
    corpus = baseline_corpus(run, corpus_path)
    path = record_baseline(
        run, options.name, corpus, write_thresholds=options.write_thresholds, slack=options.slack, force=options.force
    )
    click.echo(f"wrote {path}" + (f"; floors rewritten in {corpus}" if options.write_thresholds else ""))


@baseline_group.command("list")
@CORPUS_OPTION
def baseline_list_command(corpus_path: Path) -> None:
    """List the recorded baselines."""
    from ..store import list_baselines

    directory = Locations.of(corpus_path).baselines
    frame = list_baselines(directory)
    good = frame[frame["error"].isna()].drop(columns="error")
    click.echo(good.to_string(index=False) if len(good) else f"no baselines in {directory}")
    for error in frame["error"].dropna():
        click.echo(f"skipped {error}", err=True)


@baseline_group.command("show")
@click.argument("name")
@CORPUS_OPTION
def baseline_show_command(name: str, corpus_path: Path) -> None:
    """Show a baseline's provenance, metrics and floors."""
    from ..store import baseline_table, load_baseline

    base = load_baseline(name, Locations.of(corpus_path).baselines)
    click.echo(f"Baseline {base.name} ({base.path}, {len(base.cases)} cases)\n\n{baseline_table(base.data)}")


@click.command("trend")
@CORPUS_OPTION
@RUNS_DIR_OPTION
@click.option("--since", default=None, help="Only runs created on or after this ISO date or time (2026-12-01).")
@click.option("--target", "targets", multiple=True, help="Only this target (repeatable or comma list).")
@click.option("--metric", "metrics", multiple=True, help="Only this metric (repeatable or comma list).")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="text for a terminal; markdown for a pull-request comment; json (the trend page's input).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write trend.json and the report page trend.html into this directory.",
)
def trend_command(
    corpus_path: Path,
    runs_dir: Path,
    since: str | None,
    targets: tuple[str, ...],
    metrics: tuple[str, ...],
    output_format: str,
    out_dir: Path | None,
) -> None:
    """Every run of a corpus over time: one line per metric and target with its 95% interval,
    grouped by corpus version, every recording of each baseline (earlier ones from git history)
    with its commits, and each significant step between consecutive runs (paired t-test on their
    shared cases)."""
    from ..analysis import trend

    result = trend(corpus_path, runs_dir, since, split_values(targets) or None, split_values(metrics) or None)
    if output_format == "json":
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        click.echo(result.to_markdown() if output_format == "markdown" else result.to_text())
    if out_dir is not None:
        from ..report import render_trend

        click.echo(f"report: {render_trend(result.to_dict(), out_dir)}", err=True)
