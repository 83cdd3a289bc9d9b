"""Numbers from runs: the metric registry and its kernel, paired statistics, A/B gate rules, comparisons."""

from __future__ import annotations

from .._lazy import exports

_NAMES = {
    "Metric": "metrics",
    "evaluate": "metrics",
    "parse_metric": "metrics",
    "intern_frames": "metrics",
    "aggregate": "metrics",
    "Measure": "registry",
    "register": "registry",
    "higher_is_better": "registry",
    "paired_comparison": "stats",
    "GateRule": "gates",
    "Comparison": "comparison",
    "CaseDiff": "comparison",
    "compare": "comparison",
    "comparison_github": "markdown",
    "diff_cases": "comparison",
    "resolve_run": "comparison",
    "resolve_side": "comparison",
    "baseline_section": "regressions",
    "regression_keys": "regressions",
}
__all__ = sorted(_NAMES)
__getattr__, __dir__ = exports(__name__, _NAMES)
