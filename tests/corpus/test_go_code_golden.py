"""A golden set in go-code's own format scores exactly what go-code's rules give (hand-worked).

go-code's ``expected_top_3`` labels are strings: ``file:symbol`` matches a hit with that symbol whose
file equals the label's file or ends with ``/`` + it; a bare ``symbol`` matches that symbol in any
file. ``#`` lines and blank lines are skipped.
"""

from __future__ import annotations

from math import log2
from pathlib import Path

import pytest

from workbench.contract import SearchHit
from workbench.corpus import load_corpus
from workbench.corpus.goldens import load_golden
from workbench.errors import CorpusError
from workbench.run.runner import RunOptions, run
from workbench.suites.ranking import item_matches

from ..conftest import write_corpus

GOLDEN = """\
# go-code golden set: one JSON record per line
{"query": "quote a shell word", "expected_top_3": ["shlex.py:quote"]}

{"query": "split words", "expected_top_3": ["split", "lib/shlex.py:join"]}
  # an indented comment
{"query": "parse args", "expected_top_3": ["argparse.py:ArgumentParser.parse_args", "cli.py:main"]}
"""
HITS = {
    # "shlex.py:quote" is matched by Lib/shlex.py#quote (a /-anchored suffix) at rank 1.
    "quote a shell word": [("Lib/shlex.py", "quote")],
    # rank 1: wrong file for join; rank 2: x/lib/shlex.py ends with /lib/shlex.py; rank 3: bare "split"
    # in any file; rank 4: xlib/shlex.py ends with "lib/shlex.py" but not with "/lib/shlex.py".
    "split words": [("lib/other.py", "join"), ("x/lib/shlex.py", "join"), ("a.py", "split"), ("xlib/shlex.py", "join")],
    # rank 1: parse_args is not ArgumentParser.parse_args; rank 2: tools/cli.py#main matches cli.py:main.
    "parse args": [("argparse.py", "parse_args"), ("tools/cli.py", "main")],
}


class _GoCodeLike:
    name, version = "go-code-like", "1"

    def search(self, query, repo, top_k):
        return [SearchHit(file, symbol) for file, symbol in HITS[query]]


def go_code_like() -> _GoCodeLike:
    return _GoCodeLike()


def test_labels_parse_as_go_code_reads_them(tmp_path: Path) -> None:
    golden = tmp_path / "g.jsonl"
    golden.write_text(GOLDEN)
    queries = load_golden(golden)
    assert [q.expected for q in queries] == [
        (("shlex.py", "quote", True),),
        (("", "split", True), ("lib/shlex.py", "join", True)),
        (("argparse.py", "ArgumentParser.parse_args", True), ("cli.py", "main", True)),
    ]
    golden.write_text('{"query": "q", "expected_top_3": ["Foo::bar", "src/lib.rs:Foo::baz"]}\n')
    assert load_golden(golden)[0].expected == (("", "Foo::bar", True), ("src/lib.rs", "Foo::baz", True))
    golden.write_text('{"query": "q", "expected_top_3": ["shlex.py:"]}\n')
    with pytest.raises(CorpusError, match=r"g.jsonl:1.expected_top_3\[0\]: expected 'file:symbol'"):
        load_golden(golden)


def test_matching_rules() -> None:
    label = ("lib/shlex.py", "join", True)
    assert item_matches("lib/shlex.py", "join", label) and item_matches("x/lib/shlex.py", "join", label)
    assert not item_matches("xlib/shlex.py", "join", label) and not item_matches("lib/shlex.py", "split", label)
    assert item_matches("anything/at/all.go", "split", ("", "split", True))
    assert not item_matches("x/lib/shlex.py", "join", ("lib/shlex.py", "join", False))  # workbench form: exact


def test_go_code_golden_scores_the_hand_worked_values(tmp_path: Path) -> None:
    (tmp_path / "fixtures" / "py").mkdir(parents=True)
    (tmp_path / "fixtures" / "py" / "shlex.py").write_text("def quote(s): ...\n")
    corpus = write_corpus(
        tmp_path,
        {
            "fixtureRoots": {"py": "fixtures/py"},
            "ranking": [{"name": "py", "repoFixture": "py", "golden": "golden.jsonl"}],
        },
    )
    (corpus.parent / "golden.jsonl").write_text(GOLDEN)
    options = RunOptions(
        suites=["ranking"],
        targets=["python:tests.corpus.test_go_code_golden:go_code_like"],
        out_dir=tmp_path / "runs",
        progress=False,
    )
    result = run(load_corpus(corpus), options)
    scores = result.scores.pivot_table(index="case", columns="metric", values="value")
    ideal_two = 1 + 1 / log2(3)
    expected = {  # case -> (ndcg@10, recall@10, mrr)
        "py/golden:2": (1.0, 1.0, 1.0),
        "py/golden:4": ((1 / log2(3) + 1 / log2(4)) / ideal_two, 1.0, 1 / 2),
        "py/golden:6": ((1 / log2(3)) / ideal_two, 1 / 2, 1 / 2),
    }
    for case, (ndcg, recall, mrr) in expected.items():
        assert scores.loc[case, "ndcg@10"] == pytest.approx(ndcg), case
        assert scores.loc[case, "recall@10"] == pytest.approx(recall), case
        assert scores.loc[case, "mrr"] == pytest.approx(mrr), case
    metrics = result.summary["suites"]["ranking"]["go-code-like"]["metrics"]
    assert metrics["ndcg@10"] == pytest.approx(sum(v[0] for v in expected.values()) / 3)
    assert metrics["recall@20"] == pytest.approx(2.5 / 3)
    passed = result.cases.set_index("case")["passed"].to_dict()
    assert passed == {"py/golden:2": True, "py/golden:4": True, "py/golden:6": False}
