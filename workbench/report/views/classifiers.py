"""Classifier views: risk concepts (confusion per concept), harness commands, gate checks.

Harness and gate views read list-of-object case fields (``commands``, ``checks``) generically:
one row per item, its keys as columns, so they follow whatever those suites record.
"""

from __future__ import annotations

import pandas as pd
from pandas.io.formats.style import Styler

from ...columns import CASE, ERROR, PASSED, TARGET
from ...store.runs import Run
from .common import Html, Note, failures_first, joined, mark, primary_target, suite_rows, table, unless_quiet


def concept_counts(run: Run, target: str | None = None) -> pd.DataFrame | Note:
    """Per concept: tp, fn, fp, tn over the risk cases of one target, with precision and recall."""
    from ...suites.risk import concept_confusion

    target = target or primary_target(run)
    rows = suite_rows(run, "risk", target)
    if isinstance(rows, Note):
        return rows
    counts = concept_confusion(rows[["labels"]]).set_index("concept")
    predicted, actual = counts["tp"] + counts["fp"], counts["tp"] + counts["fn"]
    return counts.assign(
        precision=(counts["tp"] / predicted.where(predicted > 0)), recall=(counts["tp"] / actual.where(actual > 0))
    )


def risk_confusion(run: Run, target: str | None = None) -> Styler | Note:
    """The risk confusion per concept for one target (default: the first non-control)."""
    counts = concept_counts(run, target)
    if isinstance(counts, Note):
        return counts
    name = target or primary_target(run)
    return table(counts.reset_index(), f"risk-confusion-{name}").set_caption(
        f"{name}: an expected label is tp when returned, else fn; a not-expected label is fp when returned, else tn"
    )


def risk_cases(run: Run, target: str | None = None, quiet: bool = False) -> Styler | Html:
    """Per risk case: the text, expected and returned concepts, what was missed; failures first.
    ``quiet``: nothing instead of the note saying why there are no cases (a view above says it)."""
    target = target or primary_target(run)
    rows = suite_rows(run, "risk", target)
    if isinstance(rows, Note):
        return unless_quiet(rows, quiet)
    frame = pd.DataFrame(
        {
            CASE: rows[CASE],
            "result": rows[PASSED].map(mark),
            PASSED: rows[PASSED],
            "mode": rows["mode"],
            "text": rows["text"],
            "expected": rows["expected"].map(joined),
            "not expected": rows["notExpected"].map(joined),
            "returned": rows["concepts"].map(joined),
            "missing": rows["missing"].map(joined),
            "unexpected": rows["unexpected"].map(joined),
            ERROR: rows[ERROR].fillna("").astype(str),
        }
    )
    frame = failures_first(frame, CASE).drop(columns=PASSED)
    return table(frame, f"risk-cases-{target}", ["result"])


def items(run: Run, suite: str, field: str, target: str | None = None) -> pd.DataFrame | Note:
    """One row per element of a list-of-objects case field, keyed by target and case (with the
    case's own verdict as ``case passed``)."""
    rows = suite_rows(run, suite, target)
    if isinstance(rows, Note):
        return rows
    if field not in rows.columns:
        return Note(f"The {suite} cases carry no {field!r} field.")
    exploded = rows[[TARGET, CASE, PASSED, field]].explode(field).dropna(subset=[field])
    exploded = exploded[exploded[field].map(lambda v: isinstance(v, dict))]
    if exploded.empty:
        return Note(f"The {suite} cases list no {field}.")
    flat = pd.json_normalize(exploded[field].tolist())
    keys = exploded[[TARGET, CASE, PASSED]].rename(columns={PASSED: "case passed"}).reset_index(drop=True)
    return pd.concat([keys, flat], axis=1)


def harness_commands(run: Run, target: str | None = None) -> Styler | Note:
    """Each expected harness command: found in its group, and how its execution went."""
    frame = items(run, "harness", "commands", target or primary_target(run))
    if isinstance(frame, Note):
        return frame
    passed = frame[PASSED] if PASSED in frame.columns else frame["case passed"]
    frame = failures_first(frame.assign(**{PASSED: passed, "result": passed.map(mark)}), CASE)
    return table(frame.drop(columns=[PASSED, "case passed"]).map(joined), "harness-commands", ["result"])


def gate_matrix(run: Run, target: str | None = None) -> Styler | Note:
    """Gate case x check: the status each check returned, next to the expected and actual verdicts."""
    target = target or primary_target(run)
    checks = items(run, "gate", "checks", target)
    if isinstance(checks, Note):
        return checks
    if not {"name", "status"} <= set(checks.columns):
        return Note("The gate checks carry no name/status fields.")
    matrix = checks.pivot_table(index=CASE, columns="name", values="status", aggfunc="first", sort=False)
    found = suite_rows(run, "gate", target)
    if isinstance(found, Note):
        return found
    rows = found.set_index(CASE)
    verdicts = [c for c in rows.columns if "verdict" in c.lower()]
    lead = pd.concat([rows[PASSED].map(mark).rename("result"), rows[verdicts]], axis=1)
    frame = lead.join(matrix, how="left").reset_index().rename(columns={"index": CASE}).fillna("")
    return table(frame, f"gate-matrix-{target}", ["result", *matrix.columns])


def findings_by_agent(run: Run) -> Styler | Note:
    """Per recorded agent: micro-averaged precision, recall, F1 and verdict agreement."""
    rows = suite_rows(run, "findings")
    if isinstance(rows, Note):
        return rows
    per_agent = run.summary["suites"]["findings"]
    frame = pd.DataFrame(
        [
            {"agent": agent, "cases": r.get("cases"), "passed": r.get("passed_cases"), **(r.get("metrics") or {})}
            for agent, r in per_agent.items()
            if not r.get("skipped")
        ]
    )
    return table(frame, "findings-by-agent")


def findings_by_rule(run: Run, quiet: bool = False) -> Styler | Html:
    """Per agent and rule: matched (tp), extra (fp) and missed (fn) findings, precision and recall.
    ``quiet``: nothing instead of the note saying why there are none (a view above says it)."""
    rows = suite_rows(run, "findings")
    if isinstance(rows, Note):
        return unless_quiet(rows, quiet)
    parts = [
        rows[[TARGET, kind]]
        .explode(kind)
        .dropna(subset=[kind])
        .assign(outcome=outcome)
        .rename(columns={kind: "finding"})
        for kind, outcome in (("matched", "tp"), ("extra", "fp"), ("missed", "fn"))
        if kind in rows.columns
    ]
    found = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    if found.empty:
        return Note("The findings cases list no matched, extra or missed findings.")
    found["rule"] = found["finding"].map(lambda f: f[0] if isinstance(f, (list, tuple)) else str(f))
    counts = pd.crosstab([found[TARGET].rename("agent"), found["rule"]], found["outcome"])
    counts = counts.reindex(columns=["tp", "fp", "fn"], fill_value=0)
    flagged, gold = counts["tp"] + counts["fp"], counts["tp"] + counts["fn"]
    counts = counts.assign(
        precision=counts["tp"] / flagged.where(flagged > 0), recall=counts["tp"] / gold.where(gold > 0)
    )
    return table(counts.reset_index().rename_axis(columns=None), "findings-by-rule")
