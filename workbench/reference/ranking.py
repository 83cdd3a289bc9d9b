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


# What ``link`` fits, split by where it comes from: a file's path gives the first fields, its bytes
# the rest (the order ``fit`` sums them in).
PATH_FIELDS = ("name", "dir")
BLOB_FIELDS = ("symbols", "exports", "docs", "routes", "content")


@dataclass(frozen=True)
class Counts:
    """One document's counts over some fields by term id (an ``Interner``'s): what ``fit_counts`` sums.
    Made once per blob (or path) and shared by every revision that holds it."""

    terms: np.ndarray  # int64, distinct term ids, ascending
    values: np.ndarray  # float32 (terms, fields): each field's count, damped where sublinear, 0 where absent
    lengths: np.ndarray  # float64 (fields,): each field's counts summed in the order ``fit`` sums them

    @property
    def nbytes(self) -> int:
        return int(self.terms.nbytes + self.values.nbytes + self.lengths.nbytes)


class Interner:
    """Term -> a number that never changes while the interner lives (``generation`` names a life)."""

    def __init__(self, generation: int = 0) -> None:
        self.ids: dict[str, int] = {}
        self.strings: list[str] = []
        self.generation = generation

    def numbers(self, terms: list[str]) -> np.ndarray:
        """The ids of ``terms`` (int64), numbering the new ones."""
        import numpy as np

        ids = self.ids
        new = [term for term in dict.fromkeys(terms) if term not in ids]
        ids.update(zip(new, range(len(self.strings), len(self.strings) + len(new))))
        self.strings += new
        return np.fromiter(map(ids.__getitem__, terms), dtype=np.int64, count=len(terms))


def counts_of(rows: list[list[dict[str, int]]], interner: Interner, sublinear: tuple[bool, ...]) -> list[Counts]:
    """``Counts`` of each document of ``rows`` (per document, one term count dict per field), made
    in one vectorized pass; lengths are summed per field in dict order, as ``fit`` sums them."""
    import numpy as np

    n_fields = len(sublinear)
    cells = [cell for row in rows for cell in row]
    every = list(chain.from_iterable(cells))
    ids = interner.numbers(every)
    sizes = np.fromiter(map(len, cells), dtype=np.int64, count=len(cells))
    counts = np.fromiter(chain.from_iterable(map(dict.values, cells)), dtype=np.float32, count=len(every))
    cell = np.repeat(np.arange(len(cells), dtype=np.int64), sizes)
    field = cell % n_fields
    for f in (f for f, damped in enumerate(sublinear) if damped):
        chosen = field == f
        counts[chosen] = 1.0 + np.log(counts[chosen])
    lengths = np.bincount(cell, weights=counts, minlength=len(cells)).reshape(len(rows), n_fields)
    doc = cell // n_fields
    keys, where = np.unique(doc * max(len(interner.strings), 1) + ids, return_inverse=True)
    values = np.zeros((len(keys), n_fields), dtype=np.float32)
    values[where, field] = counts
    cuts = np.searchsorted(keys // max(len(interner.strings), 1), np.arange(len(rows) + 1))
    terms = keys % max(len(interner.strings), 1)
    return [
        Counts(terms[a:b].copy(), values[a:b].copy(), lengths[d].copy())
        for d, (a, b) in enumerate(zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True))
    ]


def fit_counts(paths: list[Counts], blobs: list[Counts], strings: list[str]) -> Ranker:
    """``fit`` of the ``PATH_FIELDS`` then ``BLOB_FIELDS`` of each document (``paths[d]``, ``blobs[d]``),
    from counts made once per path and blob: the same model to the last bit (every sum is taken in
    the order ``fit`` takes it), without a dict of the repository's terms. ``strings``: the terms by id."""
    import numpy as np

    n_docs = len(blobs)
    if not n_docs:
        return fit({name: [] for name in PATH_FIELDS + BLOB_FIELDS})
    names = PATH_FIELDS + BLOB_FIELDS
    lengths = np.ascontiguousarray(np.hstack([np.stack([c.lengths for c in part]) for part in (paths, blobs)]).T)
    averages = [row.mean() if row.mean() > 0 else 1.0 for row in lengths]
    norms = [
        (WEIGHTS[name] / (1.0 - B[name] + B[name] * lengths[f] / averages[f])).astype(np.float32)
        for f, name in enumerate(names)
    ]
    p_terms, p_docs, p_values = _stacked(paths)
    b_terms, b_docs, b_values = _stacked(blobs)
    width = max(len(strings), 1)
    b_keys = b_docs * width + b_terms
    at = np.searchsorted(b_keys, p_docs * width + p_terms)
    hit = at < len(b_keys)
    hit[hit] = b_keys[at[hit]] == (p_docs * width + p_terms)[hit]
    from_path = np.zeros(len(p_terms), dtype=np.float64)
    for f in range(len(PATH_FIELDS)):
        from_path += p_values[:, f] * norms[f][p_docs]
    total = np.zeros(len(b_terms), dtype=np.float64)
    total[at[hit]] = from_path[hit]
    for f in range(len(BLOB_FIELDS)):
        total += b_values[:, f] * norms[len(PATH_FIELDS) + f][b_docs]
    terms = np.concatenate([b_terms, p_terms[~hit]])
    docs = np.concatenate([b_docs, p_docs[~hit]])
    order = np.argsort(terms * n_docs + docs)
    terms, docs = terms[order], docs[order]
    values = np.concatenate([total, from_path[~hit]])[order].astype(np.float32)
    first = np.r_[True, terms[1:] != terms[:-1]] if len(terms) else np.zeros(0, dtype=bool)
    present, local = terms[first], np.cumsum(first) - 1
    vocab = dict(zip(map(strings.__getitem__, present.tolist()), range(len(present)), strict=True))
    df = np.bincount(local, minlength=len(present))
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)
    named = p_values[:, 0] > 0
    name_terms = np.searchsorted(present, p_terms[named])
    combined = Postings.from_sorted(local, docs, values, len(present))
    combined.values = combined.values * (K1 + 1.0) / (combined.values + K1)
    return Ranker(
        vocab,
        combined,
        Postings.from_triples(name_terms, p_docs[named], np.ones(len(name_terms)), len(present)),
        idf,
        n_docs,
    )


def _stacked(docs: list[Counts]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(term, doc, per-field values) of every document's counts, documents in order."""
    import numpy as np

    sizes = np.fromiter((len(c.terms) for c in docs), dtype=np.int64, count=len(docs))
    doc = np.repeat(np.arange(len(docs), dtype=np.int64), sizes)
    return np.concatenate([c.terms for c in docs]), doc, np.concatenate([c.values for c in docs])
