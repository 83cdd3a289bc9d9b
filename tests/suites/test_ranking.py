"""The ranking suite: go-code's nDCG@10 / Recall@K / MRR rules, golden parsing, end to end."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from workbench.contract import SearchHit
from workbench.corpus import load_corpus, validate_corpus
from workbench.corpus.goldens import load_golden
from workbench.errors import CorpusError
from workbench.run.runner import RunOptions, run
from workbench.suites.ranking import go_code_metrics, match_matrix

from ..conftest import write_corpus


def _metrics(hits, expected):
    relevant, first = match_matrix(hits, expected)
    values = go_code_metrics(relevant[None], first[None], np.array([len(expected)]))
    return {k: float(v[0]) for k, v in values.items()}


def test_hand_worked_example() -> None:
    expected = [["a.go", "Find"], ["b.go", ""], ["c.go", "C"]]
    hits = [("x.go", "X"), ("a.go", "Find"), ("a.go", "Other"), ("b.go", "B")] + [("z.go", "Z")] * 8 + [("c.go", "C")]
    got = _metrics(hits, expected)
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert got["ndcg@10"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)
    assert got["recall@10"] == pytest.approx(2 / 3) and got["recall@20"] == 1.0
    assert got["mrr"] == 0.5


def test_two_hits_on_one_item_clamp_ndcg_to_one() -> None:
    got = _metrics([("a.go", "F"), ("a.go", "G")], [["a.go", ""]])
    assert got["ndcg@10"] == 1.0 and got["recall@10"] == 1.0


def test_no_hits_scores_zero() -> None:
    assert _metrics([], [["a.go", ""]]) == {"ndcg@10": 0.0, "recall@10": 0.0, "recall@20": 0.0, "mrr": 0.0}


def test_golden_parsing_errors_name_line_and_field(tmp_path: Path) -> None:
    golden = tmp_path / "g.jsonl"
    golden.write_text('{"id": "q1", "query": "find", "expected": [{"file": "a.go"}]}\n{"query": "", "expected": []}\n')
    with pytest.raises(CorpusError, match=r"g.jsonl:2.query: expected a non-empty string"):
        load_golden(golden)
    golden.write_text('{"query": "find", "expected_top_3": ["a.go", {"file": "b.go", "symbol": "B"}]}\n')
    assert load_golden(golden)[0].expected == (
        ("", "a.go", True),
        ("b.go", "B", False),
    )  # go-code: a bare label is a symbol


class _Search:
    name, version = "fake-search", "1"

    def search(self, query, repo, top_k):
        table = {"orders": [SearchHit("src/orders.ts", "listOrders")], "users": [SearchHit("src/index.ts", "main")]}
        return table.get(query, [])


def fake_search() -> _Search:
    return _Search()


def test_end_to_end(tiny_corpus: Path, tmp_path: Path) -> None:
    golden = tiny_corpus.parent / "ranking" / "api.jsonl"
    golden.parent.mkdir()
    golden.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {
                    "id": "q1",
                    "query": "orders",
                    "expected": [{"file": "src/orders.ts", "symbol": "listOrders"}],
                    "language": "ts",
                },
                {"id": "q2", "query": "users", "expected": [{"file": "src/users.ts"}], "language": "ts"},
            ]
        )
        + "\n"
    )
    data = json.loads(tiny_corpus.read_text())
    data["ranking"] = [{"name": "api", "repoFixture": "api", "golden": "ranking/api.jsonl"}]
    data["thresholds"]["ranking"] = {"ndcg@10": 0.4}
    tiny_corpus.write_text(json.dumps(data))
    assert validate_corpus(tiny_corpus) == []
    result = run(
        load_corpus(tiny_corpus),
        RunOptions(
            suites=["ranking"],
            targets=["python:tests.suites.test_ranking:fake_search"],
            out_dir=tmp_path / "runs",
            progress=False,
        ),
    )
    summary = result.summary["suites"]["ranking"]["fake-search"]
    assert summary["metrics"] == {"ndcg@10": 0.5, "recall@10": 0.5, "recall@20": 0.5, "mrr": 0.5}
    assert summary["passed"] is True and summary["passed_cases"] == 1
    assert set(result.cases["case"]) == {"api/q1", "api/q2"}


def test_missing_golden_file_is_a_validation_problem(tmp_path: Path) -> None:
    (tmp_path / "fixtures" / "api").mkdir(parents=True)
    path = write_corpus(tmp_path, {"ranking": [{"name": "api", "repoFixture": "api", "golden": "ranking/none.jsonl"}]})
    problems = [str(p) for p in validate_corpus(path)]
    assert len(problems) == 1 and "golden file not found" in problems[0]
