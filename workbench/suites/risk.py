"""The risk suite: does the engine label tasks and paths with the right review-risk concepts?

Per case the target answers ``risk_concepts(mode, text)`` (mode ``query``, ``path``, ``gate``
or ``secret``; the text is the case's ``query`` or ``path``). A case passes, and scores
``accuracy`` 1, when every ``expectedConcepts`` label is returned and no ``notExpectedConcepts``
label is; otherwise 0. A case the target failed scores 0 and keeps its error. Each case row also
lists, per labelled concept, whether it was expected and whether it was returned, which
``concept_confusion`` turns into a per-concept confusion table.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from ..columns import CASE, METRIC, PASSED, VALUE
from ..errors import CorpusError, TargetError
from .base import Outcome, RunContext, Scored, Suite, mean_metrics

MODES = ("query", "path", "gate", "secret")
CONFUSION = ("tp", "fn", "fp", "tn")


def case_text(case: dict[str, Any]) -> tuple[str, str]:
    """A case's (mode, text), or a CorpusError naming the case and the bad field."""
    name = case.get("name", "?")
    mode = case.get("mode")
    if mode not in MODES:
        raise CorpusError(f"risk case {name!r}: mode must be one of {', '.join(MODES)}, got {mode!r}")
    text = case.get("query", case.get("path"))
    if not isinstance(text, str) or not text.strip():
        raise CorpusError(f"risk case {name!r}: needs a non-empty 'query' or 'path' string")
    return mode, text


def _labels(case: dict[str, Any], key: str) -> list[str]:
    value = case.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CorpusError(f"risk case {case.get('name', '?')!r}: {key} must be a list of strings")
    return value


def _concepts(answer: Any) -> list[str]:
    """The target's answer as sorted labels, or a TargetError if it is not a collection of strings."""
    if isinstance(answer, (str, bytes)) or not isinstance(answer, Iterable):
        raise TargetError(f"risk_concepts returned {type(answer).__name__}, expected a set of strings")
    labels = list(answer)
    if not all(isinstance(label, str) for label in labels):
        raise TargetError("risk_concepts returned a non-string concept")
    return sorted(set(labels))


class RiskSuite(Suite):
    name = "risk"
    capability = "risk_concepts"
    description = "concepts returned for a task or path vs expected and not-expected labels"

    def run_case(self, target: Any, case: dict[str, Any], ctx: RunContext) -> dict[str, Any]:
        mode, text = case_text(case)
        expected, forbidden = _labels(case, "expectedConcepts"), _labels(case, "notExpectedConcepts")
        concepts = _concepts(target.risk_concepts(mode, text))
        returned = set(concepts)
        return {
            "concepts": concepts,
            "missing": sorted(set(expected) - returned),
            "unexpected": sorted(set(forbidden) & returned),
        }

    def score(self, outcomes: list[Outcome], ctx: RunContext) -> Scored:
        rows = [self._case_row(outcome) for outcome in outcomes]
        scores = pd.DataFrame(
            {CASE: [row["case"] for row in rows], METRIC: "accuracy", VALUE: [float(row[PASSED]) for row in rows]}
        )
        return Scored(rows, scores)

    @staticmethod
    def _case_row(outcome: Outcome) -> dict[str, Any]:
        case, seen = outcome.case, outcome.observation
        expected, forbidden = case.get("expectedConcepts") or [], case.get("notExpectedConcepts") or []
        returned = set(seen["concepts"]) if seen else set()
        labels = [{"concept": c, "expected": True, "returned": c in returned} for c in expected]
        labels += [{"concept": c, "expected": False, "returned": c in returned} for c in forbidden]
        passed = seen is not None and outcome.error is None and not seen["missing"] and not seen["unexpected"]
        return {
            "case": outcome.name,
            PASSED: passed,
            "mode": case.get("mode"),
            "text": case.get("query", case.get("path")),
            "expected": list(expected),
            "notExpected": list(forbidden),
            "concepts": seen["concepts"] if seen else None,
            "missing": seen["missing"] if seen else list(expected),
            "unexpected": seen["unexpected"] if seen else [],
            "labels": labels,
        }

    def aggregate(self, scores: pd.DataFrame, case_rows: pd.DataFrame) -> dict[str, float | None]:
        return mean_metrics(scores, ["accuracy"])


def concept_confusion(case_rows: pd.DataFrame) -> pd.DataFrame:
    """Per concept (and target, when present): tp, fn, fp, tn counts over the labelled cases.

    An expected label is a tp when returned, else fn; a not-expected label is an fp when
    returned, else tn. Errored cases count every label as not returned.
    """
    keys = [c for c in ("target", "mode") if c in case_rows.columns]
    labels = case_rows[[*keys, "labels"]].explode("labels").dropna(subset=["labels"])
    if labels.empty:
        return pd.DataFrame(columns=[*keys, "concept", *CONFUSION])
    flat = pd.concat([labels[keys].reset_index(drop=True), pd.json_normalize(labels["labels"].tolist())], axis=1)
    expected, returned = flat["expected"].to_numpy(bool), flat["returned"].to_numpy(bool)
    flat["outcome"] = np.select(
        [expected & returned, expected & ~returned, ~expected & returned], ["tp", "fn", "fp"], "tn"
    )
    table = pd.crosstab([flat[k] for k in keys] + [flat["concept"]], flat["outcome"])
    return table.reindex(columns=list(CONFUSION), fill_value=0).reset_index().rename_axis(columns=None)
