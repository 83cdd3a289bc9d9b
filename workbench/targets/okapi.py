"""Textbook Okapi BM25 for the ``bm25`` control, scored with numpy straight from term counts.

The formula is rank-bm25's ``BM25Okapi`` (the reference the control is checked against, to 1e-6, in
``tests/targets/test_okapi.py``), over N documents, a term in n of them, tf times in a document of
length dl (tokens), mean length avgdl::

    score(q, d) = sum over query tokens t (repeats count) of
                  idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
    idf(t)      = ln((N - n + 0.5) / (n + 0.5)),  or EPSILON * (mean idf over the vocabulary) where negative

``k1 = 1.5``, ``b = 0.75``, ``EPSILON = 0.25``: BM25Okapi's defaults, the textbook BM25 every comparison
is judged against (the previous control's k1 was 1.2; it now matches the reference the issue measured).

BM25 reads only each document's term counts and length, so documents come as counts (a ``Bag``: per
document, term ids and how often each occurs), never as token lists: the control keeps a blob's counts
per blob (``controls``) and a revision's model is the concatenation of its files' arrays. A term id is
the first 8 bytes of the term's blake2b digest (``term_ids``); two terms of one corpus sharing an id
(odds about V^2 / 2^65 for a vocabulary of V terms, about 1e-10 at V = 100,000) would count as one.
``fit`` sorts the (term, document) pairs once, giving each term's postings, its n, and the mean idf
the floor needs; ``Okapi.scores`` then reads only the query's terms' postings.

The arithmetic is done in the order of the bm25s index the control used until issue 40 (bm25s's
``lucene`` idf times its term factor, then rescaled by ``(k1 + 1) * okapi_idf / lucene_idf`` per term,
summed over the query's tokens in order), so every score is the same float64 as before, bit for bit
apart from the floor's mean, which bm25s summed in its vocabulary's (hash-seeded) order and is summed
here in term-id order: a difference in the last bits that already varied between processes. bm25s is
no longer used at run time (bench/reference.py and bench/history.py still run it as the anchor).

Tokens are given, never made here: the control passes ``workbench.reference.text.tokens`` of each document
and query (camelCase / snake_case / path splitting, lower case, plural folding; no stop words, no stemming).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

_PACKAGE = Path(__file__).resolve().parent.parent


def _sources_digest(*modules: str) -> str:
    h = hashlib.blake2b(digest_size=8)
    for module in modules:
        h.update((_PACKAGE / module).read_bytes())
    return h.hexdigest()


# The version of the per-blob term counts the control keeps (``blobstore``): the code of its
# tokenizer and of its document rules. A change to either makes every kept count a miss.
TERMS_VERSION = _sources_digest(
    "reference/text.py",
    "code/enclosing.py",
    "targets/controls.py",
    "targets/bm25_blobs.py",
    "targets/bm25_symbols.py",
    "targets/okapi.py",
)
K1 = 1.5
B = 0.75
EPSILON = 0.25


@lru_cache(maxsize=1 << 18)
def _term_id(term: str) -> int:
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


def term_ids(terms: Iterable[str]) -> np.ndarray:
    """Each term's id (uint64, see the module docstring), in order."""
    return np.fromiter((_term_id(term) for term in terms), dtype=np.uint64)


@dataclass(frozen=True)
class Bag:
    """Documents as term counts: document d holds ``ids[ptr[d]:ptr[d + 1]]`` (distinct term ids),
    each ``tf`` times."""

    ptr: np.ndarray  # int64, one more than there are documents
    ids: np.ndarray  # uint64
    tf: np.ndarray  # unsigned or signed integers (the smallest type that holds them, when kept)

    @property
    def size(self) -> int:
        return len(self.ptr) - 1


def bag(documents: Sequence[Mapping[str, int]]) -> Bag:
    """The ``Bag`` of documents given as term -> count."""
    sizes = np.fromiter((len(counts) for counts in documents), dtype=np.int64, count=len(documents))
    ptr = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    ids = term_ids(term for counts in documents for term in counts)
    tf = np.fromiter((n for counts in documents for n in counts.values()), dtype=np.int32, count=len(ids))
    return Bag(ptr, ids, tf)


@dataclass(frozen=True)
class Okapi:
    """A fitted BM25Okapi model: per vocabulary term (sorted ids) its postings (documents and tf,
    ``at[t]:at[t + 1]``, each with its term factor) and its factor ``(k1 + 1) * okapi_idf / lucene_idf``."""

    size: int
    vocab: np.ndarray  # uint64, sorted
    at: np.ndarray  # int64, len(vocab) + 1
    docs: np.ndarray  # int64 document of each posting
    tfc: np.ndarray  # float64 term factor of each posting: tf / (k1 * (1 - b + b * dl / avgdl) + tf)
    factor: np.ndarray  # float64 per vocabulary term

    def scores(self, query: list[str]) -> np.ndarray:
        """BM25Okapi score of every document for the query tokens (unknown tokens add nothing)."""
        out = np.zeros(self.size, dtype=np.float64)
        if not query or not len(self.vocab):
            return out
        wanted = term_ids(query)
        found = np.minimum(np.searchsorted(self.vocab, wanted), len(self.vocab) - 1)
        for term in found[self.vocab[found] == wanted]:  # query order, repeats included
            start, end = int(self.at[term]), int(self.at[term + 1])
            idf = math.log(1 + (self.size - (end - start) + 0.5) / ((end - start) + 0.5))  # lucene's, as bm25s
            out[self.docs[start:end]] += (idf * self.tfc[start:end]) * self.factor[term]
        return out


def okapi_idf(df: np.ndarray, n_docs: int, epsilon: float = EPSILON) -> np.ndarray:
    """BM25Okapi's idf per term from document frequencies (negative ones floored at epsilon x mean)."""
    idf = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
    floor = epsilon * float(idf.mean()) if len(idf) else 0.0
    return np.where(idf < 0, floor, idf)


def fit_postings(n_docs: int, docs: np.ndarray, ids: np.ndarray, tf: np.ndarray) -> Okapi:
    """BM25Okapi over ``n_docs`` documents given as postings (document, term id, count); a
    (document, term) pair may come more than once (its counts add)."""
    width = max(n_docs, 1)
    lengths = np.bincount(docs, weights=tf, minlength=n_docs).astype(np.int64)
    vocab, term = np.unique(ids, return_inverse=True)
    pairs, which = np.unique(term.astype(np.int64) * width + docs, return_inverse=True)  # by term, then document
    counts = np.bincount(which, weights=tf, minlength=len(pairs)).astype(np.float64)
    df_int = np.bincount(pairs // width, minlength=len(vocab))
    df = df_int.astype(np.float64)
    factor = (K1 + 1.0) * okapi_idf(df, n_docs) / np.log1p((n_docs - df + 0.5) / (df + 0.5))
    at = np.concatenate(([0], np.cumsum(df_int))).astype(np.int64)
    docs = pairs % width
    avgdl = lengths.mean() if n_docs else np.float64(0.0)
    tfc = counts / (K1 * ((1 - B) + B * lengths[docs] / avgdl) + counts)  # bm25s's term factor, its order
    return Okapi(n_docs, vocab, at, docs, tfc, factor)


def fit_bags(bags: Sequence[Bag], extra: Sequence[Bag] = ()) -> Okapi:
    """BM25Okapi over the documents of ``bags`` in order; with ``extra`` (one single-document bag per
    bag, such as its file's path terms), each of a bag's documents also holds its extra's terms."""
    sizes = np.fromiter((b.size for b in bags), dtype=np.int64, count=len(bags))
    n_docs = int(sizes.sum())
    per_doc = _concat([np.diff(b.ptr) for b in bags], np.int64)
    docs = [np.repeat(np.arange(n_docs, dtype=np.int64), per_doc)]
    ids, tf = [_concat([b.ids for b in bags], np.uint64)], [_concat([b.tf for b in bags], np.int64)]
    first = np.concatenate(([0], np.cumsum(sizes))).tolist()
    for start, count, more in zip(first, sizes.tolist(), extra, strict=False):
        if count and len(more.ids):  # the extra's terms in each of the bag's documents
            docs.append(np.repeat(np.arange(start, start + count, dtype=np.int64), len(more.ids)))
            ids.append(np.tile(more.ids, count))
            tf.append(np.tile(more.tf, count))
    return fit_postings(n_docs, np.concatenate(docs), np.concatenate(ids), np.concatenate(tf).astype(np.float64))


def _concat(arrays: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.zeros(0, dtype=dtype)


def fit(documents: list[list[str]]) -> Okapi:
    """BM25Okapi over token lists (one per document)."""
    return fit_bags([bag([Counter(tokens) for tokens in documents])])
