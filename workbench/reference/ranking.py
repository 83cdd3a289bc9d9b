"""BM25F over weighted file fields, as one sparse matrix scored per query in a few numpy ops.

Fields: the file's name, its directories, the symbols it defines (classes and functions
count twice), the names it exports, the routes it serves or calls, what it says about
itself (docstrings, else its leading comment block), and its content. Per field the
term frequency is length-normalized (``b``) and weighted; the fields are summed
*before* BM25 saturation (Robertson & Zaragoza's BM25F), so a term that is both in
a file's name and all over its body does not count twice. Rarity enters through
the IDF over the files of the repository.

Like bm25s, everything that does not depend on the query is done at fit time: the matrix holds
each (term, document)'s saturated weight, so a query reads the columns of its few terms and
weighs them by IDF and its own term weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

K1 = 1.2
WEIGHTS = {"name": 5.0, "dir": 2.0, "symbols": 3.0, "exports": 2.0, "routes": 2.5, "docs": 1.0, "content": 1.0}
B = {"name": 0.2, "dir": 0.2, "symbols": 0.6, "exports": 0.5, "routes": 0.3, "docs": 0.5, "content": 0.75}
# Content counts are damped (1 + ln tf) before weighting: a term repeated 200 times in a
# long module must not saturate BM25 on its own and drown the name and symbol fields.
SUBLINEAR = frozenset({"content"})


Triples = tuple["np.ndarray", "np.ndarray", "np.ndarray"]  # (doc, term, count) of one field


@dataclass
class Postings:
    """A term-major sparse matrix (CSC): term t's documents are ``docs[indptr[t]:indptr[t + 1]]``."""

    indptr: np.ndarray
    docs: np.ndarray
    values: np.ndarray

    @classmethod
    def from_triples(cls, terms: np.ndarray, docs: np.ndarray, values: np.ndarray, n_terms: int) -> Postings:
        """Postings of (term, doc, value) triples in any order."""
        import numpy as np

        order = np.lexsort((docs, terms))
        return cls.from_sorted(terms[order], docs[order], values[order], n_terms)

    @classmethod
    def from_sorted(cls, terms: np.ndarray, docs: np.ndarray, values: np.ndarray, n_terms: int) -> Postings:
        """Postings of triples already sorted by (term, doc): no sort."""
        import numpy as np

        indptr = np.concatenate([[0], np.cumsum(np.bincount(terms, minlength=n_terms))]).astype(np.int64)
        return cls(indptr, docs.astype(np.int32), values.astype(np.float32))

    def dense(self, ids: list[int], size: int) -> np.ndarray:
        """Documents x ``ids`` values as a dense array."""
        import numpy as np

        out = np.zeros((size, len(ids)), dtype=np.float32)
        for j, t in enumerate(ids):
            lo, hi = self.indptr[t], self.indptr[t + 1]
            out[self.docs[lo:hi], j] = self.values[lo:hi]
        return out


@dataclass
class Ranker:
    """The fitted model of one repository: vocabulary, saturated BM25F weights, name terms, IDF."""

    vocab: dict[str, int]
    saturated: Postings  # tf (K1 + 1) / (tf + K1) of the field-weighted, length-normalized pseudo-frequency tf
    named: Postings | None  # 1 where the term is in the file's name
    idf: np.ndarray
    size: int

    def score(self, ids: list[int], weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(BM25F score per document, docs x terms "matched", docs x terms "in the file name")."""
        import numpy as np

        saturated = self.saturated.dense(ids, self.size)
        named = self.named.dense(ids, self.size) > 0 if self.named is not None else np.zeros_like(saturated, dtype=bool)
        return saturated @ (self.idf[ids] * weights).astype(np.float32), saturated > 0, named


def _triples(fields: list[list[dict[str, int]]]) -> tuple[dict[str, int], list[Triples]]:
    """The vocabulary (terms numbered in order of first appearance, field after field) and each
    field's (doc, term, count) arrays. Every loop runs in C: ``dict.fromkeys`` numbers the terms,
    ``map`` looks them up, ``np.fromiter`` reads the counts."""
    import numpy as np

    every = list(chain.from_iterable(chain.from_iterable(fields)))
    vocab = dict(zip(dict.fromkeys(every), range(len(every)), strict=False))
    ids = np.fromiter(map(vocab.__getitem__, every), dtype=np.int64, count=len(every))
    out, start = [], 0
    for rows in fields:
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        docs = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
        end = start + len(docs)
        counts = np.fromiter(chain.from_iterable(map(dict.values, rows)), dtype=np.float32, count=len(docs))
        out.append((docs, ids[start:end], counts))
        start = end
    return vocab, out


def fit(
    fields: dict[str, list[dict[str, int]]],
    weights: dict[str, float] = WEIGHTS,
    b: dict[str, float] = B,
    sublinear: frozenset[str] = SUBLINEAR,
    name_field: str | None = "name",
) -> Ranker:
    """Fit BM25F on per-field term counts (one dict per document, same order in every field).

    With one field of weight 1 this is Okapi BM25 with Lucene's idf and k1 1.2; the ``bm25`` control uses
    ``targets.okapi`` (rank-bm25's BM25Okapi, numpy over term counts) instead.
    """
    import numpy as np

    vocab, triples = _triples(list(fields.values()))
    n_docs = len(next(iter(fields.values())))
    keys, vals = [], []
    name_terms = name_docs = np.zeros(0, dtype=np.int64)
    for name, (docs, terms, counts) in zip(fields, triples, strict=True):
        if name == name_field:
            name_terms, name_docs = terms, docs
        if name in sublinear:
            counts = 1.0 + np.log(counts)
        lengths = np.bincount(docs, weights=counts, minlength=n_docs)
        average = lengths.mean() if n_docs and lengths.mean() > 0 else 1.0
        norm = weights[name] / (1.0 - b[name] + b[name] * lengths / average)
        keys.append(terms * max(n_docs, 1) + docs)
        vals.append(counts * norm[docs].astype(np.float32))
    unique, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    values = np.bincount(inverse, weights=np.concatenate(vals)).astype(np.float32)
    terms, docs = np.divmod(unique, max(n_docs, 1))
    df = np.bincount(terms, minlength=len(vocab))
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
    named = (
        Postings.from_triples(name_terms, name_docs, np.ones(len(name_terms)), len(vocab))
        if name_field in fields
        else None
    )
    combined = Postings.from_sorted(terms, docs, values, len(vocab))  # np.unique sorted them by (term, doc)
    combined.values = combined.values * (K1 + 1.0) / (combined.values + K1)  # float32, as a query used to
    return Ranker(vocab, combined, named, idf, n_docs)
