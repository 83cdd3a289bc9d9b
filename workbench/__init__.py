"""workbench: evaluate code-context engines against a labelled corpus.

The curated public API is ``__all__``: corpus -> run -> store -> analysis -> report (and
``mine_corpus``, corpora from git history, and ``simulate_interleaving``, the online layer's
experiment; a command's options are one typed value, ``RunOptions`` or ``MineOptions``), plus the
``views`` and ``plots`` namespaces the notebooks call. Each subpackage (``workbench.run``,
``.store``, ``.analysis``, ``.report``, ``.targets``, ``.suites``, ``.reference``, ``.code``)
imports its own public names eagerly and lists them in its ``__all__`` (mining reads source through
``.code`` and never loads the engine); pandas, numpy, papermill and tree-sitter are imported
inside the functions that use them. Modules and names starting with ``_`` are private.

Type checkers read the imports below; at run time a name's subpackage is imported the first time
the name is used, so ``workbench --help`` and ``workbench validate`` do not load the run, store,
analysis and report layers (``tests/typed/test_public_api.py`` holds the two lists equal).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

__version__ = "0.1.0"

# Public name -> the package (or, for a namespace, the module) it comes from.
_HOMES = {
    "Corpus": "workbench.corpus",
    "load_corpus": "workbench.corpus",
    "validate_corpus": "workbench.corpus",
    "MineOptions": "workbench.mining",
    "mine_corpus": "workbench.mining",
    "RunOptions": "workbench.run",
    "run_eval": "workbench.run",
    "merge_runs": "workbench.run",
    "Run": "workbench.store",
    "load_run": "workbench.store",
    "latest_run": "workbench.store",
    "Baseline": "workbench.store",
    "load_baseline": "workbench.store",
    "list_baselines": "workbench.store",
    "record_baseline": "workbench.store",
    "Metric": "workbench.analysis",
    "evaluate": "workbench.analysis",
    "parse_metric": "workbench.analysis",
    "Comparison": "workbench.analysis",
    "compare": "workbench.analysis",
    "GateRule": "workbench.analysis",
    "simulate_interleaving": "workbench.online",
    "render_report": "workbench.report",
    "render_scoreboard": "workbench.report",
    "resolve_target": "workbench.targets",
    "get_suite": "workbench.suites",
    "suite_names": "workbench.suites",
    "WorkbenchError": "workbench.errors",
    "plots": "workbench.report.plots",
    "views": "workbench.report.views",
}
__all__ = [
    "Baseline",
    "Comparison",
    "Corpus",
    "GateRule",
    "Metric",
    "MineOptions",
    "Run",
    "RunOptions",
    "WorkbenchError",
    "compare",
    "evaluate",
    "get_suite",
    "latest_run",
    "list_baselines",
    "load_baseline",
    "load_corpus",
    "load_run",
    "merge_runs",
    "mine_corpus",
    "parse_metric",
    "plots",
    "record_baseline",
    "render_report",
    "render_scoreboard",
    "resolve_target",
    "run_eval",
    "simulate_interleaving",
    "suite_names",
    "validate_corpus",
    "views",
]

if TYPE_CHECKING:
    from .analysis import Comparison, GateRule, Metric, compare, evaluate, parse_metric
    from .corpus import Corpus, load_corpus, validate_corpus
    from .errors import WorkbenchError
    from .mining import MineOptions, mine_corpus
    from .online import simulate_interleaving
    from .report import plots, render_report, render_scoreboard, views
    from .run import RunOptions, merge_runs, run_eval
    from .store import Baseline, Run, latest_run, list_baselines, load_baseline, load_run, record_baseline
    from .suites import get_suite, suite_names
    from .targets import resolve_target
else:  # not seen by type checkers: an unknown ``wb.name`` stays a type error

    def __getattr__(name: str) -> object:
        """A public name, imported from its package the first time it is used."""
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        module = import_module(home)
        value = module if home.endswith(f".{name}") else getattr(module, name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(_HOMES))
