"""What a run's verdicts mean, read the same way by the CLI, the JSON summary and the pages.

Candidates vs controls are worded here too (``comparison_line``, ``warnings``), so pages need no pandas.

A (suite, target) is ``PASS`` or ``FAIL`` against its floors (or, under ``--gate controls``,
against the controls), ``NO FLOORS`` when nothing judged it (never PASS), ``SKIPPED`` when it did
not run. A run is ``BUDGET`` (exit 1) when it stopped at its budget with cases not reached,
``FAIL`` when a gating pair failed, ``PASS`` when one passed and none failed, else ``NO FLOORS``:
nothing was gated. Summaries written before verdicts were recorded are read
by the same rules from their ``passed`` and ``thresholds`` fields.
"""

from __future__ import annotations

from typing import Any

from ..contract import CONTROL_TARGETS

PASS, FAIL, NO_FLOORS, SKIPPED = "PASS", "FAIL", "NO FLOORS", "SKIPPED"
BUDGET = "BUDGET"  # a run stopped at its --budget-usd/--budget-seconds: cases were not reached
# Against a baseline (``run --baseline``): the gate rule read as a move from the baseline.
REGRESSED, UNCHANGED, IMPROVED, INSUFFICIENT_DATA = "REGRESSED", "UNCHANGED", "IMPROVED", "INSUFFICIENT_DATA"
FAILING = frozenset({FAIL, BUDGET, REGRESSED, INSUFFICIENT_DATA})


def pair_verdict(result: dict[str, Any]) -> str:
    """The verdict of one (suite, target) summary."""
    if result.get("verdict"):
        return str(result["verdict"])
    if result.get("skipped"):
        return SKIPPED
    if result.get("passed") is False or result.get("failures"):
        return FAIL
    return PASS if result.get("thresholds") and result.get("passed") else NO_FLOORS


def passed_of(verdict: str) -> bool | None:
    """``passed`` as the summary spells it: True for PASS, False for a failing verdict (FAIL,
    BUDGET, REGRESSED, ...), None when not judged."""
    return True if verdict == PASS else False if verdict in FAILING else None


def combined_verdict(floors: str, baseline: str) -> str:
    """The run's verdict with its baseline's: a failed floor or budget stays; else a significant
    regression (or a baseline gate that cannot decide) is the verdict; a run with no floors that
    the baseline judged takes the baseline's ``UNCHANGED`` or ``IMPROVED``."""
    if floors in FAILING:
        return floors
    if baseline in FAILING:
        return baseline
    return baseline if floors == NO_FLOORS and baseline in (UNCHANGED, IMPROVED) else floors


def gating_targets(suites: dict[str, dict[str, Any]]) -> set[str]:
    """The targets whose verdicts decide the run: controls only when nothing else ran."""
    targets = {t for per in suites.values() for t in per}
    return targets - CONTROL_TARGETS or targets


def overall_verdict(suites: dict[str, dict[str, Any]]) -> str:
    """FAIL if a gating pair failed, PASS if one passed, else NO FLOORS (nothing was gated)."""
    gating = gating_targets(suites)
    verdicts = {pair_verdict(per[t]) for per in suites.values() for t in gating if t in per}
    return FAIL if FAIL in verdicts else PASS if PASS in verdicts else NO_FLOORS


def run_verdict(summary: dict[str, Any]) -> str:
    """The verdict of a whole run summary (its recorded one, else read from its suites)."""
    if summary.get("verdict"):
        return str(summary["verdict"])
    if summary.get("passed") is False:
        return FAIL
    return overall_verdict(summary.get("suites") or {})


def exit_line(verdict: str) -> str:
    """The scoreboard's last line: what was judged and the exit code it gives."""
    if verdict == NO_FLOORS:
        return "Overall: NO FLOORS (nothing was gated: no suite ran against a floor; exit 0)"
    return f"Overall: {verdict} (exit {1 if verdict in FAILING else 0})"


def warnings(section: dict[str, Any]) -> list[str]:
    """One line per candidate that scores below a control on a headline metric."""
    return [
        f"WARNING: {cand} is below {ctrl} on {suite} {c['metric']} "
        f"({c['candidate']:.3f} vs {c['control']:.3f}, {p_text(c['p'])})"
        for suite, per in section.items()
        for cand, vs in per.items()
        for ctrl, c in vs.items()
        if c["below"]
    ]


def p_text(p: float | None) -> str:
    """``p=0.0031`` (3 significant digits), or ``no p-value`` below 2 pairs."""
    return "no p-value" if p is None else f"p={p:.3g}"


def comparison_line(suite: str, candidate: str, control: str, c: dict[str, Any]) -> str:
    """``retrieval [builtin] vs bm25: mrr 0.812 vs 0.640 (delta +0.172, n=30, p=0.0031): beats bm25``."""
    if not c["n"]:
        return f"{suite} [{candidate}] vs {control}: {c['metric']}: no case scored by both"
    outcome = (
        f"beats {control}"
        if c["beats"]
        else f"BELOW {control}"
        if c["below"]
        else f"does not beat {control} significantly"
    )
    return (
        f"{suite} [{candidate}] vs {control}: {c['metric']} {c['candidate']:.3f} vs {c['control']:.3f} "
        f"(delta {c['delta']:+.3f}, n={c['n']}, {p_text(c['p'])}): {outcome}"
    )
