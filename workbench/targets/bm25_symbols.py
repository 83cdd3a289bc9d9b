"""The ``bm25`` control's symbol search: textbook Okapi BM25 (``okapi``, via bm25s) over symbol definitions.

The ranking suite asks for ``(file, symbol)`` hits, so the lexical control has to name symbols
to be a control at all (file-only hits can never match a symbol label). Symbols come from the
reference engine's extraction (its outlines: functions, classes, methods, constants with their
lines); nothing of its ranking is used (no field weights, pins, priors or diversity). Each symbol
is one document: its qualified name, its definition's whole text (from the line above it that starts
its comments to the next symbol not nested in it, so a class holds its methods, see ``_extents``) and
its file's path, in code-aware tokens. A file that defines
no symbol is one document of its path and text, answered with symbol ``""``. Ties rank by (file,
symbol) ascending, so equal scores never depend on index order.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..contract import SearchHit
from ..reference.index import RepoIndex, load_index
from ..reference.symtable import spans
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


def _extents(rel: str, defined: list[tuple[str, str, int]], data: bytes) -> list[tuple[int, int]]:
    """Byte range of each symbol's whole source: its own span through those of the symbols nested in it
    (``A.b`` right after ``A``, in line order), as a textbook chunk per def/class has. Go declares
    methods at top level, so a Go type keeps its own span."""
    ranges = spans(data, [line for _, _, line in defined])
    if rel.endswith(".go"):
        return ranges
    order = sorted(range(len(defined)), key=lambda i: (defined[i][2], i))
    out = list(ranges)
    for at, i in enumerate(order):
        prefix, end = defined[i][0] + ".", ranges[i][1]
        for j in order[at + 1 :]:
            if not defined[j][0].startswith(prefix):
                break
            end = max(end, ranges[j][1])
        out[i] = (ranges[i][0], end)
    return out


def _documents(index: RepoIndex) -> tuple[list[str], list[str], list[list[str]]]:
    """(file, symbol, tokens) of every symbol definition, and of each file with none."""
    files, symbols, rows = [], [], []
    for doc, rel in enumerate(index.files):
        defined = list(dict.fromkeys(index.facts[doc].outline.symbols))
        path_terms = tokens(rel.replace("/", " "))
        try:
            data = (index.root / rel).read_bytes()
        except OSError:
            data = b""
        if not defined:
            files.append(rel)
            symbols.append("")
            rows.append(path_terms + tokens(data.decode("utf-8", "replace")))
            continue
        for name, (start, end) in zip([n for n, _, _ in defined], _extents(rel, defined, data), strict=True):
            body = data[start:end].decode("utf-8", "replace")
            files.append(rel)
            symbols.append(name)
            rows.append(tokens(name) + path_terms + tokens(body))
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
