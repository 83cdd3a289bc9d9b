"""The bm25 control's scorer equals rank-bm25's BM25Okapi (k1 1.5, b 0.75, epsilon 0.25) to 1e-6.

Compared formula (both sides): sum over query tokens, repeats included, of
idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)), idf(t) = ln((N - n + 0.5) / (n + 0.5)),
floored at 0.25 x the mean idf of the vocabulary where negative (a test pins that the floor is really
applied). The scorer reads term counts (``okapi.Bag``); a property test holds it to rank-bm25 on random
small corpora, and the control's own models (chunks with their file's path terms, symbol documents) are
checked against rank-bm25 over the same documents as token lists. rank-bm25 is a dev dependency
(``make test`` installs it).
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.contract import Repo
from workbench.reference.text import tokens
from workbench.targets import bm25_symbols, okapi
from workbench.targets.controls import Bm25Target

from ..conftest import write_tree
from .test_bm25_symbols import BILLING

rank_bm25 = pytest.importorskip("rank_bm25")

TEXTS = [
    "parse the config file and load settings",
    "load user settings from the settings store",
    "render the invoice template",
    "parse invoice totals; parse tax lines",
    "the cache stores parsed config",
    "",
]
CORPUS = [tokens(text) for text in TEXTS]
QUERIES = [
    "parse config",
    "settings settings load",  # a repeated query token counts twice on both sides
    "the",  # in 3 of 6 documents: idf exactly 0
    "parse",  # in 2 of 6
    "zebra",  # in no document
    "zebra invoice",
    "config cache store parse invoice load the",
]


@pytest.mark.parametrize("query", QUERIES)
def test_scores_equal_bm25okapi_on_every_document(query: str) -> None:
    ours = okapi.fit(CORPUS).scores(tokens(query))
    reference = rank_bm25.BM25Okapi(CORPUS).get_scores(tokens(query))
    assert ours.shape == (len(CORPUS),)
    np.testing.assert_allclose(ours, reference, rtol=0, atol=1e-6)


WORDS = ["parse", "config", "user", "store", "load", "the", "cache", "x"]
DOCS = st.lists(st.lists(st.sampled_from(WORDS), max_size=9), min_size=1, max_size=12).filter(any)


@given(docs=DOCS, query=st.lists(st.sampled_from([*WORDS, "zebra"]), max_size=5))
@settings(max_examples=200, derandomize=True, deadline=None)
def test_scores_equal_bm25okapi_on_random_small_corpora(docs: list[list[str]], query: list[str]) -> None:
    ours = okapi.fit(docs).scores(query)
    np.testing.assert_allclose(ours, rank_bm25.BM25Okapi(docs).get_scores(query), rtol=0, atol=1e-6)


@given(docs=DOCS, extra=st.lists(st.lists(st.sampled_from(WORDS), max_size=3), min_size=4, max_size=4))
@settings(max_examples=100, derandomize=True, deadline=None)
def test_a_bags_extra_terms_join_each_of_its_documents(docs: list[list[str]], extra: list[list[str]]) -> None:
    groups = [docs[i::4] for i in range(4)]  # four files, some without documents
    bags = [okapi.bag([Counter(doc) for doc in group]) for group in groups]
    paths = [okapi.bag([Counter(terms)]) for terms in extra]
    merged = [terms + doc for group, terms in zip(groups, extra, strict=True) for doc in group]
    for query in (["parse"], ["user", "x", "user"], WORDS):
        fitted = okapi.fit_bags(bags, paths).scores(query)
        np.testing.assert_allclose(fitted, rank_bm25.BM25Okapi(merged).get_scores(query), rtol=0, atol=1e-6)


def test_a_term_in_every_document_gets_the_epsilon_floor() -> None:
    docs = [["a", "b", "e"], ["a", "f"], ["a", "c", "c"], ["a", "b", "d"]]
    # idf: a (n=4) ln(0.5/4.5) < 0; b (n=2) 0; c, d, e, f (n=1) ln(3.5/1.5); floor = 0.25 x mean of the six.
    raw = [math.log(0.5 / 4.5), 0.0] + [math.log(3.5 / 1.5)] * 4
    floor = 0.25 * sum(raw) / 6
    assert floor > 0
    avgdl = 11 / 4
    expected = [floor * 2.5 / (1 + 1.5 * (0.25 + 0.75 * len(d) / avgdl)) for d in docs]
    ours = okapi.fit(docs).scores(["a"])
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours, rank_bm25.BM25Okapi(docs).get_scores(["a"]), rtol=0, atol=1e-6)


def test_empty_corpus_and_empty_query_score_nothing() -> None:
    assert okapi.fit([]).scores(["a"]).shape == (0,)
    assert okapi.fit([[], []]).scores(["a"]).tolist() == [0.0, 0.0]
    assert okapi.fit(CORPUS).scores([]).tolist() == [0.0] * len(CORPUS)


def test_control_search_scores_are_bm25okapi_over_its_symbol_documents(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    root = write_tree(tmp_path / "repo", BILLING)
    files, symbols, docs = bm25_symbols.documents(root)
    reference = rank_bm25.BM25Okapi(docs)
    hits = Bm25Target().search("tax amount", Repo("repo", root), 20)
    full = reference.get_scores(tokens("tax amount"))
    want = sorted(
        ((f, s, float(x)) for f, s, x in zip(files, symbols, full) if x > 0), key=lambda h: (-h[2], h[0], h[1])
    )
    assert [(h.file, h.symbol) for h in hits] == [(f, s) for f, s, _ in want]
    np.testing.assert_allclose([h.score for h in hits], [x for _, _, x in want], rtol=0, atol=1e-6)


def test_equal_scores_rank_by_file_then_symbol(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    same = "def {}():\n    return 'ledger'\n"
    others = {f"{name}.py": f"def {name}():\n    pass\n" for name in ("c", "d", "e")}  # so ledger's idf is positive
    root = write_tree(tmp_path / "repo", {"b.py": same.format("zz"), "a.py": same.format("yy"), **others})
    hits = Bm25Target().search("ledger", Repo("repo", root), 20)
    assert [(h.file, h.symbol) for h in hits] == [("a.py", "yy"), ("b.py", "zz")]
    assert hits[0].score == hits[1].score
    pack = Bm25Target().context_pack("ledger", [Repo("r", root)], 8)
    assert [ref.path for ref in pack.primary] == ["a.py", "b.py"]


def test_the_hand_worked_example_in_evals() -> None:
    floor = 0.25 * (math.log(1.5 / 2.5) + 3 * math.log(2.5 / 1.5)) / 4
    scores = okapi.fit([["parse", "config"], ["load", "config", "config"], ["render"]]).scores(["config"])
    np.testing.assert_allclose(scores, [floor, floor * 5 / (2 + 1.5 * 1.375), 0.0], rtol=0, atol=1e-12)
    assert round(float(scores[0]), 4) == 0.0639 and round(float(scores[1]), 4) == 0.0786
