"""The reference engine as tools (``pack``, ``harness``, ``gate``) and any engine over HTTP (``serve``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ..contract import PACK_LIMIT
from .shared import EXIT_FAILED, EXIT_OK, split_targets


def parse_repo(values: tuple[str, ...]) -> dict[str, Path]:
    repos = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not Path(path).is_dir():
            raise click.BadParameter(f"expected NAME=DIR with an existing DIR, got {value!r}", param_hint="--repo")
        repos[name] = Path(path).resolve()
    return repos


@click.command("serve")
@click.option(
    "--corpus",
    "corpus_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Also resolve repo names to this corpus's fixtures.",
)
@click.option("--repo", "repo_args", multiple=True, help="NAME=PATH: a repository served, named by NAME (repeatable).")
@click.option("--target", "target_spec", default="builtin", show_default=True, help="Engine to serve.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="0 picks a free port.")
@click.option("--allow-exec", is_flag=True, help="Let gate requests run the served repositories' validation commands.")
@click.option(
    "--interleave",
    default=None,
    metavar="A,B",
    help="Answer context_pack with a team-draft interleaving of engines A and B (instead of --target), "
    "with an impression id, and take POST /v1/feedback.",
)
@click.option(
    "--log",
    "log_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path("reports/interleave/impressions.jsonl"),
    show_default=True,
    help="With --interleave: the JSONL impression log, appended to.",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="With --interleave: coin seed.")
def serve_command(
    corpus_path: Path | None,
    repo_args: tuple[str, ...],
    target_spec: str,
    host: str,
    port: int,
    allow_exec: bool,
    interleave: str | None,
    log_path: Path,
    seed: int,
) -> None:
    """Serve an engine over the JSON protocol (POST /v1/<capability>) until interrupted.

    Requests name repositories only by the names given here (--repo, --corpus fixtures); a path in a
    request is ignored. Only application/json bodies from a loopback Host are answered."""
    from ..corpus import load_corpus
    from ..targets import Dispatcher, make_server, resolve_target

    repos = dict(load_corpus(corpus_path).fixtures) if corpus_path else {}
    repos.update(parse_repo(repo_args))
    if interleave is None:
        dispatcher = Dispatcher(resolve_target(target_spec), repos, allow_exec=allow_exec)
    else:
        from ..online import InterleavingDispatcher

        pair = split_targets((interleave,))
        if len(pair) != 2:
            raise click.BadParameter(f"expected two engines A,B, got {interleave!r}", param_hint="--interleave")
        a, b = (resolve_target(spec, seed) for spec in pair)
        dispatcher = InterleavingDispatcher(a, b, repos, log_path, seed=seed, allow_exec=allow_exec)
        target_spec = f"{pair[0]} interleaved with {pair[1]}, logging to {log_path}"
    server = make_server(dispatcher, host, port)
    click.echo(f"serving {target_spec} on http://{host}:{server.server_port} (Ctrl-C stops)", err=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()


def _repo_arg(path: Path) -> Any:
    """A Repo named after its directory."""
    from ..contract import Repo

    return Repo(path.resolve().name, path.resolve())


@click.command("pack")
@click.argument("query")
@click.option(
    "--repo",
    "repos",
    multiple=True,
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Repository to pack from (repeatable: a multi-repo pack pairs routes with clients).",
)
@click.option(
    "--limit", type=click.IntRange(min=1), default=PACK_LIMIT, show_default=True, help="Most files in the pack."
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the pack, with each file's reason and the agent text, as JSON."
)
def pack_command(query: str, repos: tuple[Path, ...], limit: int, as_json: bool) -> None:
    """The reference engine as a tool: the files an agent should read for QUERY."""
    from ..reference import build_pack, format_pack, pack_to_json

    pack = build_pack(query, [_repo_arg(path) for path in repos], limit)
    click.echo(json.dumps(pack_to_json(pack), indent=2) if as_json else format_pack(pack))


@click.command("harness")
@click.argument("repo", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the groups as the protocol's JSON.")
def harness_command(repo: Path, as_json: bool) -> None:
    """Infer a repository's setup/validate/runtime commands with the reference engine (nothing is run)."""
    from ..reference import infer_harness
    from ..wire import encode_answer

    groups = infer_harness(_repo_arg(repo))
    if as_json:
        click.echo(json.dumps(encode_answer("infer_harness", groups), indent=2))
        return
    for group, commands in groups.items():
        click.echo(f"{group}:" + ("" if commands else " (none)"))
        for command in commands:
            click.echo(f"  {command.kind:<10} {command.command}")


@click.command("gate")
@click.argument("repo", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--base", default="HEAD", show_default=True, help="Revision the change is judged against.")
@click.option(
    "--staged", is_flag=True, help="Judge the staged change (always the case; accepted for solumbe compatibility)."
)
@click.option("--policy", default=None, help="standard, high-risk or company.")
@click.option("--governance", default=None, help="solo, team or company.")
@click.option("--request", default=None, help="The task the change claims to do (for convergence).")
@click.option("--min-convergence", type=float, default=None, help="Minimum convergence, 0-1 (or a percentage).")
@click.option("--run-validation", is_flag=True, help="Run the base-committed validation policy's commands.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict and checks as JSON.")
@click.pass_context
def gate_command(
    ctx: click.Context,
    repo: Path,
    base: str,
    staged: bool,
    policy: str | None,
    governance: str | None,
    request: str | None,
    min_convergence: float | None,
    run_validation: bool,
    as_json: bool,
) -> None:
    """Run the reference engine's local merge gate on a repository; exit 1 on FAIL."""
    from ..reference import run_gate
    from ..wire import encode_answer

    options = {
        "base": base,
        "staged": True,
        "policy": policy,
        "governance": governance,
        "request": request,
        "minConvergence": min_convergence,
        "runValidation": run_validation,
    }
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
