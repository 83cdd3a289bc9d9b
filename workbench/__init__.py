"""workbench: evaluate code-context engines against a labelled corpus.

The public API is listed in ``__all__``; names load lazily so that
``import workbench`` stays cheap (no pandas, papermill or tree-sitter until used).
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Baseline": "workbench.baseline",
    "Comparison": "workbench.compare",
    "GateRule": "workbench.abgate",
    "Metric": "workbench.metrics",
    "evaluate": "workbench.metrics",
    "intern_frames": "workbench.metrics",
    "parse_metric": "workbench.metrics",
    "baseline_section": "workbench.baseline",
    "compare": "workbench.compare",
    "list_baselines": "workbench.baseline",
    "load_baseline": "workbench.baseline",
    "merge_runs": "workbench.merge",
    "paired_comparison": "workbench.stats",
    "record_baseline": "workbench.baseline",
    "Corpus": "workbench.corpus",
    "CorpusError": "workbench.errors",
    "CompareError": "workbench.errors",
    "RenderError": "workbench.errors",
    "Run": "workbench.store",
    "RunOptions": "workbench.runner",
    "StoreError": "workbench.errors",
    "SuiteError": "workbench.errors",
    "TargetError": "workbench.errors",
    "WorkbenchError": "workbench.errors",
    "get_suite": "workbench.suites",
    "latest_run": "workbench.store",
    "load_corpus": "workbench.corpus",
    "load_run": "workbench.store",
    "plots": "workbench.plots",
    "render_report": "workbench.report",
    "render_scoreboard": "workbench.scoreboard",
    "resolve_target": "workbench.targets",
    "run": "workbench.runner",
    "run_eval": "workbench.runner",
    "suite_names": "workbench.suites",
    "validate_corpus": "workbench.corpus",
    "views": "workbench.views",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'workbench' has no attribute {name!r}")
    value = import_module(module) if module == f"{__name__}.{name}" else getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
