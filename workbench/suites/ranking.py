"""The ranking suite: a golden set of search queries, scored with go-code's rules.

Corpus section ``ranking``: a list of sets ``{name, repoFixture, golden}`` (one object is accepted
too), where ``golden`` is a JSONL file (see ``workbench.goldens``). Each query asks the target's
``search(query, repo, top_k=20)`` for ranked (file, symbol) hits, in the fixture's directory or, for a
line with a ``revision``, that commit's tree (as a retrieval case with one). A hit is relevant when it matches an
expected item: its file equals the item's file and, if the item names a symbol, its symbol too; a
go-code label (``expected_top_3`` strings) matches by symbol alone (``symbol``) or by symbol plus the
file equal or a ``/``-anchored suffix of the hit's (``file:symbol``). Symbols compare by
``workbench.analysis.symbols.symbol_matches``, the rule the retrieval suite's symbol level uses: a
bare label (``putheader``) also matches a qualified hit by its last dotted part
(``HTTPConnection.putheader``); a qualified label needs the full name. Per query:

- ``ndcg@10``: binary gain, log2(rank + 1) discount, ideal DCG from the number of expected items
  (at most 10), clamped to 1 (two hits may match one item);
- ``recall@10`` / ``recall@20``: expected items matched by some hit in the top 10 / 20;
- ``mrr``: 1 / rank of the first relevant hit among the 20, else 0.

A query passes when every expected item is matched within the 20 (recall@20 = 1). A query the
target failed scores 0. Aggregates are the means; per-case latency is the case's ``seconds``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..analysis.symbols import symbol_matches
from ..columns import CASE, METRIC, PASSED, VALUE
from ..contract import Repo
from ..corpus.goldens import check_ranking, ranking_cases
from .base import Outcome, RunContext, Scored, Suite, mean_metrics

TOP_K = 20
METRICS = ("ndcg@10", "recall@10", "recall@20", "mrr")
DISCOUNT = 1.0 / np.log2(np.arange(2, TOP_K + 2))


def _norm(path: str) -> str:
    return path.replace("\\", "/").removeprefix("./")


def item_matches(file: str, symbol: str, item: list[Any] | tuple[Any, ...]) -> bool:
    """Whether a hit matches an expected ``(file, symbol[, suffix])`` item (go-code's rules: an empty
    symbol or file matches any; with ``suffix`` the hit's file may end with ``/`` + the item's file;
    symbols by ``symbol_matches``)."""
    want_file, want_symbol = item[0], item[1]
    if want_symbol and not symbol_matches(want_symbol, symbol):
        return False
    if not want_file:
        return bool(want_symbol)
    got, want = _norm(file), _norm(want_file)
    return got == want or (len(item) > 2 and bool(item[2]) and got.endswith("/" + want))


def match_matrix(hits: list[tuple[str, str]], expected: list[list[Any]]) -> tuple[np.ndarray, np.ndarray]:
    """Relevance of each of the top hits, and the first rank (1-based, 0 = never) each item is matched."""
    relevant = np.zeros(TOP_K, dtype=bool)
    first = np.zeros(len(expected), dtype=np.int64)
    for rank, (file, symbol) in enumerate(hits[:TOP_K], 1):
        for item, want in enumerate(expected):
            if item_matches(file, symbol, want):
                relevant[rank - 1] = True
                if first[item] == 0:
                    first[item] = rank
    return relevant, first


def go_code_metrics(relevant: np.ndarray, first: np.ndarray, n_expected: np.ndarray) -> dict[str, np.ndarray]:
    """Per-query metrics from an (n, 20) relevance matrix and an (n, max_items) first-match matrix."""
    dcg = (relevant[:, :10] * DISCOUNT[:10]).sum(axis=1)
    ideal = np.concatenate([[0.0], np.cumsum(DISCOUNT[:10])])[np.minimum(n_expected, 10)]
    ndcg = np.minimum(1.0, np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0))
    found = first > 0
    recall = {
        k: np.divide(
            (found & (first <= k)).sum(axis=1), n_expected, out=np.zeros(len(n_expected)), where=n_expected > 0
        )
        for k in (10, 20)
    }
    any_hit = relevant.any(axis=1)
    mrr = np.where(any_hit, 1.0 / (relevant.argmax(axis=1) + 1), 0.0)
    return {"ndcg@10": ndcg, "recall@10": recall[10], "recall@20": recall[20], "mrr": mrr}


class RankingSuite(Suite):
    name = "ranking"
    capability = "search"
    headline = "ndcg@10"
    description = "nDCG@10, Recall@10/20 and MRR of symbol search over golden queries (go-code rules)"

    def cases(self, corpus: Any) -> list[dict[str, Any]]:
        return ranking_cases(corpus)

    def check(self, corpus: Any) -> None:
        check_ranking(corpus)

    def run_case(self, target: Any, case: dict[str, Any], ctx: RunContext) -> dict[str, Any]:
        repo = Repo(case["repoFixture"], ctx.corpus.repo_dir(case["repoFixture"], case))
        hits = target.search(case["query"], repo, TOP_K)
        return {"hits": [[hit.file, hit.symbol] for hit in hits[:TOP_K]]}

    def score(self, outcomes: list[Outcome], ctx: RunContext) -> Scored:
        width = max((len(o.case["expected"]) for o in outcomes), default=1)
        relevant = np.zeros((len(outcomes), TOP_K), dtype=bool)
        first = np.zeros((len(outcomes), width), dtype=np.int64)
        n_expected = np.array([len(o.case["expected"]) for o in outcomes], dtype=np.int64)
        for row, outcome in enumerate(outcomes):
            hits = [tuple(h) for h in (outcome.observation or {}).get("hits", [])]
            relevant[row], first[row, : n_expected[row]] = match_matrix(hits, outcome.case["expected"])
        values = go_code_metrics(relevant, first, n_expected)
        names = [o.name for o in outcomes]
        scores = pd.DataFrame(
            {
                CASE: np.repeat(names, len(METRICS)),
                METRIC: np.tile(METRICS, len(names)),
                VALUE: np.column_stack([values[m] for m in METRICS]).ravel(),
            }
        )
        rows = [self._row(o, relevant[i], first[i, : n_expected[i]]) for i, o in enumerate(outcomes)]
        return Scored(rows, scores)

    @staticmethod
    def _row(outcome: Outcome, relevant: np.ndarray, first: np.ndarray) -> dict[str, Any]:
        case = outcome.case
        hits = (outcome.observation or {}).get("hits", [])
        return {
            "case": outcome.name,
            PASSED: outcome.error is None and bool(first.all()) and bool(len(first)),
            "query": case["query"],
            "set": case["set"],
            "fixtures": [case["repoFixture"]],
            "language": case["language"],
            "category": case["category"],
            "expected": case["expected"],
            "returned": [f"{f}#{s}" if s else f for f, s in hits],
            "relevant_ranks": [int(r) + 1 for r in np.flatnonzero(relevant)],
            "expected_ranks": [int(r) or None for r in first],
        }

    def aggregate(self, scores: pd.DataFrame, case_rows: pd.DataFrame) -> dict[str, float | None]:
        return mean_metrics(scores, METRICS)
