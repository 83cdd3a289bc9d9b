"""Display helpers for the report notebooks: one call each, returning a DataFrame, a Styler,
an ``Html`` block or a one-line ``Note`` (never an error for a suite the run lacks).

``import workbench as wb; run = wb.views.open_run(); wb.views.verdicts(run)``
"""
from __future__ import annotations

from .breakdowns import group_metrics, latency, latency_frame, metric_by_case
from .case_table import case_frame, interactive_tables, retrieval_table
from .classifiers import concept_counts, findings_by_agent, findings_by_rule, gate_matrix, harness_commands, items, risk_cases, risk_confusion
from .common import CONTROLS, Html, Note, is_control, k_of, label, open_run, primary_target, project_root, runs_dir, suite_rows, targets_of, wide_scores
from .diff import case_status, change_counts, changed_cases, compare_runs, describe, detectable_effect, diff_runs, gate_verdict, metric_deltas, open_baseline, p_values
from .reasons import explain
from .repeats import flaky_frame, repeat_summary, repeats
from .retrieval import (case_shapes, fixture_key, query_shape, rank_counts, retrieval_by_fixture,
                        retrieval_by_fixture_and_shape, retrieval_by_shape, retrieval_cases, token_savings)
from .scoreboard import failures, floor_frame, floors, headline, leaderboard, run_header, verdicts

__all__ = [
    "CONTROLS", "Html", "Note", "case_frame", "case_shapes", "case_status", "change_counts", "changed_cases",
    "compare_runs", "concept_counts", "describe", "detectable_effect", "diff_runs", "explain", "failures",
    "findings_by_agent", "findings_by_rule", "fixture_key", "flaky_frame", "floor_frame", "floors", "gate_matrix",
    "gate_verdict",
    "group_metrics", "harness_commands", "headline", "interactive_tables", "is_control", "items", "k_of", "label",
    "latency", "latency_frame", "leaderboard", "metric_by_case", "metric_deltas", "open_baseline", "open_run",
    "p_values", "primary_target", "project_root", "query_shape", "rank_counts", "repeat_summary",
    "repeats", "retrieval_by_fixture",
    "retrieval_by_fixture_and_shape", "retrieval_by_shape", "retrieval_cases", "retrieval_table", "risk_cases",
    "risk_confusion", "run_header", "runs_dir", "suite_rows", "targets_of", "token_savings", "verdicts",
    "wide_scores"
]
