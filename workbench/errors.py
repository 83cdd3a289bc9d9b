"""One exception hierarchy for everything workbench raises on purpose.

The CLI turns any ``WorkbenchError`` into a one-line message and exit code 3 (a ``UsageError``,
such as an unknown suite or target name, exits 2);
anything else is an internal error (exit 4, traceback shown).
"""

from __future__ import annotations

import os


class WorkbenchError(Exception):
    """Base of every error workbench raises deliberately."""


class CorpusError(WorkbenchError):
    """A corpus file is missing, malformed, or names something that does not exist."""


class TargetError(WorkbenchError):
    """A target spec is invalid, or the engine behind it failed or answered garbage."""


class SuiteError(WorkbenchError):
    """A suite name is unknown or a suite cannot run as asked."""


class RunError(WorkbenchError):
    """A run cannot go on: its executor failed to start or connect, or ``--strict`` stopped it."""


class UsageError(WorkbenchError):
    """An option or argument has a bad value or names nothing (a bad ``--executor``, shard or
    repeat, two targets with one name, a resume that contradicts its journal, an unknown suite or
    target); the CLI exits 2."""


class StoreError(WorkbenchError):
    """A run directory or baseline cannot be read or written."""


class RenderError(WorkbenchError):
    """A report notebook failed to execute or convert."""


class CompareError(WorkbenchError):
    """Two runs cannot be compared (nothing in common, unknown metric or gate rule)."""


class UnknownSuite(UsageError, SuiteError):
    """No suite of that name."""


class UnknownTarget(UsageError, TargetError):
    """No target spec of that form or name."""


class RunStopped(WorkbenchError):
    """A run stopped before its run directory was written (Ctrl-C, a crash, ``--strict``).

    Carries what it saved and how to finish it; ``cause`` is what stopped it.
    """

    def __init__(self, journal: str, run_id: str, saved_cases: int, cause: BaseException) -> None:
        self.journal, self.run_id, self.saved_cases, self.cause = journal, run_id, saved_cases, cause
        self.out_dir = os.path.dirname(journal)  # the journal sits beside the run directory it becomes
        super().__init__(f"{cause or type(cause).__name__}; {self.hint()}")

    def hint(self) -> str:
        """One line: the cases saved and the command that resumes the run."""
        import shlex

        return (
            f"{self.saved_cases} case(s) saved in {self.journal}; resume with: workbench run --resume "
            f"{shlex.quote(self.run_id)} --out {shlex.quote(self.out_dir)}"
        )


class GitError(WorkbenchError):
    """A git repository cannot be read, or a revision or path does not exist in it."""
