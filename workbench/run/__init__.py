"""Running a corpus: orchestration, options, summaries and verdicts, the resume journal, provenance, merging."""

from __future__ import annotations

from .._lazy import exports

_NAMES = {
    "RunOptions": "options",
    "run": "runner",
    "run_eval": "runner",
    "merge_runs": "merge",
    "overall": "summary",
    "suite_summary": "summary",
    "build_manifest": "manifest",
}
_NAMES.update(
    {
        "Executor": "executors",
        "LocalExecutor": "local",
        "make_executor": "executors",
        "WorkItem": "work",
        "ResultCache": "cache",
        "summarise_repeats": "repeats",
    }
)
__all__ = sorted(_NAMES)
__getattr__, __dir__ = exports(__name__, _NAMES)
