"""The ``bm25`` control's symbol search: textbook Okapi BM25 (``okapi``) over symbol definitions.

The ranking suite asks for ``(file, symbol)`` hits, so the lexical control has to name symbols
to be a control at all (file-only hits can never match a symbol label). Its documents are a
textbook BM25's symbol chunks: one per definition of ``code.enclosing.definition_ranges``
(the ranges gold symbols are named by: classes, functions, methods; a nested function is part of
the function it is in), made of its file's path, its qualified name and its source lines (decorators
to last line), in code-aware tokens. Module-level code and files without definitions are in no
document. Nothing of the reference engine's ranking is used (no field weights, pins, priors or
diversity). Ties rank by (file, symbol) ascending, so equal scores never depend on index order.

What a blob defines is counted once per blob (``definitions``, kept by ``controls`` in the blob
store with the blob's chunk counts); a revision's model is fitted from those counts (``fit``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..code.enclosing import definition_ranges
from ..code.walk import list_files
from ..contract import SearchHit
from ..reference.text import tokens
from . import okapi

# What one blob defines, in line order: (qualified name, counts of its name's and source lines' tokens).
Definitions = list[tuple[str, Counter[str]]]


def definitions(rel: str, data: bytes) -> Definitions:
    """The definitions of one file in line order, each with its name's and source lines' token counts."""
    ranges = sorted(definition_ranges(rel, data), key=lambda r: (r[1], r[0]))
    lines = data.decode("utf-8", "replace").split("\n")
    return [(name, Counter(tokens(name) + tokens("\n".join(lines[first - 1 : last])))) for name, first, last in ranges]


@dataclass(frozen=True)
class SymbolModel:
    """One revision's symbol documents, their fitted BM25 model and each one's (file, symbol) rank."""

    files: list[str]
    symbols: list[str]
    model: okapi.Okapi
    name_rank: np.ndarray


def fit(files: list[str], names: list[tuple[str, ...]], bags: list[okapi.Bag], paths: list[okapi.Bag]) -> SymbolModel:
    """The symbol model of a revision from per file: its path, its definitions' names and their
    counts (a bag with a document per name) and its path's terms (a one-document bag)."""
    doc_files = [rel for rel, found in zip(files, names, strict=True) for _ in found]
    symbols = [name for found in names for name in found]
    order = sorted(range(len(doc_files)), key=lambda i: (doc_files[i], symbols[i]))
    name_rank = np.empty(len(doc_files), dtype=np.int64)
    name_rank[order] = np.arange(len(doc_files))
    return SymbolModel(doc_files, symbols, okapi.fit_bags(bags, paths), name_rank)


def search(model: SymbolModel, query: str, top_k: int) -> list[SearchHit]:
    """The ``top_k`` best-scoring symbol documents: score descending, then (file, symbol) ascending."""
    scores = model.model.scores(tokens(query))
    order = np.lexsort((model.name_rank, -scores))[:top_k]
    return [SearchHit(model.files[i], model.symbols[i], score=float(scores[i])) for i in order if scores[i] > 0]


def documents(root: Path) -> tuple[list[str], list[str], list[list[str]]]:
    """(file, symbol, tokens) of every symbol document of the tree at ``root``, made afresh from its
    files: what the control's model holds as counts, as token lists for checks against rank-bm25
    (tests, bench/bm25_control.py)."""
    files, symbols, rows = [], [], []
    for rel in list_files(root):
        path_terms = tokens(rel.replace("/", " "))
        for name, counts in definitions(rel, (root / rel).read_bytes()):
            files.append(rel)
            symbols.append(name)
            rows.append(path_terms + list(counts.elements()))
    return files, symbols, rows
