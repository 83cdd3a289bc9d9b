"""workbench: evaluate code-context engines against a labelled corpus.

The curated public API is ``__all__``: corpus -> run -> store -> analysis -> report, plus the
``views`` and ``plots`` namespaces the notebooks call. Names load lazily, so ``import workbench``
stays cheap (no pandas, papermill or tree-sitter until used). Each subpackage (``workbench.run``,
``.store``, ``.analysis``, ``.report``, ``.targets``, ``.reference``, ``.suites``) lists its own
public names in its ``__all__``; modules and names starting with ``_`` are private.
"""

from __future__ import annotations

from ._lazy import exports

__version__ = "0.1.0"

_NAMES = {
    "Corpus": "workbench.corpus",
    "load_corpus": "workbench.corpus",
    "validate_corpus": "workbench.corpus",
    "RunOptions": "workbench.run.options",
    "run_eval": "workbench.run.runner",
    "merge_runs": "workbench.run.merge",
    "Run": "workbench.store.runs",
    "load_run": "workbench.store.runs",
    "latest_run": "workbench.store.headers",
    "Baseline": "workbench.store.baselines",
    "load_baseline": "workbench.store.baselines",
    "list_baselines": "workbench.store.baselines",
    "record_baseline": "workbench.store.baselines",
    "Metric": "workbench.analysis.metrics",
    "evaluate": "workbench.analysis.metrics",
    "parse_metric": "workbench.analysis.metrics",
    "Comparison": "workbench.analysis.comparison",
    "compare": "workbench.analysis.comparison",
    "GateRule": "workbench.analysis.gates",
    "render_report": "workbench.report.render",
    "render_scoreboard": "workbench.report.text",
    "resolve_target": "workbench.targets",
    "get_suite": "workbench.suites",
    "suite_names": "workbench.suites",
    "WorkbenchError": "workbench.errors",
    "plots": "workbench.report.plots",
    "views": "workbench.report.views",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = exports(__name__, _NAMES, frozenset({"plots", "views"}))
