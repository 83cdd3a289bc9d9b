"""The ``bm25`` control's symbol search: textbook Okapi BM25 (``okapi``, via bm25s) over symbol definitions.

The ranking suite asks for ``(file, symbol)`` hits, so the lexical control has to name symbols
to be a control at all (file-only hits can never match a symbol label). Its documents are a
textbook BM25's symbol chunks: one per definition of ``code.enclosing.definition_ranges``
(the ranges gold symbols are named by: classes, functions, methods; a nested function is part of
the function it is in), made of its file's path, its qualified name and its source lines (decorators
to last line), in code-aware tokens. Module-level code and files without definitions are in no
document. Nothing of the reference engine's ranking is used (no field weights, pins, priors or
diversity). Ties rank by (file, symbol) ascending, so equal scores never depend on index order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..code.enclosing import definition_ranges
from ..contract import SearchHit
from ..reference import blobstore
from ..reference.index import RepoIndex, load_index
from ..reference.text import tokens
from . import okapi
from .okapi import TERMS_VERSION


@dataclass(frozen=True)
class SymbolModel:
    """One repository's symbol documents, their fitted BM25 model and each one's (file, symbol) rank."""

    tree: str
    files: list[str]
    symbols: list[str]
    model: okapi.Okapi
    name_rank: np.ndarray


# Per blob, what its definitions contribute: (symbol, counts of its name's and source lines' tokens).
Definitions = list[tuple[str, dict[str, int]]]
DEFINITIONS: blobstore.Part[Definitions] = blobstore.Part("bm25-symbols", TERMS_VERSION)


def _definitions(rel: str, data: bytes) -> Definitions:
    """The definitions of one file in line order, each with its name's and source lines' token counts."""
    ranges = sorted(definition_ranges(rel, data), key=lambda r: (r[1], r[0]))
    lines = data.decode("utf-8", "replace").split("\n")
    return [(name, Counter(tokens(name) + tokens("\n".join(lines[first - 1 : last])))) for name, first, last in ranges]


def _documents(index: RepoIndex) -> tuple[list[str], list[str], list[list[str]]]:
    """(file, symbol, tokens) of every definition (``enclosing.definition_ranges``), in line order per file:
    its path, its qualified name and its source lines. What a blob defines is kept per blob
    (``blobstore``, by content digest and ``TERMS_VERSION``): a revision reads only new blobs."""
    known = DEFINITIONS.get_many(index.digests)
    fresh: dict[str, Definitions] = {}
    files, symbols, rows = [], [], []
    for rel, digest in zip(index.files, index.digests, strict=True):
        found = known[digest] if digest in known else fresh.get(digest)
        if found is None:  # (a file without definitions holds [], found all the same)
            try:
                data = (index.root / rel).read_bytes()
            except OSError:
                continue
            found = fresh[digest] = _definitions(rel, data)
        path_terms = tokens(rel.replace("/", " "))
        for name, counts in found:
            files.append(rel)
            symbols.append(name)
            rows.append(path_terms + okapi.expand(counts))
    DEFINITIONS.put_many(fresh, index.root)
    return files, symbols, rows


def fit(root: Path) -> SymbolModel:
    """The symbol BM25 model of the repository at ``root`` (its index comes from the cache)."""
    index = load_index(root)
    files, symbols, rows = _documents(index)
    order = sorted(range(len(files)), key=lambda i: (files[i], symbols[i]))
    name_rank = np.empty(len(files), dtype=np.int64)
    name_rank[order] = np.arange(len(files))
    return SymbolModel(index.tree, files, symbols, okapi.fit(rows), name_rank)


def search(model: SymbolModel, query: str, top_k: int) -> list[SearchHit]:
    """The ``top_k`` best-scoring symbol documents: score descending, then (file, symbol) ascending."""
    scores = model.model.scores(tokens(query))
    order = np.lexsort((model.name_rank, -scores))[:top_k]
    return [SearchHit(model.files[i], model.symbols[i], score=float(scores[i])) for i in order if scores[i] > 0]
