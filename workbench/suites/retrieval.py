"""The retrieval suite: does the context pack surface the files an agent needs?

Rules (the solumbe/otito accuracy eval): per case, with k from the corpus,
precision@k divides the relevant files in the top k by the files actually
returned in the top k (packs are tiny on purpose), recall@k, reciprocal rank
within k and nDCG@k over ``expectedPrimary``. A case passes when every
expectedPrimary file is in the top k and, if ``expectedAnyOf`` is given, one of
those appears anywhere in the pack (primary or related). Pure-fallback cases
(``expectedPrimary: []``) only need a non-empty pack; their metrics are null
and excluded from the means. A case the target failed scores 0.

Symbol level (``workbench.analysis.symbols``): a case with ``expectedSymbols`` is also scored
``symbolAccAtK``, ``symbolRecallAtK`` and ``symbolMrr`` over the pack's ranked ``symbols``. When
no answer of the target carries ``symbols`` those metrics are skipped (null, with the reason in
the summary's ``skipped_metrics``), never 0; a corpus without ``expectedSymbols`` has none of them.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import SYMBOL_METRICS, first_ranks, metrics, symbol_scores
from ..columns import CASE, METRIC, PASSED, VALUE
from ..contract import PACK_LIMIT, FileRef, Repo, ask_pack
from ..corpus import case_fixtures
from .base import Outcome, RunContext, Scored, Suite, mean_metrics

METRICS = ("precisionAtK", "recallAtK", "mrr", "ndcgAtK")
SYMBOLS_KEPT = 50  # ranked symbols kept per case (more than any k scores)
NO_SYMBOLS = "skipped: the target's context_pack answers carry no ranked 'symbols'"


def doc_id(ref: FileRef, multi_repo: bool) -> str:
    """A file's id as the corpus spells it: ``path``, or ``<fixture>/<path>`` for multi-repo cases."""
    return f"{ref.repo}/{ref.path}" if multi_repo else ref.path


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def spelling_notes(expected: list[str], returned: list[str]) -> list[str]:
    """Expected files the pack holds only under another Unicode normalization of the same path (NFC
    against NFD): still a miss, as the corpus and the engine differ, but said, never silent."""
    by_form = {unicodedata.normalize("NFC", doc): doc for doc in returned}
    shown = set(returned)
    return [
        f"{doc!r} was returned as {by_form[form]!r}, the same path in another Unicode normalization "
        "(NFC/NFD): counted as a miss"
        for doc in expected
        if doc not in shown and (form := unicodedata.normalize("NFC", doc)) in by_form
    ]


class RetrievalSuite(Suite):
    name = "retrieval"
    capability = "context_pack"
    headline = "mrr"
    description = "precision@k, recall@k, MRR and nDCG@k of the context pack's primary files"

    def run_case(self, target: Any, case: dict[str, Any], ctx: RunContext) -> dict[str, Any]:
        names = case_fixtures(case)
        repos = [Repo(name, ctx.corpus.repo_dir(name, case)) for name in names]
        pack = ask_pack(target, case["query"], repos, PACK_LIMIT, ctx.corpus.gold_scope)
        multi = len(names) > 1
        seen: dict[str, Any] = {
            "primary": _unique([doc_id(r, multi) for r in pack.primary]),
            "related": _unique([doc_id(r, multi) for r in pack.related]),
            "reasons": {doc_id(r, multi): r.reason for r in [*pack.primary, *pack.related] if r.reason},
        }
        if pack.symbols is not None:
            symbols = [[doc_id(FileRef(s.repo, s.path), multi), s.name] for s in pack.symbols]
            seen["symbols"] = [list(s) for s in dict.fromkeys(map(tuple, symbols))][:SYMBOLS_KEPT]
        return seen

    def score(self, outcomes: list[Outcome], ctx: RunContext) -> Scored:
        k = ctx.corpus.k
        rows = [self._case_row(outcome, k) for outcome in outcomes]
        scored = [o for o, row in zip(outcomes, rows) if not row["fallback"]]
        names = [o.name for o in scored]
        ranking = [
            (name, doc, rank)
            for name, o in zip(names, scored)
            if o.observation
            for rank, doc in enumerate(o.observation["primary"], 1)
        ]
        qrels = [(name, doc, 1) for name, o in zip(names, scored) for doc in o.case.get("expectedPrimary", [])]
        frame = metrics.evaluate(ranking, qrels, list(METRICS), k=k, cases=names)
        fallback = [row["case"] for row in rows if row["fallback"]]
        nulls = pd.DataFrame(
            {CASE: np.repeat(fallback, len(METRICS)), METRIC: np.tile(METRICS, len(fallback)), VALUE: np.nan}
        )
        return Scored(rows, pd.concat([frame, nulls, self._symbol_scores(outcomes, rows, k)], ignore_index=True))

    @staticmethod
    def _symbol_scores(outcomes: list[Outcome], rows: list[dict[str, Any]], k: int) -> pd.DataFrame:
        """Symbol-level scores of the cases with ``expectedSymbols`` (their rows gain the fields);
        none at all when no answer carried ``symbols``."""
        says = any("symbols" in (o.observation or {}) for o in outcomes)
        found: list[tuple[str, str, float]] = []
        for outcome, row in zip(outcomes, rows):
            gold = outcome.case.get("expectedSymbols") or []
            if not gold:
                continue
            returned = [tuple(s) for s in (outcome.observation or {}).get("symbols", [])]
            row["expectedSymbols"] = list(gold)
            row["returnedSymbols"] = [f"{path}:{name}" for path, name in returned] if says else None
            row["symbolRanks"] = [rank or None for rank in first_ranks(returned, gold)] if says else None
            if says:
                found += [(outcome.name, m, v) for m, v in symbol_scores(returned, gold, k).items()]
        return pd.DataFrame(found, columns=[CASE, METRIC, VALUE])

    @staticmethod
    def _case_row(outcome: Outcome, k: int) -> dict[str, Any]:
        case, seen = outcome.case, outcome.observation or {"primary": [], "related": [], "reasons": {}}
        expected, any_of = case.get("expectedPrimary", []), case.get("expectedAnyOf") or []
        top = seen["primary"][:k]
        ranks = {doc: seen["primary"].index(doc) + 1 if doc in seen["primary"] else None for doc in expected}
        pack = set(seen["primary"]) | set(seen["related"])
        any_hit = not any_of or any(doc in pack for doc in any_of)
        fallback = not expected
        passed = outcome.error is None and any_hit and (bool(pack) if fallback else all(doc in top for doc in expected))
        return {
            "case": outcome.name,
            PASSED: passed,
            "query": case.get("query"),
            "fixtures": case_fixtures(case),
            "fallback": fallback,
            "expected": expected,
            "expectedAnyOf": any_of,
            "returned": seen["primary"],
            "related": seen["related"],
            "expected_ranks": ranks,
            "any_of_hit": any_hit if any_of else None,
            "reasons": seen.get("reasons", {}),
            "shape": case.get("shape"),
            "revision": case.get("revision"),
            "spelling": spelling_notes([*expected, *any_of], [*seen["primary"], *seen["related"]]) or None,
        }

    def aggregate(self, scores: pd.DataFrame, case_rows: pd.DataFrame) -> dict[str, float | None]:
        symbol_level = "expectedSymbols" in case_rows and bool(case_rows["expectedSymbols"].notna().any())
        return mean_metrics(scores, [*METRICS, *(SYMBOL_METRICS if symbol_level else ())])

    def metric_notes(self, scores: pd.DataFrame, case_rows: pd.DataFrame) -> dict[str, str]:
        """Why a symbol-level metric is null: the corpus has gold symbols, the target gave none."""
        if "expectedSymbols" not in case_rows or not case_rows["expectedSymbols"].notna().any():
            return {}
        if scores[METRIC].isin(SYMBOL_METRICS).any():
            return {}
        return dict.fromkeys(SYMBOL_METRICS, NO_SYMBOLS)
