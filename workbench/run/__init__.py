"""Running a corpus: orchestration, options, summaries and verdicts, the resume journal, provenance, merging."""

from __future__ import annotations

from ..options import RunOptions
from .budget import RunBudget, budget_line
from .cache import ResultCache
from .executors import Executor, make_executor
from .local import LocalExecutor
from .manifest import build_manifest
from .merge import merge_runs
from .repeats import summarise_repeats
from .runner import run, run_eval
from .summary import overall, suite_summary
from .work import WorkItem

__all__ = [
    "Executor",
    "LocalExecutor",
    "ResultCache",
    "RunBudget",
    "RunOptions",
    "WorkItem",
    "build_manifest",
    "budget_line",
    "make_executor",
    "merge_runs",
    "overall",
    "run",
    "run_eval",
    "suite_summary",
    "summarise_repeats",
]
