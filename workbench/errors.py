"""One exception hierarchy for everything workbench raises on purpose.

The CLI turns any ``WorkbenchError`` into a one-line message and exit code 3;
anything else is an internal error (exit 4, traceback shown).
"""
from __future__ import annotations


class WorkbenchError(Exception):
    """Base of every error workbench raises deliberately."""


class CorpusError(WorkbenchError):
    """A corpus file is missing, malformed, or names something that does not exist."""


class TargetError(WorkbenchError):
    """A target spec is invalid, or the engine behind it failed or answered garbage."""


class SuiteError(WorkbenchError):
    """A suite name is unknown or a suite cannot run as asked."""


class StoreError(WorkbenchError):
    """A run directory or baseline cannot be read or written."""


class RenderError(WorkbenchError):
    """A report notebook failed to execute or convert."""


class CompareError(WorkbenchError):
    """Two runs cannot be compared (nothing in common, unknown metric or gate rule)."""
