"""What a run's verdicts mean, read the same way by the CLI, the JSON summary and the pages.

A (suite, target) is ``PASS`` or ``FAIL`` against its floors (or, under ``--gate controls``,
against the controls), ``NO FLOORS`` when nothing judged it (never PASS), ``SKIPPED`` when it did
not run. A run is ``FAIL`` when a gating pair failed, ``PASS`` when one passed and none failed,
else ``NO FLOORS``: nothing was gated. Summaries written before verdicts were recorded are read
by the same rules from their ``passed`` and ``thresholds`` fields.
"""

from __future__ import annotations

from typing import Any

from ..contract import CONTROL_TARGETS

PASS, FAIL, NO_FLOORS, SKIPPED = "PASS", "FAIL", "NO FLOORS", "SKIPPED"


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
    """``passed`` as the summary spells it: True for PASS, False for FAIL, None when not judged."""
    return True if verdict == PASS else False if verdict == FAIL else None


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
    return f"Overall: {verdict} (exit {1 if verdict == FAIL else 0})"
