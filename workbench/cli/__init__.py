"""The ``workbench`` command: a thin click layer over the library.

Exit codes: 0 ok; 1 thresholds not met or a gate/regression verdict failed;
2 usage error; 3 a WorkbenchError (one line, no traceback); 4 an internal error.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

import click

from ..errors import UsageError, WorkbenchError
from ..paths import DEFAULT_CORPUS, DEFAULT_RUNS_DIR, DISTRIBUTION

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


def split_values(values: tuple[str, ...]) -> list[str]:
    """Repeatable options also accept comma lists: ``--suite a --suite b,c`` -> ``[a, b, c]``."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name=DISTRIBUTION)
def cli() -> None:
    """Evaluate code-context engines against a labelled corpus.

    Runs eval suites into tidy DataFrames (reports/runs/<run-id>/), renders notebook
    reports, compares runs and keeps baselines. Exit codes: 0 ok, 1 thresholds or gate
    failed, 2 usage error, 3 bad input or unreachable target, 4 internal error.
    """


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


# The commands register themselves on ``cli`` when their modules load.
from . import compare, evaluate, mining, online, tools  # noqa: E402, F401


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
    except UsageError as exc:  # a bad option value the library found (a WorkbenchError, but exit 2)
        click.echo(f"error: {exc}", err=True)
        code = EXIT_USAGE
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
