"""Retrieval and token-savings views: per-case breakdown, per-fixture and per-shape aggregates.

A case's shape is its own ``shape`` field when it has one (mined and imported cases:
``names-file``, ``names-symbol``, ``words-only``, see ``workbench.mining.shapes``), else the
shape of its query text (first rule that matches): ``route`` (a ``/path`` or an HTTP verb), ``error
message`` (quoted text, or words such as error/exception/failed/undefined), ``file name``
(a name with a source extension), ``identifier`` (camelCase or snake_case), ``short`` (up to
three words), ``sentence`` (four or more). Shapes describe the text only, never a case name.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from ...columns import CASE, ERROR, PASSED, TARGET
from ...store.runs import Run
from .breakdowns import grouped, in_run_order
from .common import Note, joined, k_of, mark, primary_target, scope_text, suite_rows, table, targets_of, wide_scores

GUESS = "guess"

SHAPES = (
    ("route", re.compile(r"(^|\s)/[\w{}:.\-/]+|\b(GET|POST|PUT|PATCH|DELETE)\b")),
    (
        "error message",
        re.compile(
            r"[\"'`]|\b(error|exception|failed|failure|cannot|can't|undefined|"
            r"null|traceback|panic|denied|invalid|timeout)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "file name",
        re.compile(r"\b[\w-]+\.(tsx?|jsx?|mjs|py|go|rs|java|rb|json|ya?ml|toml|md|css|html)\b", re.IGNORECASE),
    ),
    ("identifier", re.compile(r"\b[a-z]+[A-Z]\w*\b|\b\w+_\w+\b")),
)


def query_shape(query: Any) -> str:
    """The shape of a query's text (see the module docstring for the rules)."""
    text = str(query or "")
    for name, pattern in SHAPES:
        if pattern.search(text):
            return name
    return "short" if len(text.split()) <= 3 else "sentence"


def case_shapes(rows: pd.DataFrame) -> pd.Series:
    """Each row's shape: the case's own ``shape`` field, else the shape of its query text."""
    text = rows["query"].map(query_shape)
    if "shape" not in rows.columns:
        return text
    own = rows["shape"]
    return own.where(own.map(lambda v: isinstance(v, str) and bool(v)), text)


def fixture_key(fixtures: Any) -> str:
    """``api`` for a single-repo case, ``api+web`` for a multi-repo one."""
    return "+".join(fixtures) if isinstance(fixtures, (list, tuple)) else str(fixtures)


def _expected_cell(row: dict[str, Any], k: int) -> str:
    ranks = row.get("expected_ranks") or {}
    lines = [
        f"{doc}  {'not returned' if rank is None or pd.isna(rank) else f'#{int(rank)}'}"
        f"{f'  (outside top {k})' if rank is not None and not pd.isna(rank) and rank > k else ''}"
        for doc, rank in ranks.items()
    ]
    if not ranks:
        lines.append("(fallback: any non-empty pack)")
    if row.get("expectedAnyOf"):
        hit = "hit" if row.get("any_of_hit") else "missed"
        lines.append(f"any of: {joined(row['expectedAnyOf'])} ({hit})")
    return "\n".join(lines)


def _returned_cell(row: dict[str, Any], k: int) -> str:
    expected = set(row.get("expected") or [])
    top = [
        f"{rank}. {doc}{'  ✓' if doc in expected else ''}"
        for rank, doc in enumerate((row.get("returned") or [])[:k], 1)
    ]
    related = row.get("related") or []
    return "\n".join(top + ([f"related: {joined(related)}"] if related else [])) or "(empty pack)"


def _reasons_cell(row: dict[str, Any], k: int) -> str:
    reasons = row.get("reasons") or {}
    return "\n".join(f"{doc}: {reasons[doc]}" for doc in (row.get("returned") or [])[:k] if doc in reasons)


def worst_first(rows: pd.DataFrame, run: Run) -> pd.DataFrame:
    """One target's retrieval rows, worst first: flaky cases (``--repeat``: some repeats pass, some
    fail), then failures, then by nDCG, RR and recall ascending."""
    wide = wide_scores(run, "retrieval")
    rows = rows.reset_index(drop=True)
    merged = rows.merge(wide, on=[TARGET, CASE], how="left", suffixes=("", "_score"))
    keys = [m for m in ("ndcgAtK", "mrr", "recallAtK") if m in merged.columns]
    steady = ~merged["flaky"].fillna(False).astype(bool) if "flaky" in merged else False
    merged = merged.assign(_passed=merged[PASSED].fillna(False).astype(bool), _steady=steady)
    ordered = merged.sort_values(["_steady", "_passed", *keys, CASE], kind="stable", na_position="last")
    return rows.loc[ordered.index]


def given_away(run: Run) -> Note:
    """What the corpus gives away in its wording: how many retrieval cases the ``guess`` control (the
    task text and the file paths, no contents) already passes, and the corpus's gold scope."""
    rows = suite_rows(run, "retrieval", GUESS)
    scope = scope_text(run).capitalize()
    if isinstance(rows, Note):
        return Note(f"{scope}. The guess control did not run (add --target guess to see what the wording gives away).")
    scored = rows[~rows["fallback"].fillna(False).astype(bool)] if "fallback" in rows else rows
    solved = int(scored[PASSED].fillna(False).astype(bool).sum())
    total = len(scored)
    share = f" ({100 * solved / total:.0f}%)" if total else ""
    return Note(
        f"{scope}. guess (paths only, no contents) already solves {solved} of {total} cases{share}: "
        "an engine earns credit for the rest."
    )


def retrieval_cases(run: Run, target: str | None = None, limit: int = 50) -> Styler | Note:
    """Per case for one target (default: the first non-control): expected vs returned, the ``limit``
    worst cases first (failures, then lowest nDCG and RR); the full list is ``case_table.retrieval_table``."""
    target = target or primary_target(run)
    rows = suite_rows(run, "retrieval", target)
    if isinstance(rows, Note):
        return rows
    total, passed_all = len(rows), int(rows[PASSED].fillna(False).astype(bool).sum())
    rows = worst_first(rows, run).head(limit)
    k, records = k_of(run), rows.to_dict("records")
    frame = pd.DataFrame(
        {
            CASE: rows[CASE],
            "result": rows[PASSED].map(mark),
            PASSED: rows[PASSED],
            "query": rows["query"],
            "shape": case_shapes(rows),
            "expected (rank)": [_expected_cell(r, k) for r in records],
            f"returned (top {k})": [_returned_cell(r, k) for r in records],
            "reasons": [_reasons_cell(r, k) for r in records],
            ERROR: rows[ERROR].fillna("").astype(str),
        }
    )
    frame = frame.drop(columns=PASSED)
    if "repeat_passes" in rows:  # --repeat N: passes of N, flaky cases first
        frame.insert(2, "passes", [f"{c}/{n}" for c, n in zip(rows["repeat_passes"], rows["repeats"], strict=True)])
    shown = f"; the {len(frame)} worst shown" if len(frame) < total else ""
    return table(frame, f"retrieval-cases-{target}", ["result"]).set_caption(
        f"{target}: {passed_all}/{total} retrieval cases pass (k={k}){shown}"
    )


def _retrieval_groups(run: Run, by: str) -> Styler | Note:
    rows = suite_rows(run, "retrieval")
    if isinstance(rows, Note):
        return rows
    derived = rows.assign(fixture=rows["fixtures"].map(fixture_key), shape=case_shapes(rows))
    derived["fixture / shape"] = derived["fixture"] + " / " + derived["shape"]
    frame = grouped(in_run_order(derived, run), wide_scores(run, "retrieval"), by)
    return table(frame, "retrieval-by-" + re.sub(r"[^a-z]+", "-", by))


def retrieval_by_fixture(run: Run) -> Styler | Note:
    """Pass rate and mean metrics per fixture (``a+b`` for multi-repo cases) and target."""
    return _retrieval_groups(run, "fixture")


def retrieval_by_shape(run: Run) -> Styler | Note:
    """Pass rate and mean metrics per shape (the case's own, else its query text's) and target."""
    return _retrieval_groups(run, "shape")


def retrieval_by_fixture_and_shape(run: Run) -> Styler | Note:
    """Pass rate and mean metrics per (fixture, shape) and target: each repository's slices."""
    return _retrieval_groups(run, "fixture / shape")


def rank_counts(run: Run) -> pd.DataFrame | Note:
    """Per target, how many expected files landed at each rank: ``1``..``k``, ``>k``, ``not returned``."""
    rows = suite_rows(run, "retrieval")
    if isinstance(rows, Note):
        return rows
    k = k_of(run)
    buckets = [str(r) for r in range(1, k + 1)] + [f">{k}", "not returned"]
    pairs = [
        (target, _bucket(rank, k))
        for target, ranks in zip(rows[TARGET], rows["expected_ranks"], strict=True)
        if isinstance(ranks, dict)
        for rank in ranks.values()
    ]
    frame = pd.DataFrame(pairs, columns=[TARGET, "rank"])
    counts = pd.crosstab(frame[TARGET], frame["rank"]) if pairs else pd.DataFrame()
    order = [t for t in targets_of(run) if t in counts.index]
    return counts.reindex(index=order, columns=buckets, fill_value=0)


def _bucket(rank: Any, k: int) -> str:
    if rank is None or pd.isna(rank):
        return "not returned"
    return str(int(rank)) if rank <= k else f">{k}"


def token_savings(run: Run) -> Styler | Note:
    """Per target, the token-savings suite's summary: savings next to the pack's recall."""
    per_target = (run.summary.get("suites") or {}).get("tokens")
    rows = suite_rows(run, "tokens")
    if isinstance(rows, Note):
        return rows
    frame = pd.DataFrame(
        [
            {TARGET: t, "cases": r.get("cases"), **(r.get("metrics") or {})}
            for t, r in (per_target or {}).items()
            if not r.get("skipped")
        ]
    )
    return table(frame, "token-savings").set_caption(
        "Savings alone prove nothing: compare each target's recall with the random control's."
    )
