"""Candidates against the controls: does each engine beat ``random``, ``bm25`` and ``guess`` on the
headline metric of each suite, by a paired t-test over the cases both scored?

``control_section`` is the summary's ``controls`` object (suite -> candidate -> control ->
comparison); ``gate_on_controls`` is ``--gate controls``: a (suite, candidate) the corpus gives
no floors is judged by "beats bm25 and guess significantly on the headline metric" (each of them
that scored the suite; ``random`` when neither did), and a gate that cannot decide (no control, too
few pairs) fails closed. Controls never gate the overall verdict: they are judged by nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..analysis import stats
from ..analysis.registry import higher_is_better
from ..columns import CASE, METRIC, SUITE, TARGET, VALUE
from ..contract import CONTROL_TARGETS
from ..errors import UsageError
from ..store.verdicts import FAIL, NO_FLOORS, PASS, overall_verdict, p_text, passed_of

if TYPE_CHECKING:
    import pandas as pd

ALPHA = 0.05
CONTROLS_GATE = "controls"
GATE_CONTROLS = ("bm25", "guess")  # the controls --gate controls asks an engine to beat (those that ran)
FALLBACK_CONTROL = "random"  # judged by when none of GATE_CONTROLS scored the suite


def compare_with_control(values: pd.DataFrame, candidate: str, control: str, metric: str) -> dict[str, Any]:
    """One candidate vs one control on ``metric`` (``values``: case x target), paired by case."""
    import numpy as np

    a, b = stats.paired_arrays(values[control].to_numpy(float), values[candidate].to_numpy(float))
    n = int(a.size)
    delta = float(np.mean(b - a)) if n else None
    p = stats.paired_t(b - a).p if n >= 2 else None
    gain = None if delta is None else delta if higher_is_better(metric) else -delta
    return {
        "metric": metric,
        "n": n,
        "candidate": float(np.mean(b)) if n else None,
        "control": float(np.mean(a)) if n else None,
        "delta": delta,
        "p": p,
        "beats": bool(gain is not None and gain > 0 and p is not None and p < ALPHA),
        "below": bool(gain is not None and gain < 0),
    }


def control_section(scores: pd.DataFrame, headlines: dict[str, str]) -> dict[str, Any]:
    """suite -> candidate -> control -> comparison, for every suite with a headline metric that
    a candidate and a control both scored; empty when the run has no control or no candidate."""
    section: dict[str, Any] = {}
    for suite, metric in headlines.items():
        rows = scores[(scores[SUITE] == suite) & (scores[METRIC] == metric)]
        targets = list(dict.fromkeys(rows[TARGET]))
        controls = [t for t in targets if t in CONTROL_TARGETS]
        candidates = [t for t in targets if t not in CONTROL_TARGETS]
        if not controls or not candidates:
            continue
        values = rows.pivot_table(index=CASE, columns=TARGET, values=VALUE, aggfunc="first", dropna=False)
        section[suite] = {
            cand: {ctrl: compare_with_control(values, cand, ctrl, metric) for ctrl in controls} for cand in candidates
        }
    return section


def gate_on_controls(summary: dict[str, Any], headlines: dict[str, str]) -> dict[str, Any]:
    """``--gate controls``: judge every unfloored (suite, candidate) by the controls, then the run."""
    suites, section = summary["suites"], summary.get("controls") or {}
    for suite, per in suites.items():
        for target, result in per.items():
            if target in CONTROL_TARGETS or result.get("verdict") != NO_FLOORS or suite not in headlines:
                continue
            versus = section.get(suite, {}).get(target, {})
            judges = [c for c in GATE_CONTROLS if c in versus] or [c for c in (FALLBACK_CONTROL,) if c in versus]
            failures = [_gate_failure(suite, headlines[suite], c, versus[c]) for c in judges] or [
                _gate_failure(suite, headlines[suite], None, None)
            ]
            failed = [f for f in failures if f]
            verdict = FAIL if failed else PASS
            per[target] = dict(result, verdict=verdict, passed=passed_of(verdict), gate=CONTROLS_GATE)
            per[target]["failures"] = [*result.get("failures", []), *failed]
    verdict = overall_verdict(suites)
    return dict(summary, verdict=verdict, passed=passed_of(verdict), gate=CONTROLS_GATE)


def _gate_failure(suite: str, metric: str, control: str | None, c: dict[str, Any] | None) -> str | None:
    """Why the controls gate fails a (suite, candidate), or None when it beats the control."""
    if control is None or c is None:
        return f"--gate controls: no control (bm25, guess or random) scored {suite} {metric}"
    if c["p"] is None:
        return f"--gate controls: {c['n']} case(s) scored by both it and {control}, need 2"
    if not c["beats"]:
        return (
            f"--gate controls: does not beat {control} significantly on {metric} "
            f"(delta {c['delta']:+.3f}, {p_text(c['p'])}, alpha {ALPHA:g})"
        )
    return None


def with_controls(summary: dict[str, Any], scores: pd.DataFrame, suites: list[Any], gate: str | None) -> dict[str, Any]:
    """The summary with its ``controls`` section and, under ``--gate controls``, its verdicts."""
    headlines = {s.name: s.headline for s in suites if getattr(s, "headline", None)}
    section = control_section(scores, headlines)
    summary = dict(summary, controls=section) if section else summary
    return gate_on_controls(summary, headlines) if gate == CONTROLS_GATE else summary


def gated_targets(targets: list[str], gate: str | None) -> list[str]:
    """The targets to run: under ``--gate controls`` the ``GATE_CONTROLS`` not among them are added
    (a gate needs something to beat). Any other gate is a usage error."""
    if gate is None:
        return targets
    if gate != CONTROLS_GATE:
        raise UsageError(f"unknown run gate {gate!r} (known: {CONTROLS_GATE})")
    return [*targets, *(c for c in GATE_CONTROLS if c not in targets)]
