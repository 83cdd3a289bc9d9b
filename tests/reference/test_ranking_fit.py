"""The reference engine's BM25F fit against a plain per-document computation."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from workbench.reference import ranking


def _okapi(docs: list[dict[str, int]], query: list[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """Okapi BM25 with Lucene's idf, one document at a time."""
    average = sum(sum(d.values()) for d in docs) / len(docs)
    scores = []
    for doc in docs:
        length = sum(doc.values())
        score = 0.0
        for term in query:
            df = sum(term in d for d in docs)
            tf = doc.get(term, 0)
            norm = tf / (1 - b + b * length / average)
            score += math.log1p((len(docs) - df + 0.5) / (df + 0.5)) * norm * (k1 + 1) / (norm + k1)
        scores.append(score)
    return scores


def test_one_field_of_weight_one_is_okapi_bm25() -> None:
    docs = [{"parse": 3, "url": 1}, {"url": 2, "quote": 1, "split": 4}, {"parse": 1}, {"join": 2, "url": 1}]
    model = ranking.fit({"content": docs}, weights={"content": 1.0}, b={"content": 0.75}, sublinear=frozenset())
    query = ["url", "parse"]
    ids = [model.vocab[t] for t in query]
    scores, matched, named = model.score(ids, np.ones(len(ids), dtype=np.float32))
    assert scores == pytest.approx(_okapi(docs, query), rel=1e-5)
    assert matched.tolist() == [[True, True], [True, False], [False, True], [True, False]]
    assert not named.any()  # no name field was given


def test_terms_are_numbered_by_first_appearance_field_after_field() -> None:
    fields = {"name": [{"b": 1}, {"a": 1}], "content": [{"c": 2, "a": 1}, {"b": 1, "d": 3}]}
    model = ranking.fit(fields, weights={"name": 1.0, "content": 1.0}, b={"name": 0.0, "content": 0.0})
    assert list(model.vocab.items()) == [("b", 0), ("a", 1), ("c", 2), ("d", 3)]


def test_fields_are_summed_before_saturation() -> None:
    """BM25F: a term in a document's name and content saturates once, on the weighted sum."""
    fields = {"name": [{"x": 1}, {"y": 1}], "content": [{"x": 2}, {"y": 1}]}
    weights, b = {"name": 3.0, "content": 1.0}, {"name": 0.0, "content": 0.0}
    model = ranking.fit(fields, weights=weights, b=b, sublinear=frozenset())
    ids = [model.vocab["x"]]
    scores, _, named = model.score(ids, np.ones(1, dtype=np.float32))
    tf = 3.0 * 1 + 1.0 * 2
    idf = math.log1p((2 - 1 + 0.5) / (1 + 0.5))
    assert scores.tolist() == pytest.approx([idf * tf * (ranking.K1 + 1) / (tf + ranking.K1), 0.0], rel=1e-6)
    assert named[:, 0].tolist() == [True, False]


@pytest.mark.parametrize("seed", range(5))
def test_postings_match_a_per_document_computation(seed: int) -> None:
    rnd = random.Random(seed)
    words = [f"w{i}" for i in range(40)]
    n = rnd.randint(1, 30)
    fields = {
        name: [{w: rnd.randint(1, 9) for w in rnd.sample(words, rnd.randint(0, 8))} for _ in range(n)]
        for name in ranking.WEIGHTS
    }
    model = ranking.fit(fields)
    expected: dict[tuple[str, int], float] = {}
    for name, rows in fields.items():
        lengths = [sum(1 + math.log(c) if name in ranking.SUBLINEAR else c for c in row.values()) for row in rows]
        average = sum(lengths) / n or 1.0
        for doc, row in enumerate(rows):
            norm = ranking.WEIGHTS[name] / (1 - ranking.B[name] + ranking.B[name] * lengths[doc] / average)
            for term, count in row.items():
                tf = 1 + math.log(count) if name in ranking.SUBLINEAR else count
                expected[term, doc] = expected.get((term, doc), 0.0) + tf * norm
    got = {}
    postings = model.saturated
    for term, t in model.vocab.items():
        docs = postings.docs[postings.indptr[t] : postings.indptr[t + 1]]
        assert list(docs) == sorted(docs)
        for doc, value in zip(docs, postings.values[postings.indptr[t] : postings.indptr[t + 1]], strict=True):
            got[term, int(doc)] = float(value)
    assert got.keys() == expected.keys()
    for key, tf in expected.items():
        assert got[key] == pytest.approx(tf * (ranking.K1 + 1) / (tf + ranking.K1), rel=1e-5)


def _postings(model: ranking.Ranker) -> dict[str, tuple[list[int], bytes, bytes, list[int]]]:
    """Per term: its documents, their saturated weights and its idf as bytes, the documents naming it."""
    out = {}
    for term, t in model.vocab.items():
        lo, hi = model.saturated.indptr[t], model.saturated.indptr[t + 1]
        named = model.named
        assert named is not None
        out[term] = (
            model.saturated.docs[lo:hi].tolist(),
            model.saturated.values[lo:hi].tobytes(),
            model.idf[t].tobytes(),
            named.docs[named.indptr[t] : named.indptr[t + 1]].tolist(),
        )
    return out


@pytest.mark.parametrize("seed", range(8))
def test_fit_from_counts_is_fit_to_the_last_bit(seed: int) -> None:
    """Counts made per document (in batches of any size, numbered by one interner shared with
    other documents) give the model ``fit`` gives: every weight and idf bit for bit."""
    rnd = random.Random(seed)
    words = [f"w{i}" for i in range(60)]
    n = rnd.randint(0, 25)
    fields = {
        name: [{w: rnd.randint(1, 300) for w in rnd.sample(words, rnd.randint(0, 12))} for _ in range(n)]
        for name in ranking.PATH_FIELDS + ranking.BLOB_FIELDS
    }
    expected = ranking.fit(fields)
    interner = ranking.Interner()
    interner.numbers([f"other{i}" for i in range(rnd.randint(0, 50))] + words[::-3])  # numbered elsewhere first
    cut = rnd.randint(0, n)
    blob_rows = [[fields[name][d] for name in ranking.BLOB_FIELDS] for d in range(n)]
    damped = tuple(name in ranking.SUBLINEAR for name in ranking.BLOB_FIELDS)
    blobs = ranking.counts_of(blob_rows[:cut], interner, damped) + ranking.counts_of(blob_rows[cut:], interner, damped)
    paths = ranking.counts_of([[fields["name"][d], fields["dir"][d]] for d in range(n)], interner, (False, False))
    got = ranking.fit_counts(paths, blobs, interner.strings)
    assert got.size == expected.size == n
    assert _postings(got) == _postings(expected)
