"""The ``workbench`` command: a thin click layer over the library.

Exit codes: 0 ok; 1 thresholds not met or a gate/regression verdict failed;
2 usage error; 3 a WorkbenchError (one line, no traceback); 4 an internal error.
"""
from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import Any

import click

from .errors import RunStopped, WorkbenchError

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ERROR, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT
CORPUS_OPTION = click.option("--corpus", "corpus_path", type=click.Path(path_type=Path),
                             default=Path("corpus/corpus.json"), show_default=True,
                             help="Corpus file to read.")


def split_values(values: tuple[str, ...]) -> list[str]:
    """Repeatable options also accept comma lists: ``--suite a --suite b,c`` -> ``[a, b, c]``."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def parse_shard(value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    try:
        index, count = (int(part) for part in value.split("/"))
    except ValueError:
        raise click.BadParameter("expected I/N, e.g. 0/4", param_hint="--shard") from None
    if count < 1 or not 0 <= index < count:
        raise click.BadParameter("expected 0 <= I < N", param_hint="--shard")
    return index, count


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="workbench")
def cli() -> None:
    """Evaluate code-context engines against a labelled corpus.

    Runs eval suites into tidy DataFrames (reports/runs/<run-id>/), renders notebook
    reports, compares runs and keeps baselines. Exit codes: 0 ok, 1 thresholds or gate
    failed, 2 usage error, 3 bad input or unreachable target, 4 internal error.
    """


@cli.command("run")
@CORPUS_OPTION
@click.option("--suite", "suites", multiple=True, help="Suite to run (repeatable or comma list; default: every suite with cases).")
@click.option("--target", "targets", multiple=True, help="builtin, random, bm25, cmd:<command>, http://host:port, python:<module>:<factory> (repeatable).")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=Path("reports/runs"), show_default=True, help="Directory that receives the run directory.")
@click.option("--baseline", "baseline", default=None, help="Compare with this baseline (name or path) and mark regressions.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary object as JSON instead of the scoreboard.")
@click.option("--strict", is_flag=True, help="Stop at the first case that errors.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=60.0, show_default=True, help="Seconds per engine request.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Cases run concurrently per target.")
@click.option("--shard", default=None, help="Run only shard I of N (I/N, zero-based); merge shards with `workbench merge`.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the random control and any sampling.")
@click.option("--deadline", type=click.FloatRange(min=0), default=None,
              help="Seconds the whole run may take: no case starts after it; cases not reached are errors "
                   "(exit 1) and the journal is kept for --resume.")
@click.option("--resume", "resume", metavar="RUN", default=None,
              help="Finish an interrupted run (a run id under --out, or its .<run-id>.journal path): reuse its "
                   "saved cases, run the rest, write it under its own run id. The corpus, suites, targets, "
                   "seed, shard, timeout, --repeat and --strict come from the run's journal; giving a different one is "
                   "an error.")
@click.option("--executor", default="local", show_default=True, metavar="local|ray[:ADDRESS]",
              help="Where cases run: here (--jobs threads), or on Ray (no ADDRESS: $RAY_ADDRESS or a local Ray).")
@click.option("--repeat", type=click.IntRange(min=1), default=1, show_default=True,
              help="Run every case N times: pass^k, pass@k, flaky cases; metrics are each case's mean.")
@click.option("--cache", is_flag=True, help="Reuse unchanged passing answers of builtin and the controls (no latency).")
@click.pass_context
def run_command(ctx: click.Context, corpus_path: Path, suites: tuple[str, ...], targets: tuple[str, ...],
                out_dir: Path, baseline: str | None, as_json: bool, strict: bool, timeout: float, jobs: int,
                shard: str | None, seed: int, deadline: float | None, resume: str | None, **scale: Any) -> None:
    """Run suites against targets; exit 1 when a threshold floor is not met.

    Every finished case is saved as it ends, so a run that is interrupted (Ctrl-C, a crash,
    --strict) can be finished with --resume, which runs only the cases not saved yet.
    """
    from .report import render_scoreboard
    from .run import run_eval
    deciding = {"suites": split_values(suites) or None, "targets": split_values(targets) or None, "strict": strict,
                "timeout": timeout, "seed": seed, "shard": parse_shard(shard), "repeat": scale.pop("repeat")}
    if resume is not None:  # only what the user typed, to be checked against the journal
        deciding = {key: value for key, value in deciding.items() if _given(ctx, key)}
    try:
        result = run_eval(None if resume and not _given(ctx, "corpus_path") else corpus_path,
                          out_dir=out_dir, baseline=baseline, progress=not as_json, jobs=jobs,
                          deadline=deadline, resume=resume, **scale, **deciding)
    except RunStopped as stopped:
        click.echo(stopped.hint(), err=True)
        raise stopped.cause from None
    if as_json:
        click.echo(json.dumps(result.summary, indent=2))
    else:
        from .analysis import regression_keys
        click.echo(render_scoreboard(result.summary, k=result.manifest["corpus"]["k"],
                                     regressions=regression_keys(result.summary.get("baseline") or {})))
    cut = result.summary.get("deadline")
    if cut:
        click.echo(f"--deadline {cut['seconds']:g}s passed: {cut['not_run']} case(s) not run; "
                   f"run them with --resume {result.run_id}", err=True)
    ctx.exit(EXIT_OK if result.summary["passed"] else EXIT_FAILED)


def _given(ctx: click.Context, name: str) -> bool:
    """Whether the user gave option ``name`` (not its default)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source != click.core.ParameterSource.DEFAULT


@cli.command("validate")
@CORPUS_OPTION
@click.pass_context
def validate_command(ctx: click.Context, corpus_path: Path) -> None:
    """Check a corpus: schema, fixtures, expected files. Exit 3 on any problem."""
    from .corpus import validate_corpus
    problems = validate_corpus(corpus_path)
    for problem in problems:
        click.echo(f"{corpus_path}: {problem}", err=True)
    if problems:
        click.echo(f"{len(problems)} problem(s) in {corpus_path}", err=True)
        ctx.exit(EXIT_ERROR)
    click.echo(f"{corpus_path}: ok")


@cli.command("merge")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=Path("reports/runs"), show_default=True, help="Directory that receives the merged run.")
@click.option("--json", "as_json", is_flag=True, help="Print the merged summary as JSON.")
@click.pass_context
def merge_command(ctx: click.Context, runs: tuple[Path, ...], out_dir: Path, as_json: bool) -> None:
    """Merge shard runs (same corpus) into one run; exit 1 when the merged run fails its floors."""
    from .report import render_scoreboard
    from .run import merge_runs
    merged = merge_runs(list(runs), out_dir)
    click.echo(json.dumps(merged.summary, indent=2) if as_json
               else render_scoreboard(merged.summary, k=merged.manifest["corpus"]["k"]))
    ctx.exit(EXIT_OK if merged.summary["passed"] else EXIT_FAILED)


def parse_repo(values: tuple[str, ...]) -> dict[str, Path]:
    repos = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not Path(path).is_dir():
            raise click.BadParameter(f"expected NAME=DIR with an existing DIR, got {value!r}", param_hint="--repo")
        repos[name] = Path(path).resolve()
    return repos


@cli.command("serve")
@click.option("--corpus", "corpus_path", type=click.Path(path_type=Path), default=None, help="Also resolve repo names to this corpus's fixtures.")
@click.option("--repo", "repo_args", multiple=True, help="NAME=PATH: a repository served, named by NAME (repeatable).")
@click.option("--target", "target_spec", default="builtin", show_default=True, help="Engine to serve.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="0 picks a free port.")
@click.option("--allow-exec", is_flag=True, help="Let gate requests run the served repositories' validation commands.")
def serve_command(corpus_path: Path | None, repo_args: tuple[str, ...], target_spec: str, host: str, port: int,
                  allow_exec: bool) -> None:
    """Serve an engine over the JSON protocol (POST /v1/<capability>) until interrupted.

    Requests name repositories only by the names given here (--repo, --corpus fixtures); a path in a
    request is ignored. Only application/json bodies from a loopback Host are answered."""
    from .corpus import load_corpus
    from .targets import Dispatcher, make_server, resolve_target
    repos = dict(load_corpus(corpus_path).fixtures) if corpus_path else {}
    repos.update(parse_repo(repo_args))
    server = make_server(Dispatcher(resolve_target(target_spec), repos, allow_exec=allow_exec), host, port)
    click.echo(f"serving {target_spec} on http://{host}:{server.server_port} (Ctrl-C stops)", err=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()


RUNS_DIR_OPTION = click.option("--runs-dir", type=click.Path(path_type=Path), default=Path("reports/runs"),
                               show_default=True, help="Where run ids are looked up.")


@cli.command("compare")
@click.argument("side_a", metavar="A")
@click.argument("side_b", metavar="B")
@click.option("--gate", default=None, help="Gate rule: go-code, retrieval, none, or key=value pairs "
              "(primary=mrr,noninferior=recallAtK,margin=0.02,alpha=0.05,test=t). Default: the first preset both sides have metrics for.")
@click.option("--json", "as_json", is_flag=True, help="Print {verdict, comparisons, cases} as JSON.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the bootstrap and randomization test.")
@CORPUS_OPTION
@RUNS_DIR_OPTION
@click.pass_context
def compare_command(ctx: click.Context, side_a: str, side_b: str, gate: str | None, as_json: bool, seed: int,
                    corpus_path: Path, runs_dir: Path) -> None:
    """Compare B with A case by case (RUN, RUN#TARGET or a baseline name); exit 1 when the gate fails."""
    from .analysis import compare, resolve_side
    baselines = corpus_path.parent / "baselines"
    result = compare(resolve_side(side_a, runs_dir, baselines), resolve_side(side_b, runs_dir, baselines),
                     gate=gate, seed=seed)
    click.echo(json.dumps(result.to_dict(), indent=2) if as_json else result.to_markdown())
    ctx.exit(EXIT_FAILED if result.failed else EXIT_OK)


@cli.group("baseline")
def baseline_group() -> None:
    """Record, list and show baselines (<corpus dir>/baselines/<name>.json)."""


@baseline_group.command("record")
@click.argument("run_spec", metavar="RUN")
@click.option("--name", required=True, help="Baseline name (the file is <name>.json).")
@CORPUS_OPTION
@click.option("--write-thresholds", is_flag=True, help="Also rewrite the corpus floors and the EVALS.md baseline table.")
@click.option("--slack", type=click.FloatRange(min=0), default=0.02, show_default=True, help="Floor = baseline minus slack (pass rates: one more failure trips it).")
@click.option("--force", is_flag=True, help="Overwrite an existing baseline of that name.")
@RUNS_DIR_OPTION
def baseline_record_command(run_spec: str, name: str, corpus_path: Path, write_thresholds: bool, slack: float,
                            force: bool, runs_dir: Path) -> None:
    """Record RUN (or RUN#TARGET) as baseline NAME."""
    from .analysis import resolve_run
    from .errors import StoreError
    from .store import record_baseline
    run = resolve_run(run_spec, runs_dir)
    if run is None:
        raise StoreError(f"{run_spec}: not a run directory or a run id in {runs_dir}")
    path = record_baseline(run, name, corpus_path, write_thresholds=write_thresholds, slack=slack, force=force)
    click.echo(f"wrote {path}" + (f"; floors rewritten in {corpus_path}" if write_thresholds else ""))


@baseline_group.command("list")
@CORPUS_OPTION
def baseline_list_command(corpus_path: Path) -> None:
    """List the recorded baselines."""
    from .store import list_baselines
    frame = list_baselines(corpus_path.parent / "baselines")
    good = frame[frame["error"].isna()].drop(columns="error")
    click.echo(good.to_string(index=False) if len(good) else f"no baselines in {corpus_path.parent / 'baselines'}")
    for error in frame["error"].dropna():
        click.echo(f"skipped {error}", err=True)


@baseline_group.command("show")
@click.argument("name")
@CORPUS_OPTION
def baseline_show_command(name: str, corpus_path: Path) -> None:
    """Show a baseline's provenance, metrics and floors."""
    from .store import baseline_table, load_baseline
    base = load_baseline(name, corpus_path.parent / "baselines")
    click.echo(f"Baseline {base.name} ({base.path}, {len(base.cases)} cases)\n\n{baseline_table(base.data)}")

def _repo_arg(path: Path) -> Any:
    """A Repo named after its directory."""
    from .contract import Repo
    return Repo(path.resolve().name, path.resolve())


@cli.command("pack")
@click.argument("query")
@click.option("--repo", "repos", multiple=True, required=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Repository to pack from (repeatable: a multi-repo pack pairs routes with clients).")
@click.option("--limit", type=click.IntRange(min=1), default=8, show_default=True, help="Most files in the pack.")
@click.option("--json", "as_json", is_flag=True, help="Print the pack, with each file's reason and the agent text, as JSON.")
def pack_command(query: str, repos: tuple[Path, ...], limit: int, as_json: bool) -> None:
    """The reference engine as a tool: the files an agent should read for QUERY."""
    from .reference import build_pack, format_pack, pack_to_json
    pack = build_pack(query, [_repo_arg(path) for path in repos], limit)
    click.echo(json.dumps(pack_to_json(pack), indent=2) if as_json else format_pack(pack))


@cli.command("harness")
@click.argument("repo", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the groups as the protocol's JSON.")
def harness_command(repo: Path, as_json: bool) -> None:
    """Infer a repository's setup/validate/runtime commands with the reference engine (nothing is run)."""
    from .reference import infer_harness
    from .targets import encode_answer
    groups = infer_harness(_repo_arg(repo))
    if as_json:
        click.echo(json.dumps(encode_answer("infer_harness", groups), indent=2))
        return
    for group, commands in groups.items():
        click.echo(f"{group}:" + ("" if commands else " (none)"))
        for command in commands:
            click.echo(f"  {command.kind:<10} {command.command}")


@cli.command("gate")
@click.argument("repo", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--base", default="HEAD", show_default=True, help="Revision the change is judged against.")
@click.option("--staged", is_flag=True, help="Judge the staged change (always the case; accepted for solumbe compatibility).")
@click.option("--policy", default=None, help="standard, high-risk or company.")
@click.option("--governance", default=None, help="solo, team or company.")
@click.option("--request", default=None, help="The task the change claims to do (for convergence).")
@click.option("--min-convergence", type=float, default=None, help="Minimum convergence, 0-1 (or a percentage).")
@click.option("--run-validation", is_flag=True, help="Run the base-committed validation policy's commands.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict and checks as JSON.")
@click.pass_context
def gate_command(ctx: click.Context, repo: Path, base: str, staged: bool, policy: str | None,
                 governance: str | None, request: str | None, min_convergence: float | None,
                 run_validation: bool, as_json: bool) -> None:
    """Run the reference engine's local merge gate on a repository; exit 1 on FAIL."""
    from .reference import run_gate
    from .targets import encode_answer
    options = {"base": base, "staged": True, "policy": policy, "governance": governance, "request": request,
               "minConvergence": min_convergence, "runValidation": run_validation}
    result = run_gate(_repo_arg(repo), options)
    if as_json:
        click.echo(json.dumps(encode_answer("gate", result), indent=2))
    else:
        for check in result.checks:
            click.echo(f"[{check.status:<7}] {check.name}: {check.summary}")
            for detail in check.details:
                click.echo(f"            {detail}")
        click.echo(f"Verdict: {result.verdict}")
    ctx.exit(EXIT_FAILED if result.verdict == "FAIL" else EXIT_OK)


@cli.command("report")
@click.argument("run_dir", metavar="[RUN]", required=False)
@CORPUS_OPTION
@click.option("--baseline", default=None,
              help="Compare with a baseline (a name among the corpus's baselines, or a file), a run or RUN#TARGET.")
@click.option("--runs-dir", type=click.Path(path_type=Path), default=Path("reports/runs"), show_default=True,
              help="Where run ids are looked up.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=Path("reports/html"), show_default=True,
              help="Directory that receives <run-id>/index.html and the pages.")
@click.option("--open", "open_page", is_flag=True, help="Open index.html in a browser when done.")
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Notebooks executed at once (default: one per core).")
@click.option("--timeout", type=click.FloatRange(min=1), default=300.0, show_default=True, help="Seconds allowed per notebook.")
def report_command(run_dir: str | None, corpus_path: Path, baseline: str | None, runs_dir: Path, out_dir: Path,
                   open_page: bool, jobs: int | None, timeout: float) -> None:
    """Render the report notebooks of RUN (a run directory or run id; default: the latest) to HTML
    and print index.html's path.

    A notebook that fails still gets its partial page; the command then exits 3 naming the notebook and cell.
    """
    import webbrowser

    from .report import render_report
    result = render_report(run_dir, baseline=baseline, out_dir=out_dir, jobs=jobs, timeout=timeout,
                           corpus=corpus_path, runs_dir=runs_dir)
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
    from .report import lab_argv, notebooks_dir, serve_lab
    ctx.exit(serve_lab(lab_argv(lab_args, notebooks_dir())))


def _register_mining() -> None:
    from .mining import export_command, import_command, mine_command
    for command in (mine_command, import_command, export_command):
        cli.add_command(command)


_register_mining()


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI and map outcomes to the documented exit codes."""
    try:
        code = cli.main(args=argv, prog_name="workbench", standalone_mode=False)
    except click.exceptions.Abort as exc:  # click turns Ctrl-C into Abort: not a failed threshold
        interrupted = isinstance(exc.__cause__, KeyboardInterrupt)
        click.echo("interrupted" if interrupted else "aborted", err=True)
        code = EXIT_INTERRUPTED if interrupted else EXIT_FAILED
    except click.exceptions.ClickException as exc:
        exc.show()
        code = EXIT_USAGE if isinstance(exc, click.UsageError) else exc.exit_code
    except WorkbenchError as exc:
        click.echo(f"error: {exc}", err=True)
        code = EXIT_ERROR
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        code = EXIT_INTERRUPTED
    except Exception:
        traceback.print_exc()
        click.echo("internal error (exit 4): please report this with the traceback above", err=True)
        code = EXIT_INTERNAL
    return int(code or 0) if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
