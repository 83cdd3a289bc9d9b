"""Textbook Okapi BM25 for the ``bm25`` control, indexed and scored by bm25s.

The formula is rank-bm25's ``BM25Okapi`` (the reference the control is checked against, to 1e-6, in
``tests/targets/test_okapi.py``), over N documents, a term in n of them, tf times in a document of
length dl (tokens), mean length avgdl::

    score(q, d) = sum over query tokens t (repeats count) of
                  idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
    idf(t)      = ln((N - n + 0.5) / (n + 0.5)),  or EPSILON * (mean idf over the vocabulary) where negative

``k1 = 1.5``, ``b = 0.75``, ``EPSILON = 0.25``: BM25Okapi's defaults, the textbook BM25 every comparison
is judged against (the previous control's k1 was 1.2; it now matches the reference the issue measured).

bm25s (``method="robertson"``) builds the sparse document x term matrix and sums its columns per query,
but neither of its idf variants is BM25Okapi's: ``robertson`` clamps a negative idf to 0 (a term in more
than half the documents then counts for nothing; Okapi floors it at EPSILON x mean idf) and its term
factor omits the constant ``(k1 + 1)``; ``lucene`` uses ln(1 + (N - n + 0.5) / (n + 0.5)), positive for
every term. So the index is built with ``idf_method="lucene"`` (never 0, so every entry can be rescaled)
and each term's column is multiplied by ``(k1 + 1) * okapi_idf / lucene_idf``: the stored values are then
exactly BM25Okapi's per-term contributions. Scores are float64.

Tokens are given, never made here: the control passes ``workbench.reference.text.tokens`` of each document
and query (camelCase / snake_case / path splitting, lower case, plural folding; no stop words, no stemming).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    "reference/text.py", "code/enclosing.py", "targets/controls.py", "targets/bm25_symbols.py", "targets/okapi.py"
)
K1 = 1.5
B = 0.75
EPSILON = 0.25


@dataclass
class Okapi:
    """A fitted BM25Okapi model: the bm25s retriever (``None`` for an empty corpus) and the document count."""

    retriever: Any
    size: int

    def scores(self, query: list[str]) -> np.ndarray:
        """BM25Okapi score of every document for the query tokens (unknown tokens add nothing)."""
        import numpy as np

        ids = self.retriever.get_tokens_ids(query) if self.retriever is not None else []
        if not ids:
            return np.zeros(self.size, dtype=np.float64)
        return np.asarray(self.retriever.get_scores_from_ids(ids), dtype=np.float64)


def okapi_idf(df: np.ndarray, n_docs: int, epsilon: float = EPSILON) -> np.ndarray:
    """BM25Okapi's idf per term from document frequencies (negative ones floored at epsilon x mean)."""
    import numpy as np

    idf = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
    floor = epsilon * float(idf.mean()) if len(idf) else 0.0
    return np.where(idf < 0, floor, idf)


def fit(documents: list[list[str]], k1: float = K1, b: float = B) -> Okapi:
    """Index token lists (one per document) as BM25Okapi with bm25s; see the module docstring."""
    import bm25s
    import numpy as np

    if not any(documents):
        return Okapi(None, len(documents))
    retriever = bm25s.BM25(k1=k1, b=b, method="robertson", idf_method="lucene", dtype="float64")
    retriever.index(documents, create_empty_token=False, show_progress=False)
    matrix = retriever.scores
    indptr = np.asarray(matrix["indptr"], dtype=np.int64)
    df = np.diff(indptr).astype(np.float64)  # each (document, term) pair is stored once
    lucene = np.log1p((len(documents) - df + 0.5) / (df + 0.5))
    factor = (k1 + 1.0) * okapi_idf(df, len(documents)) / lucene
    matrix["data"] = np.asarray(matrix["data"], dtype=np.float64) * np.repeat(factor, np.diff(indptr))
    return Okapi(retriever, len(documents))


def expand(counts: dict[str, int]) -> list[str]:
    """A document's tokens from its term counts (BM25 reads only counts and length: a document's
    token order changes no score)."""
    return [term for term, n in counts.items() for _ in range(n)]
