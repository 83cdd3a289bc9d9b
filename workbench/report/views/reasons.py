"""Why a case failed, in one short phrase, from the fields its suite recorded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from ...columns import ERROR, SUITE
from .common import joined


def _present(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and pd.isna(value))


def _retrieval(row: dict[str, Any], k: int) -> str:
    ranks = row.get("expected_ranks") or {}
    missed = [
        f"{doc} {'not returned' if rank is None or pd.isna(rank) else f'at rank {int(rank)}'}"
        for doc, rank in ranks.items()
        if rank is None or pd.isna(rank) or rank > k
    ]
    parts = [f"outside top {k}: {'; '.join(missed)}"] if missed else []
    hit = row.get("any_of_hit")
    if _present(hit) and not hit:
        parts.append(f"none of expectedAnyOf in the pack ({joined(row.get('expectedAnyOf'))})")
    if row.get("fallback") and not (row.get("returned") or row.get("related")):
        parts.append("empty pack for a fallback query")
    spelling: Any = row.get("spelling")  # a list, an array once stored, or missing (None, NaN)
    if spelling is not None and not isinstance(spelling, (float, str)):
        parts += [str(note) for note in list(spelling)]
    return "; ".join(parts)


def _risk(row: dict[str, Any], k: int) -> str:
    parts = []
    if row.get("missing"):
        parts.append(f"missing {joined(row['missing'])}")
    if row.get("unexpected"):
        parts.append(f"unexpected {joined(row['unexpected'])}")
    return "; ".join(parts)


def _tokens(row: dict[str, Any], k: int) -> str:
    parts = []
    savings, recall = row.get("savings"), row.get("recallAtK")
    if savings is not None and _present(savings) and savings <= 0:
        parts.append(f"pack not smaller than the dump (savings {savings:.2f})")
    if recall is not None and _present(recall) and recall < 1:
        parts.append(f"recall@{k} {recall:.2f}")
    if not (row.get("primary") or row.get("related")) and row.get("pack_source") != "text":
        parts.append("empty pack")
    return "; ".join(parts)


def _verdict(row: dict[str, Any], actual: str, expected: str) -> list[str]:
    got, want = row.get(actual), row.get(expected)
    return [f"verdict {got} (expected {want})"] if _present(want) and got != want else []


def _gate(row: dict[str, Any], k: int) -> str:
    parts = _verdict(row, "verdict", "expectedVerdict") + list(row.get("missing") or [])
    if row.get("unexpectedFails"):
        parts.append(f"unexpected FAIL: {joined(row['unexpectedFails'])}")
    return "; ".join(parts)


def _harness(row: dict[str, Any], k: int) -> str:
    return "; ".join(
        f"{c.get('command')}: {c.get('reason') or 'failed'}"
        for c in row.get("commands") or []
        if isinstance(c, dict) and not c.get("passed")
    )


def _findings(row: dict[str, Any], k: int) -> str:
    def pairs(key: str) -> str:
        return ", ".join(f"{rule} in {file}" for rule, file in row.get(key) or [])

    parts = [f"{label} {pairs(key)}" for key, label in (("missed", "missed"), ("extra", "extra")) if row.get(key)]
    return "; ".join(parts + _verdict(row, "verdict", "expected_verdict"))


def _ranking(row: dict[str, Any], k: int) -> str:
    expected, ranks = row.get("expected") or [], row.get("expected_ranks") or []
    missed = ["#".join(str(p) for p in item if p) for item, rank in zip(expected, ranks) if rank is None]
    return f"not in the top 20: {', '.join(missed)}" if missed else ""


EXPLAINERS: dict[str, Callable[[dict[str, Any], int], str]] = {
    "retrieval": _retrieval,
    "risk": _risk,
    "tokens": _tokens,
    "gate": _gate,
    "harness": _harness,
    "findings": _findings,
    "ranking": _ranking,
}


def explain(row: dict[str, Any], k: int) -> str:
    """The error, else the suite's reason for a failing case, else ``did not pass``."""
    if _present(row.get(ERROR)) and str(row[ERROR]):
        return f"error: {row[ERROR]}"
    explainer = EXPLAINERS.get(str(row.get(SUITE)))
    return (explainer(row, k) if explainer else "") or "did not pass"
