"""Issue 20, item 7: TREC ids round-trip. The escaping is reversible (``%`` is escaped too), distinct
ids never collide, and export -> import gives back the run's own ids and scores."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from workbench.cli import main
from workbench.errors import CorpusError
from workbench.interchange.formats import trec_id, trec_unescape
from workbench.interchange.trec import read_trec
from workbench.store.runs import load_run

IDS = st.text(min_size=1, max_size=30)


@settings(max_examples=500, deadline=None)
@given(IDS, IDS)
def test_distinct_ids_never_collide_and_unescape_inverts(a: str, b: str) -> None:
    assert trec_unescape(trec_id(a)) == a
    assert len(trec_id(a).split()) == 1 and trec_id(a) == trec_id(a).strip()
    if a != b:
        assert trec_id(a) != trec_id(b)


def test_the_collisions_the_issue_found_are_gone() -> None:
    assert trec_id("a b.py") == "a%20b.py" and trec_id("a%20b.py") == "a%2520b.py"
    assert trec_id("a\tb") == "a%09b" and trec_id("a\nb") == "a%0Ab"
    assert len({trec_id(s) for s in ("a b.py", "a%20b.py", "a\tb.py", "a\nb.py", "a%09b.py")}) == 5


def test_an_escape_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "q.qrels").write_text("q1 0 a%FF.py 1\n")
    with pytest.raises(CorpusError, match=r"q\.qrels:1: not a TREC qrels or run line"):
        read_trec([tmp_path / "q.qrels"])


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.text(st.characters(codec="utf-8", exclude_characters="/\\\x00"), min_size=1, max_size=12).map(
            "fx".__add__  # never "f:..." (a Windows drive path, which import rightly refuses)
        ),
        min_size=1,
        max_size=6,
        unique=True,
    )
)
@example(docs=["f\x85 x", "f\u2028", "fa%20b"])  # line separators str.splitlines would split on
def test_export_then_import_is_the_identity(tmp_path_factory: pytest.TempPathFactory, docs: list[str]) -> None:
    tmp = tmp_path_factory.mktemp("trec")
    qrels = "".join(f"{trec_id('case ' + d)} 0 {trec_id(d)} 1\n" for d in docs)
    run = "".join(
        f"{trec_id('case ' + d)} Q0 {trec_id(other)} {n} {len(docs) - n} my%20tag\n"
        for d in docs
        for n, other in enumerate(docs, 1)
    )
    (tmp / "q.qrels").write_text(qrels)
    (tmp / "r.run").write_text(run)
    args = ["--runs-dir", str(tmp / "runs")]
    assert (
        main(
            ["import", "trec", str(tmp / "q.qrels"), str(tmp / "r.run"), "--out", str(tmp / "c" / "corpus.json"), *args]
        )
        == 0
    )
    first = load_run(next((tmp / "runs").iterdir()))
    assert first.targets == ["my tag"]
    assert dict(zip(first.cases["case"], first.cases["expected"])) == {f"case {d}": [d] for d in docs}
    assert all(list(r) == docs for r in first.cases["returned"])
    assert main(["export", "--format", "trec", str(first.path), "--out", str(tmp / "out")]) == 0
    exported = sorted((tmp / "out").iterdir())
    qrels_back, runs_back = read_trec(exported)
    assert qrels_back == {f"case {d}": {d: 1} for d in docs}
    assert list(runs_back) == ["my tag"]
    assert {q: [doc for doc, _ in pairs] for q, pairs in runs_back["my tag"].items()} == {
        f"case {d}": docs for d in docs
    }


def test_pytrec_eval_scores_an_escaped_export_as_workbench_does(tmp_path: Path) -> None:
    import pytrec_eval

    (tmp_path / "q.qrels").write_text("q1 0 a%20b.py 1\n")
    (tmp_path / "r.run").write_text(
        "q1 Q0 a%2520b.py 1 2 sys\nq1 Q0 c.py 2 1 sys\n"
    )  # returned: 'a%20b.py', not 'a b.py'
    args = ["--out", str(tmp_path / "c" / "corpus.json"), "--runs-dir", str(tmp_path / "runs")]
    assert main(["import", "trec", str(tmp_path / "q.qrels"), str(tmp_path / "r.run"), *args]) == 0
    run = load_run(next((tmp_path / "runs").iterdir()))
    ours = run.scores.set_index("metric")["value"]
    assert ours["recallAtK"] == 0.0
    assert main(["export", "--format", "trec", str(run.path), "--out", str(tmp_path / "out")]) == 0
    with (tmp_path / "out" / "qrels.txt").open() as handle:
        qrels = pytrec_eval.parse_qrel(handle)
    with (tmp_path / "out" / "sys.run").open() as handle:
        ranking = pytrec_eval.parse_run(handle)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recall_5"}).evaluate(ranking)
    assert theirs["q1"]["recall_5"] == ours["recallAtK"] == 0.0
