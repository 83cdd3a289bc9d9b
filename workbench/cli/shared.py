"""What the command modules share: exit codes, common options, splitting repeatable values, and
building an options value from a command's parameters. Imports no command module."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from ..paths import DEFAULT_CORPUS, DEFAULT_RUNS_DIR

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    Options = TypeVar("Options", bound=DataclassInstance)

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ERROR, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT
CORPUS_OPTION = click.option(
    "--corpus",
    "corpus_path",
    type=click.Path(path_type=Path),
    default=DEFAULT_CORPUS,
    show_default=True,
    help="Corpus file to read.",
)
# Commands that look a baseline name up: in <corpus dir>/baselines/ of --corpus, else of the run's own corpus.
BASELINES_CORPUS_OPTION = click.option(
    "--corpus",
    "corpus_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Corpus whose <corpus dir>/baselines/ holds the baselines named [default: the run's own corpus, "
    "else corpus/corpus.json].",
)
FORMAT_OPTION = click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="text for a terminal; json; markdown (a table and the verdict, under 65,000 characters) "
    "for a pull-request comment or $GITHUB_STEP_SUMMARY.",
)
RUNS_DIR_OPTION = click.option(
    "--runs-dir",
    type=click.Path(path_type=Path),
    default=DEFAULT_RUNS_DIR,
    show_default=True,
    help="Where run ids are looked up.",
)


def split_values(values: tuple[str, ...]) -> list[str]:
    """Repeatable options also accept comma lists: ``--suite a --suite b,c`` -> ``[a, b, c]``."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def split_targets(values: tuple[str, ...]) -> list[str]:
    """Target specs, as ``split_values`` splits them, except that a ``cmd:`` spec runs to the end of
    its value, so its command line may hold commas: ``--target bm25,cmd:engine --modes a,b`` ->
    ``[bm25, cmd:engine --modes a,b]``."""
    specs: list[str] = []
    for value in values:
        parts = value.split(",")
        for i, part in enumerate(parts):
            if part.strip().startswith("cmd:"):
                specs.append(",".join(parts[i:]).strip())
                break
            if part.strip():
                specs.append(part.strip())
    return specs


def options_from(cls: type[Options], params: Mapping[str, object], **values: object) -> Options:
    """An options value from a command's parameters: each field named like a parameter takes its
    value, unless ``values`` gives the field (parsed) itself. Constructing it runs its checks."""
    names = {f.name for f in fields(cls)}
    given = {name: value for name, value in params.items() if name in names}
    return cls(**(given | values))


def given(ctx: click.Context, name: str) -> bool:
    """Whether the user gave option ``name`` (not its default)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source != click.core.ParameterSource.DEFAULT


@contextmanager
def stdout_to_stderr(active: bool) -> Iterator[None]:
    """With ``--json``, whatever writes to file descriptor 1 while the command works (Ray's workers
    and raylet logs, an engine library's prints) goes to stderr, so stdout holds the JSON alone."""
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
