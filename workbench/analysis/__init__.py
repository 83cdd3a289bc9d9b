"""Numbers from runs: the metric registry and its kernel, paired statistics, A/B gate rules, comparisons."""

from __future__ import annotations

from .comparison import CaseDiff, Comparison, compare, diff_cases, resolve_run, resolve_side
from .gates import GateRule
from .markdown import comparison_github
from .metrics import Metric, aggregate, evaluate, intern_frames, parse_metric
from .registry import Measure, higher_is_better, register
from .regressions import baseline_section, regression_keys
from .stats import paired_comparison
from .symbols import SYMBOL_METRICS, first_ranks, split_label, symbol_matches, symbol_scores
from .trend import Trend, trend

__all__ = [
    "Trend",
    "trend",
    "comparison_github",
    "CaseDiff",
    "SYMBOL_METRICS",
    "Comparison",
    "GateRule",
    "Measure",
    "Metric",
    "aggregate",
    "baseline_section",
    "compare",
    "diff_cases",
    "evaluate",
    "first_ranks",
    "higher_is_better",
    "intern_frames",
    "paired_comparison",
    "parse_metric",
    "register",
    "regression_keys",
    "resolve_run",
    "resolve_side",
    "split_label",
    "symbol_matches",
    "symbol_scores",
]
