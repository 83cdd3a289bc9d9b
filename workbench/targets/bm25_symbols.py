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

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..code.enclosing import definition_ranges
from ..contract import SearchHit
from ..reference.index import RepoIndex, load_index
from ..reference.text import tokens
from . import okapi


@dataclass(frozen=True)
class SymbolModel:
    """One repository's symbol documents, their fitted BM25 model and each one's (file, symbol) rank."""

    tree: str
    files: list[str]
    symbols: list[str]
    model: okapi.Okapi
    name_rank: np.ndarray


def _documents(index: RepoIndex) -> tuple[list[str], list[str], list[list[str]]]:
    """(file, symbol, tokens) of every definition (``enclosing.definition_ranges``), in line order per file:
    its path, its qualified name and its source lines."""
    files, symbols, rows = [], [], []
    for rel in index.files:
        try:
            data = (index.root / rel).read_bytes()
        except OSError:
            continue
        ranges = sorted(definition_ranges(rel, data), key=lambda r: (r[1], r[0]))
        if not ranges:
            continue
        lines = data.decode("utf-8", "replace").split("\n")
        path_terms = tokens(rel.replace("/", " "))
        for name, first, last in ranges:
            files.append(rel)
            symbols.append(name)
            rows.append(path_terms + tokens(name) + tokens("\n".join(lines[first - 1 : last])))
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
