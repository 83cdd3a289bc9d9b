"""The ``workbench`` group, every command added to it here (the one place), and ``main``, which maps
outcomes to the documented exit codes.

Exit codes: 0 ok; 1 thresholds not met or a gate/regression verdict failed;
2 usage error; 3 a WorkbenchError (one line, no traceback); 4 an internal error.
"""

from __future__ import annotations

import traceback

import click

from ..errors import UsageError, WorkbenchError
from ..paths import DISTRIBUTION
from .compare import baseline_group, compare_command, trend_command
from .evaluate import lab_command, merge_command, report_command, run_command, validate_command
from .mining import calibrate_command, export_command, import_command, mine_command
from .online import interleave_group
from .shared import EXIT_ERROR, EXIT_FAILED, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE
from .tools import gate_command, harness_command, pack_command, serve_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name=DISTRIBUTION)
def cli() -> None:
    """Evaluate code-context engines against a labelled corpus.

    Runs eval suites into tidy DataFrames (reports/runs/<run-id>/), renders notebook
    reports, compares runs and keeps baselines. Exit codes: 0 ok, 1 thresholds or gate
    failed, 2 usage error, 3 bad input or unreachable target, 4 internal error.
    """


for command in (
    run_command,
    validate_command,
    merge_command,
    report_command,
    lab_command,
    compare_command,
    baseline_group,
    trend_command,
    mine_command,
    import_command,
    export_command,
    calibrate_command,
    interleave_group,
    serve_command,
    pack_command,
    harness_command,
    gate_command,
):
    cli.add_command(command)


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
