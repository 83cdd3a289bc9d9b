"""The findings suite: recorded code-review runs scored against a gold corpus of findings.

Corpus section ``findings``: ``{"gold": DIR, "runs": DIR, "lineTolerance": 3, "ruleCatalogue": [...]?}``.
Gold records are ``voyage-eval-gold/1`` files (``expected_verdict`` and ``findings`` of
``{file, line, rule_key, severity, owner_reviewer?, dual_flaggable?}``); a recorded run is
``{"agent", "gold": <gold file stem>, "verdict"?, "findings": [...]}``. No target is asked: each
recorded agent is this suite's target, and each (gold record, agent) pair is a case.

A recorded finding matches a gold one when the file is the same, the rule is the gold ``rule_key``
or its ``dual_flaggable`` alternative, and the lines are within ``lineTolerance`` (line 0 is
file-scoped and matches any line). Matching is one-to-one, closest lines first. Per case: tp, fp,
fn, precision, recall, F1 and verdict agreement (the recorded verdict, or the one computed from its
severities: BLOCKER -> BLOCK, else MAJOR -> WARN, else ALLOW). Aggregates are micro-averaged
(summed counts) precision, recall and F1, and the mean verdict agreement.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..columns import CASE, METRIC, PASSED, VALUE
from ..corpus.findings_gold import DEFAULT_TOLERANCE, SEVERITIES, VERDICTS, computed_verdict, load_findings
from .base import Outcome, RunContext, Scored, Suite

__all__ = ["DEFAULT_TOLERANCE", "SEVERITIES", "VERDICTS", "FindingsSuite", "computed_verdict", "load_findings", "match"]

COUNTS = ("tp", "fp", "fn")
METRICS = ("precision", "recall", "f1", "verdictAgreement")


def match(gold: list[dict[str, Any]], found: list[dict[str, Any]], tolerance: int) -> list[tuple[int, int]]:
    """One-to-one (gold index, found index) matches, closest lines first."""
    candidates = []
    for g, want in enumerate(gold):
        rules = {want["rule_key"], want.get("dual_flaggable")} - {None}
        for f, got in enumerate(found):
            if got["file"] != want["file"] or got["rule_key"] not in rules:
                continue
            scoped = want.get("line", 0) == 0 or got.get("line", 0) == 0
            distance = 0 if scoped else abs(got.get("line", 0) - want.get("line", 0))
            if distance <= tolerance:
                candidates.append((distance, g, f))
    pairs, used_gold, used_found = [], set(), set()
    for _, g, f in sorted(candidates):
        if g not in used_gold and f not in used_found:
            pairs.append((g, f))
            used_gold.add(g)
            used_found.add(f)
    return pairs


class FindingsSuite(Suite):
    name = "findings"
    capability = None
    description = "precision, recall and F1 of recorded review findings against gold records"

    def plan(self, corpus: Any, targets: list[Any]) -> list[tuple[str, Any, list[dict[str, Any]]]]:
        gold, runs, tolerance = load_findings(corpus)
        by_agent: dict[str, list[dict[str, Any]]] = {}
        for recorded in runs:
            record = gold[recorded["gold"]]
            by_agent.setdefault(recorded["agent"], []).append(
                {"name": recorded["gold"], "gold": record, "recorded": recorded, "tolerance": tolerance}
            )
        return [(agent, None, cases) for agent, cases in sorted(by_agent.items())]

    def run_case(self, target: Any, case: dict[str, Any], ctx: RunContext) -> dict[str, Any]:
        gold, found = case["gold"]["findings"], case["recorded"].get("findings", [])
        pairs = match(gold, found, case["tolerance"])
        verdict = case["recorded"].get("verdict") or computed_verdict(found)
        return {
            "matched": [[gold[g]["rule_key"], gold[g]["file"]] for g, _ in pairs],
            "missed": [[gold[g]["rule_key"], gold[g]["file"]] for g in set(range(len(gold))) - {g for g, _ in pairs}],
            "extra": [[found[f]["rule_key"], found[f]["file"]] for f in set(range(len(found))) - {f for _, f in pairs}],
            "verdict": verdict,
        }

    def score(self, outcomes: list[Outcome], ctx: RunContext) -> Scored:
        counts = np.array(
            [
                [len(o.observation["matched"]), len(o.observation["extra"]), len(o.observation["missed"])]
                if o.observation
                else [0, 0, len(o.case["gold"]["findings"])]
                for o in outcomes
            ],
            float,
        )
        tp, fp, fn = counts.T
        precision = np.divide(tp, tp + fp, out=np.full(len(tp), np.nan), where=tp + fp > 0)
        recall = np.divide(tp, tp + fn, out=np.full(len(tp), np.nan), where=tp + fn > 0)
        f1 = np.divide(2 * tp, 2 * tp + fp + fn, out=np.full(len(tp), np.nan), where=2 * tp + fp + fn > 0)
        agree = np.array(
            [
                float(o.observation is not None and o.observation["verdict"] == o.case["gold"]["expected_verdict"])
                for o in outcomes
            ]
        )
        columns = {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "verdictAgreement": agree,
        }
        names = [o.name for o in outcomes]
        scores = pd.DataFrame(
            {
                CASE: np.repeat(names, len(columns)),
                METRIC: np.tile(list(columns), len(names)),
                VALUE: np.column_stack(list(columns.values())).ravel(),
            }
        )
        rows = [
            {
                "case": o.name,
                PASSED: o.error is None and fn[i] == 0 and fp[i] == 0 and agree[i] == 1.0,
                "expected_verdict": o.case["gold"]["expected_verdict"],
                "source": o.case["recorded"]["source"],
                **(o.observation or {}),
            }
            for i, o in enumerate(outcomes)
        ]
        return Scored(rows, scores)

    def aggregate(self, scores: pd.DataFrame, case_rows: pd.DataFrame) -> dict[str, float | None]:
        sums = scores[scores[METRIC].isin(COUNTS)].groupby(METRIC)[VALUE].sum()
        tp, fp, fn = (float(sums.get(c, 0.0)) for c in COUNTS)
        agreement = scores.loc[scores[METRIC] == "verdictAgreement", VALUE].mean()
        return {
            "precision": tp / (tp + fp) if tp + fp else None,
            "recall": tp / (tp + fn) if tp + fn else None,
            "f1": 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else None,
            "verdictAgreement": None if pd.isna(agreement) else float(agreement),
        }
