"""``workbench interleave``: team-draft interleaving of two engines, simulated from the labels."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..options import InterleaveOptions
from .shared import CORPUS_OPTION, options_from, split_targets

INTERLEAVE = InterleaveOptions()  # the flags' defaults are the options' own


@click.group("interleave")
def interleave_group() -> None:
    """Team-draft interleaving of two engines: which one the agent's clicks prefer."""


@interleave_group.command("simulate")
@CORPUS_OPTION
@click.option(
    "--target",
    "targets",
    multiple=True,
    required=True,
    help="Engine A, then engine B (give --target twice; a spec as for `workbench run`).",
)
@click.option(
    "--click-model",
    default=INTERLEAVE.click_model,
    show_default=True,
    help="The simulated agent: perfect, navigational or informational (cascade models, EVALS.md).",
)
@click.option("--seed", type=int, default=INTERLEAVE.seed, show_default=True, help="Seed of coins and clicks.")
@click.option(
    "--resamples",
    type=int,
    default=INTERLEAVE.resamples,
    show_default=True,
    help="Resamples per corpus size for the measured sensitivity (>= 1).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result (counts, p, interval, sensitivity) as JSON.")
def simulate_command(corpus_path: Path, targets: tuple[str, ...], as_json: bool, **params: object) -> None:
    """Interleave A's and B's context packs per retrieval case, simulate clicks from the labels, and
    report wins/ties/losses, the sign test, a bootstrap interval of the preference and the power of
    interleaving against the offline paired test over resamples of the corpus."""
    from ..online import render_text, simulate_interleaving

    options = options_from(InterleaveOptions, params, targets=split_targets(targets))
    result = simulate_interleaving(
        corpus_path,
        list(options.targets),
        click_model_name=options.click_model,
        seed=options.seed,
        resamples=options.resamples,
    )
    click.echo(json.dumps(result.to_dict(), indent=2) if as_json else render_text(result))


@interleave_group.command("analyze")
@click.argument("log", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--seed", type=int, default=INTERLEAVE.seed, show_default=True, help="Seed of the bootstrap.")
@click.option("--json", "as_json", is_flag=True, help="Print counts, problems, the preference and tasks as JSON.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also write interleaving.json and the report page interleaving.html (preference over time, "
    "per repository, tasks each engine won) into this directory.",
)
def analyze_command(log: Path, seed: int, as_json: bool, out: Path | None) -> None:
    """Read an impression log (serve --interleave, or any harness writing its format) into wins/ties/
    losses, the sign test and the preference interval. Malformed lines, duplicate impressions, unknown
    impressions, duplicate feedback and paths not shown are counted and reported, never fatal."""
    from ..online import analyze_log, render_log_text

    options = InterleaveOptions(seed=seed)
    found = analyze_log(log, seed=options.seed)
    click.echo(json.dumps(found.to_dict(), indent=2) if as_json else render_log_text(found))
    if out is not None:
        from ..report import render_interleaving

        page = render_interleaving(found.to_dict(), out)
        click.echo(f"report: {page}", err=True)
