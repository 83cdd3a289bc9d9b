"""The text rendering of a ``Comparison``: the per-metric table, pass/fail changes, the
detectable-effect note, the changed cases and the verdict (what ``workbench compare`` prints)."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import pandas as pd

from ..columns import METRIC, PASSED, SUITE
from .gates import GateDecision, GateRule
from .statuses import IMPROVED, MISSING, NEW, REGRESSED, UNCHANGED


class Compared(Protocol):
    """What the rendering reads of a ``comparison.Comparison`` (which imports this module)."""

    a: str
    b: str
    cases: pd.DataFrame
    comparisons: pd.DataFrame
    gate: GateRule | None
    decision: GateDecision | None
    notes: tuple[str, ...]

    @property
    def verdict(self) -> str: ...

    @property
    def reason(self) -> str: ...

    @property
    def change(self) -> GateDecision | None: ...


def comparison_markdown(comparison: Compared) -> str:
    """Per-metric table, pass/fail changes, detectable-effect note and the verdict."""
    alpha = comparison.gate.alpha if comparison.gate else 0.05
    rows = comparison.comparisons
    metrics = rows[rows[METRIC] != PASSED]
    lines = [f"A: {comparison.a}", f"B: {comparison.b}   (delta = B - A, paired by case)", *comparison.notes, ""]
    lines += _md_table(_HEADER, [_metric_cells(row) for row in metrics.itertuples(index=False)])
    lines += _pass_fail_lines(rows[rows[METRIC] == PASSED])
    lines += _mde_lines(metrics, alpha) + _case_lines(comparison.cases) + _verdict_lines(comparison)
    return "\n".join(lines)


_HEADER = [
    "suite",
    "metric",
    "better",
    "n",
    "A",
    "B",
    "delta",
    "95% CI",
    "p t",
    "p wilcoxon",
    "p rand",
    "p holm",
    "d_z",
    "W/T/L",
    "MDE",
]


def _num(x: float, digits: int = 3) -> str:
    return "-" if pd.isna(x) else f"{x:.{digits}f}" if np.isfinite(x) else ("+inf" if x > 0 else "-inf")


def _p(x: float) -> str:
    return "-" if pd.isna(x) else f"{x:.3g}"


def _metric_cells(row: Any) -> list[str]:
    mde = _num(row.mde) if not pd.isna(row.mde) else (f"{row.mde_sd:.2f} SD" if not pd.isna(row.mde_sd) else "-")
    return [
        row.suite,
        row.metric,
        "higher" if row.higher_is_better else "lower",
        str(row.n),
        _num(row.mean_a),
        _num(row.mean_b),
        _num(row.delta),
        f"[{_num(row.ci_low)}, {_num(row.ci_high)}]",
        _p(row.p_t),
        _p(row.p_wilcoxon),
        _p(row.p_randomization),
        _p(row.p_holm),
        _num(row.effect_size, 2),
        f"{row.wins}/{row.ties}/{row.losses}",
        mde,
    ]


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows)]

    def line(cells: list[str]) -> str:
        return (
            "| " + " | ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))) + " |"
        )

    rule = "|" + "|".join("-" * (w + 2) if i < 3 else "-" * (w + 1) + ":" for i, w in enumerate(widths)) + "|"
    return [line(header), rule] + [line(r) for r in rows]


def _pass_fail_lines(rows: pd.DataFrame) -> list[str]:
    lines = [""] if len(rows) else []
    for row in rows.itertuples(index=False):
        lines.append(
            f"{row.suite} pass/fail: {round(row.mean_a * row.n) if row.n else 0} -> "
            f"{round(row.mean_b * row.n) if row.n else 0} of {row.n} cases pass "
            f"({row.wins} fixed, {row.losses} broken), McNemar exact p={_p(row.p_mcnemar)}"
        )
    return lines


def _mde_lines(metrics: pd.DataFrame, alpha: float) -> list[str]:
    lines = [""]
    for suite, rows in metrics.groupby(SUITE, sort=False):
        parts = [
            f"{r.metric} {_num(r.mde)}" if not pd.isna(r.mde) else f"{r.metric} {r.mde_sd:.2f} SD"
            for r in rows.itertuples(index=False)
            if not pd.isna(r.mde_sd)
        ]
        if parts:
            lines.append(
                f"{suite}: with {rows['n'].max()} paired cases, a change smaller than "
                f"{', '.join(parts)} cannot be detected (paired t, 80% power, alpha {alpha:g})."
            )
    return lines


def _case_lines(cases: pd.DataFrame, limit: int = 10) -> list[str]:
    counts = cases["status"].value_counts()
    summary = ", ".join(f"{int(counts.get(s, 0))} {s}" for s in (IMPROVED, REGRESSED, UNCHANGED, NEW, MISSING))
    lines = ["", f"Per-case values: {summary}."]
    regressed = cases[cases["status"] == REGRESSED]
    worst = regressed.assign(_loss=np.where(regressed["higher_is_better"], -regressed["delta"], regressed["delta"]))
    worst = worst.nlargest(limit, "_loss")
    lines += [
        f"  regressed: {r.suite}[{r.case}] {r.metric} {_num(r.value_a)} -> {_num(r.value_b)}"
        for r in worst.itertuples(index=False)
    ]
    return lines


def _verdict_lines(comparison: Compared) -> list[str]:
    if comparison.decision is None:
        return ["", "Gate: none applies to these metrics (pass --gate RULE); verdict NO_GATE."]
    reasons = [f"  - {reason}" for reason in comparison.decision.reasons if reason != comparison.reason]
    change = comparison.change
    moved = [f"B against A: {change.summary}"] if change else []
    return ["", *moved, f"Gate [{comparison.decision.rule}]: {comparison.verdict}: {comparison.reason}"] + reasons
