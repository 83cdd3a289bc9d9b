"""The click commands of this package: ``mine``, ``import`` and ``export`` (registered by ``cli.py``)."""
from __future__ import annotations

from pathlib import Path

import click


def _date(value: str | None, end: bool, flag: str) -> int | None:
    from .mine import parse_date
    if value is None:
        return None
    try:
        return parse_date(value, end=end)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint=flag) from None


@click.command("mine")
@click.argument("repo", type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Corpus file to write (default: print it). An existing file needs --append.")
@click.option("--since", default=None, metavar="D", help="Only commits from this date (YYYY-MM-DD or ISO time, UTC).")
@click.option("--until", default=None, metavar="D", help="Only commits up to this date (inclusive).")
@click.option("--max-cases", type=click.IntRange(min=1), default=200, show_default=True,
              help="At most this many cases, spread evenly over the history.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed for picking the cases (same seed, same cases).")
@click.option("--path", "paths", multiple=True, metavar="GLOB",
              help="Only commits whose source files all match one of these globs (repeatable, .gitignore syntax).")
@click.option("--with-body", is_flag=True, help="Add the first paragraph of the commit body to the query.")
@click.option("--append", is_flag=True, help="Merge into the existing --out corpus, keeping its other content.")
@click.option("--dry-run", is_flag=True, help="Write nothing; print how many commits each filter dropped.")
def mine_command(repo: Path, out: Path | None, since: str | None, until: str | None, max_cases: int, seed: int,
                 paths: tuple[str, ...], with_body: bool, append: bool, dry_run: bool) -> None:
    """Mine retrieval cases from the git history of REPO (a work tree, bare repository or .bundle).

    Keeps non-merge commits whose message describes a change (no releases, reverts, version
    bumps, docs/CI/style/dependency-only changes or bots) and that modify 1-3 existing
    non-test source files; each becomes a case at the parent revision expecting those files.
    REPO is only read: its work tree, index, HEAD, refs and worktrees are never touched.
    """
    from ..cli import split_values
    from .filters import MineOptions
    from .mine import mine_corpus
    options = MineOptions(since=_date(since, False, "--since"), until=_date(until, True, "--until"),
                          paths=tuple(split_values(paths)), with_body=with_body)
    result, text = mine_corpus(repo, out, append=append, dry_run=dry_run, options=options, max_cases=max_cases,
                               seed=seed)
    if dry_run:
        click.echo(result.drop_table())
        return
    if text is not None:
        click.echo(text, nl=False)
    shapes: dict[str, int] = {}
    for case in result.cases:
        shapes[case["shape"]] = shapes.get(case["shape"], 0) + 1
    where = f" -> {out}" if out else ""
    click.echo(f"mined {len(result.cases)} case(s) from {result.commits} commits of {result.repo.name} "
               f"({result.candidates} candidates; " + ", ".join(f"{k} {v}" for k, v in sorted(shapes.items()))
               + f"){where}", err=True)
