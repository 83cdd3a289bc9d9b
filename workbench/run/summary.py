"""Summaries and verdicts: per (suite, target) aggregates against the corpus floors, and the run's."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..columns import CASE, ERROR, PASSED, SUITE, TARGET, VALUE
from ..contract import USAGE_COLUMNS
from ..store.verdicts import FAIL, NO_FLOORS, PASS, SKIPPED, overall_verdict, passed_of
from ..suites import Outcome, RunContext, Suite

if TYPE_CHECKING:
    import pandas as pd

SuiteSummary = dict[str, Any]


def threshold_failures(
    metrics: dict[str, Any], floors: dict[str, float], not_measured: dict[str, str] | None = None
) -> list[str]:
    """One line per floor not met (a missing metric fails its floor, unless ``not_measured`` says
    why the target cannot carry it: that floor is skipped, see ``skipped_floors``)."""
    unmeasurable = not_measured or {}
    return [
        f"{m} {'missing' if metrics.get(m) is None else f'{metrics[m]:.3f}'} < {floor:g}"
        for m, floor in floors.items()
        if (m not in unmeasurable if metrics.get(m) is None else metrics[m] < floor)
    ]


def skipped_floors(metrics: dict[str, Any], floors: dict[str, float], not_measured: dict[str, str]) -> dict[str, str]:
    """The floors on metrics the target's answers cannot carry (metric -> why): skipped, never failed."""
    return {m: not_measured[m] for m in floors if metrics.get(m) is None and m in not_measured}


def suite_summary(suite: Suite, scores: pd.DataFrame, cases: pd.DataFrame, floors: dict[str, float]) -> SuiteSummary:
    """The summary of one (suite, target): aggregates, floors, verdict. Frames hold that pair only."""
    metrics = suite.aggregate(scores, cases)
    notes = suite.metric_notes(scores, cases)
    failures = threshold_failures(metrics, floors, notes)
    unjudged = skipped_floors(metrics, floors, notes)
    errors = int(cases[ERROR].notna().sum()) if ERROR in cases else 0
    if errors:
        failures.append(f"{errors} case(s) errored")
    usage = usage_totals(cases)
    verdict = FAIL if failures else PASS if len(floors) > len(unjudged) else NO_FLOORS
    return {
        "cases": len(cases),
        **({"usage": usage} if usage else {}),
        "scored": int(scores.groupby(CASE)[VALUE].count().gt(0).sum()),
        "passed_cases": int(cases[PASSED].fillna(False).astype(bool).sum()),
        "errors": errors,
        "metrics": metrics,
        **({"skipped_metrics": notes} if notes else {}),
        "thresholds": floors,
        **({"skipped_floors": unjudged} if unjudged else {}),
        "passed": passed_of(verdict),
        "verdict": verdict,
        "failures": failures,
        "skipped": None,
    }


def usage_totals(cases: pd.DataFrame) -> dict[str, Any] | None:
    """One (suite, target)'s usage summed over the cases that reported it (``USAGE_COLUMNS``), with
    how many did; None when none did. A part no case reported stays None: unknown, never 0."""
    amounts = [c for c in USAGE_COLUMNS[:3] if c in cases]
    columns = [*amounts, *(["model"] if "model" in cases else [])]
    if not columns:
        return None
    reporting = cases[columns].notna().any(axis=1)
    if not reporting.any():
        return None
    import pandas as pd

    totals: dict[str, Any] = {}
    for column in USAGE_COLUMNS[:3]:
        values = pd.to_numeric(cases[column], errors="coerce") if column in cases else pd.Series(dtype=float)
        known = values.dropna().tolist()
        # exact sums of per-case amounts within the contract's limits: tokens as Python integers, cost by fsum
        total = sum(map(int, known)) if column != "cost_usd" else round(math.fsum(known), 9)
        totals[column] = total if known else None
    models = cases["model"].dropna().astype(str) if "model" in cases else pd.Series(dtype=str)
    totals["models"] = sorted({m for joined in models for m in joined.split(",") if m})
    totals["cases_reporting"] = int(reporting.sum())
    totals["cases_unknown"] = int(len(cases) - reporting.sum())
    return totals


def summarise(
    suite: Suite, target: str, outcomes: list[Outcome], ctx: RunContext, floors: dict[str, float]
) -> tuple[SuiteSummary, list[dict[str, Any]], pd.DataFrame]:
    """Score one (suite, target)'s outcomes: its summary, its case rows and its long score frame."""
    import pandas as pd

    scored = suite.score(outcomes, ctx)
    by_name = {o.name: o for o in outcomes}
    rows = []
    for row in scored.case_rows:
        outcome = by_name[row["case"]]
        meta = {key: value for key, value in outcome.meta.items() if key != "repeat"}
        # A cached outcome's time is the cache's, not the engine's: no latency figure may use it.
        seconds = None if meta.get("cached") else round(outcome.seconds, 4)
        rows.append({SUITE: suite.name, TARGET: target, **row, ERROR: outcome.error, "seconds": seconds, **meta})
    summary = suite_summary(suite, scored.scores, pd.DataFrame(rows), floors)
    return summary, rows, scored.scores.assign(**{SUITE: suite.name, TARGET: target})


def skipped(reason: str, floors: dict[str, float]) -> SuiteSummary:
    """The summary of a (suite, target) that did not run, with the reason."""
    return {
        "cases": 0,
        "scored": 0,
        "passed_cases": 0,
        "errors": 0,
        "metrics": {},
        "thresholds": floors,
        "passed": None,
        "verdict": SKIPPED,
        "failures": [],
        "skipped": reason,
    }


def overall(suites: dict[str, dict[str, SuiteSummary]]) -> dict[str, Any]:
    """The run's ``passed`` and ``verdict``: FAIL when a gating pair failed, PASS when one passed,
    NO FLOORS when nothing was gated (``passed`` None). Controls gate only a run of controls."""
    verdict = overall_verdict(suites)
    return {"passed": passed_of(verdict), "verdict": verdict}
