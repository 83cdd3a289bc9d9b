"""workbench: evaluate code-context engines against a labelled corpus.

The public API is listed in ``__all__``; names load lazily so that
``import workbench`` stays cheap (no pandas, papermill or tree-sitter until used).
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Baseline": "workbench.store.baselines",
    "Comparison": "workbench.analysis.compare",
    "GateRule": "workbench.analysis.gates",
    "Metric": "workbench.analysis.metrics",
    "evaluate": "workbench.analysis.metrics",
    "intern_frames": "workbench.analysis.metrics",
    "parse_metric": "workbench.analysis.metrics",
    "baseline_section": "workbench.analysis.regressions",
    "compare": "workbench.analysis.compare",
    "list_baselines": "workbench.store.baselines",
    "load_baseline": "workbench.store.baselines",
    "merge_runs": "workbench.run.merge",
    "paired_comparison": "workbench.analysis.stats",
    "record_baseline": "workbench.store.baselines",
    "Corpus": "workbench.corpus",
    "CorpusError": "workbench.errors",
    "CompareError": "workbench.errors",
    "RenderError": "workbench.errors",
    "Run": "workbench.store.runs",
    "RunOptions": "workbench.run.runner",
    "StoreError": "workbench.errors",
    "SuiteError": "workbench.errors",
    "TargetError": "workbench.errors",
    "WorkbenchError": "workbench.errors",
    "get_suite": "workbench.suites",
    "latest_run": "workbench.store.runs",
    "load_corpus": "workbench.corpus",
    "load_run": "workbench.store.runs",
    "plots": "workbench.report.plots",
    "render_report": "workbench.report.render",
    "render_scoreboard": "workbench.report.text",
    "resolve_target": "workbench.targets",
    "run": "workbench.run.runner",
    "run_eval": "workbench.run.runner",
    "suite_names": "workbench.suites",
    "validate_corpus": "workbench.corpus",
    "views": "workbench.report.views",
}

_NAMESPACES = {"plots", "views"}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'workbench' has no attribute {name!r}")
    value = import_module(module) if name in _NAMESPACES else getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
