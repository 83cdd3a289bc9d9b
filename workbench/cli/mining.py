"""``workbench mine``, ``import`` and ``export``: corpora from git history, and other tools' formats in and out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from ..options import CalibrateOptions, MineOptions
from ..paths import DEFAULT_RUNS_DIR, check_path_length
from .shared import options_from, split_values, stdout_to_stderr

if TYPE_CHECKING:
    from ..calibration import Calibration
    from ..mining import MineResult

MINE, CALIBRATE = MineOptions(), CalibrateOptions()  # the flags' defaults are the options' own


def _date(value: str | None, end: bool, flag: str) -> int | None:
    from ..mining import parse_date

    if value is None:
        return None
    try:
        return parse_date(value, end=end)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint=flag) from None


@click.command("mine")
@click.argument("repo", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=MINE.out,
    help="Corpus file to write (default: print it). An existing file needs --append.",
)
@click.option("--since", default=None, metavar="D", help="Only commits from this date (YYYY-MM-DD or ISO time, UTC).")
@click.option("--until", default=None, metavar="D", help="Only commits up to this date (inclusive).")
@click.option(
    "--max-cases",
    type=int,
    default=MINE.max_cases,
    show_default=True,
    help="At most this many cases (>= 1), spread evenly over the history.",
)
@click.option(
    "--seed",
    type=int,
    default=MINE.seed,
    show_default=True,
    help="Seed for picking the cases, >= 0 (same seed, same cases).",
)
@click.option(
    "--path",
    "paths",
    multiple=True,
    metavar="GLOB",
    help="Only commits whose source files all match one of these globs (repeatable, .gitignore syntax).",
)
@click.option(
    "--ext",
    "extensions",
    multiple=True,
    metavar="EXT",
    help="Only these source languages, by extension (repeatable or comma list: --ext .go,.py; "
    "default: every language the reference engine parses).",
)
@click.option("--with-body", is_flag=True, help="Add the first paragraph of the commit body to the query.")
@click.option("--append", is_flag=True, help="Merge into the existing --out corpus, keeping its other content.")
@click.option("--dry-run", is_flag=True, help="Write nothing; print how many commits each filter dropped.")
@click.option(
    "--name",
    default=MINE.name,
    metavar="NAME",
    help="The fixture name (default: the repository's folder without .git; a bare or 'repo' folder "
    "takes its remote's name).",
)
@click.option(
    "--ranking",
    is_flag=True,
    help="Also write the cases that have expectedSymbols as a ranking golden (go-code JSONL, one query "
    "per revision) beside --out, and a `ranking` set for it, so symbol search is measured on real history.",
)
def mine_command(repo: Path, **params: object) -> None:
    """Mine retrieval cases from the git history of REPO (a work tree, bare repository or .bundle).

    Keeps non-merge commits whose message describes a change (no releases, reverts, version
    bumps, docs/CI/style/dependency-only changes or bots) and that modify 1-3 existing
    non-test source files; each becomes a case at the parent revision expecting those files
    (and, as expectedSymbols, the definitions the diff edits there).
    REPO is only read: its work tree, index, HEAD, refs and worktrees are never touched.
    """
    from ..mining import mine_corpus

    options = mine_options(params)
    result, text = mine_corpus(repo, options)
    if options.dry_run:
        click.echo(result.drop_table())
        return
    if text is not None:
        click.echo(text, nl=False)
    for line in _mined_lines(result, options.out):
        click.echo(line, err=True)


def mine_options(params: Mapping[str, object]) -> MineOptions:
    """The ``MineOptions`` of ``mine``'s parameters: dates parsed, comma lists split, extensions checked."""
    extensions = cast(tuple[str, ...], params["extensions"])
    return options_from(
        MineOptions,
        params,
        since=_date(cast(str | None, params["since"]), False, "--since"),
        until=_date(cast(str | None, params["until"]), True, "--until"),
        paths=tuple(split_values(cast(tuple[str, ...], params["paths"]))),
        extensions=_extensions(extensions) if extensions else None,
    )


def _mined_lines(result: MineResult, out: Path | None) -> list[str]:
    """What ``mine`` says on stderr: the cases by shape, and the ranking golden written."""
    shapes = Counter(case["shape"] for case in result.cases)
    where = f" -> {out}" if out else ""
    lines = [
        f"mined {len(result.cases)} case(s) from {result.commits} commits of {result.repo.name} "
        f"({result.candidates} candidates; " + ", ".join(f"{k} {v}" for k, v in sorted(shapes.items())) + f"){where}"
    ]
    if result.ranking is not None:
        path, count = result.ranking
        lines.append(f"ranking: {count} quer{'y' if count == 1 else 'ies'} with gold symbols -> {path}")
    return lines


def _extensions(given: tuple[str, ...]) -> frozenset[str]:
    """``--ext`` values as extensions with their dot (``go`` -> ``.go``); a usage error names an unknown one."""
    from ..code import CODE_EXTENSIONS

    wanted = {"." + e.strip().lower().lstrip(".") for e in split_values(given)}
    unknown = sorted(wanted - CODE_EXTENSIONS)
    if unknown:
        known = " ".join(sorted(CODE_EXTENSIONS))
        raise click.BadParameter(
            f"{', '.join(unknown)} is not a language the engine parses ({known})", param_hint="--ext"
        )
    return frozenset(wanted)


@click.command("import")
@click.argument("kind", type=click.Choice(["swebench", "trec", "go-code"]), metavar="swebench|trec|go-code")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--repos",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="swebench: the directory holding a clone of each instance's repo (<name>, <owner>__<name>, "
    "<owner>/<name>, .git or .bundle); trec and go-code: the documents' root (optional).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Corpus file to write (swebench: default prints it; trec and go-code: required).",
)
@click.option(
    "--runs-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_RUNS_DIR,
    show_default=True,
    help="Where trec and go-code write the imported run.",
)
def import_command(kind: str, files: tuple[Path, ...], repos: Path | None, out: Path | None, runs_dir: Path) -> None:
    """Import FILE... as a corpus (and, for run files, a run).

    swebench: instances (JSON or JSONL: instance_id, repo, base_commit, patch, problem_statement) become
    retrieval cases at base_commit expecting the non-test source files the patch modifies (mine's rule;
    tests go to `tests`, docs, changelogs and added files to `dropped` with why). trec: qrels become a corpus
    and run files a run (one target per run tag). go-code: an eval report's per_query rows become a
    ranking run. Imported runs get workbench's scoring, comparisons and reports.
    """
    if kind == "swebench":
        from ..interchange import import_swebench

        if repos is None:
            raise click.UsageError("swebench needs --repos DIR (local clones of the instances' repositories)")
        data, skipped = import_swebench(list(files), repos, out)
        if out is None:
            from ..mining import corpus_text

            click.echo(corpus_text(data), nl=False)
        note = f"; {skipped} instance(s) skipped (the patch modifies no non-test source file)" if skipped else ""
        click.echo(f"imported {len(data['retrieval'])} case(s){note}" + (f" -> {out}" if out else ""), err=True)
        return
    if out is None:
        raise click.UsageError(f"{kind} needs --out FILE (the corpus the imported run is scored against)")
    if kind == "trec":
        from ..interchange import import_trec

        corpus, run = import_trec(list(files), out, repos, runs_dir)
    else:
        from ..interchange import import_go_code

        corpus, run = import_go_code(list(files), out, repos, runs_dir)
    click.echo(f"corpus: {corpus}")
    if run is not None:
        click.echo(f"run: {run}")


@click.command("export")
@click.argument("run_spec", metavar="RUN")
@click.option("--format", "fmt", type=click.Choice(["trec"]), required=True, help="Output format.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Directory for qrels.txt and <target>.run (default: reports/trec/<run-id>).",
)
@click.option(
    "--runs-dir",
    type=click.Path(path_type=Path),
    default=DEFAULT_RUNS_DIR,
    show_default=True,
    help="Where run ids are looked up.",
)
def export_command(run_spec: str, fmt: str, out_dir: Path | None, runs_dir: Path) -> None:
    """Write RUN's retrieval results as TREC qrels and run files (pytrec_eval, ranx and trec_eval read them)."""
    from ..interchange import export_trec
    from ..paths import DEFAULT_TREC_DIR, Locations

    side = Locations(runs=runs_dir).run(run_spec)
    for path in export_trec(side.path, out_dir or DEFAULT_TREC_DIR / side.path.name, side.target):
        click.echo(path)


@click.command("calibrate")
@click.argument("repo", type=click.Path(path_type=Path))
@click.option(
    "--target", default=CALIBRATE.target, show_default=True, help="Target whose risk_concepts flag the changes."
)
@click.option(
    "--window",
    default=CALIBRATE.window,
    show_default=True,
    metavar="W",
    help="How long after a change a revert or fix counts: days (90d, or 90) or later commits (200c).",
)
@click.option("--since", default=None, metavar="D", help="Only changes from this date (YYYY-MM-DD or ISO time, UTC).")
@click.option("--max-commits", type=int, default=CALIBRATE.max_commits, help="Read only the newest N commits.")
@click.option(
    "--gate-changes",
    type=int,
    default=CALIBRATE.gate_changes,
    show_default=True,
    metavar="N",
    help="Where the target has a gate: judge the newest N observed changes (0: none).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also write calibration.json and the report page calibration.html into this directory.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def calibrate_command(repo: Path, out: Path | None, as_json: bool, **params: object) -> None:
    """Check whether TARGET's risk flags and gate verdicts predict reverts and fixes in REPO's history.

    Every non-merge commit is a change; it is *reverted* when a later commit within the window says
    "This reverts commit <sha>" or applies its exact inverse diff, and *fixed* when a later fix commit
    (subject says fix, bug, hotfix, regression, crash, broken or oops) changes a line blame attributes
    to it. Per flag (concept:<label>, any concept, gate-mode, secret-mode, and gate:FAIL, gate:WARN or
    FAIL, gate check:<name> where the target has a gate) it prints changes flagged, the outcome rate
    flagged vs unflagged with Wilson 95% intervals, and the lift; a figure over fewer than 30
    observed changes is withheld, with its count. REPO is only read.
    """
    import json

    from ..calibration import render_text

    options = options_from(CalibrateOptions, params, since=_date(cast(str | None, params["since"]), False, "--since"))
    with stdout_to_stderr(as_json):  # a target's prints never get into the JSON
        result = _calibrated(repo, options)
    data = result.to_json()
    click.echo(json.dumps(data, indent=2, allow_nan=False) if as_json else render_text(result))
    if out is not None:
        from ..report import render_calibration

        page = render_calibration(data, out)
        click.echo(f"report: {page}", err=True)


def _calibrated(repo: Path, options: CalibrateOptions) -> Calibration:
    """The one library call: ``calibrate`` with the options' target (closed after) and window."""
    from ..calibration import calibrate, parse_window
    from ..targets import close_target, resolve_target

    check_path_length(repo, "REPO")
    try:
        span = parse_window(options.window)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--window") from None
    target = resolve_target(options.target)
    try:
        return calibrate(
            repo,
            target,
            span,
            options.max_commits,
            since=options.since,
            gate_changes=options.gate_changes,
            progress=options.progress,
        )
    finally:
        close_target(target)
