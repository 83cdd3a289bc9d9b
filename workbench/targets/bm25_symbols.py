"""The ``bm25`` control's symbol search: textbook Okapi BM25 (``okapi``, via bm25s) over symbol definitions.

The ranking suite asks for ``(file, symbol)`` hits, so the lexical control has to name symbols
to be a control at all (file-only hits can never match a symbol label). Symbols come from the
reference engine's extraction (its outlines: functions, classes, methods, constants with their
lines); nothing of its ranking is used (no field weights, pins, priors or diversity). Each symbol
is one document: its qualified name, its definition's whole text (from the line above it that starts
its comments to its end, so a class holds its methods and a function its nested functions, see
``_extents``) and its file's path, in code-aware tokens. A file that defines no symbol is one
document of its path and text, answered with symbol ``""``. Ties rank by (file,
symbol) ascending, so equal scores never depend on index order.
"""

from __future__ import annotations

import ast
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


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = ("body", "orelse", "handlers", "finalbody", "cases")


def _python_ends(data: bytes) -> dict[int, int] | None:
    """Last line of each def/class keyed by its ``def``/``class`` line (1-based), or None if it does not parse.

    Only statement blocks are walked (defs cannot hide in expressions), which is most of the cost saved."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    ends: dict[int, int] = {}
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, _DEFS):
            ends[node.lineno] = node.end_lineno or node.lineno
        for field in _BLOCKS:
            stack.extend(getattr(node, field, ()))
    return ends


def _extents(rel: str, defined: list[tuple[str, str, int]], data: bytes) -> list[tuple[int, int]]:
    """Byte range of each symbol's whole source, as a textbook chunk per def/class has.

    Each starts where ``spans`` starts it (its comment/decorator block). In Python a def/class ends at
    its last line (``ast``), nested defs and class-level statements included; elsewhere (and in Python
    that does not parse) it runs through
    the spans of the symbols named inside it (``A.b`` right after ``A``), except in Go, whose methods are
    top-level declarations. Other symbols (variables, constants) keep their span."""
    ranges = spans(data, [line for _, _, line in defined])
    if rel.endswith(".go"):
        return ranges
    if rel.endswith((".py", ".pyi")) and (ends := _python_ends(data)) is not None:
        starts = np.concatenate(
            [[0], np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10) + 1, [len(data)]]
        ).astype(np.int64)
        last = len(starts) - 1
        return [
            (lo, max(lo, int(starts[min(ends[line], last)]))) if line in ends else (lo, hi)
            for (_, _, line), (lo, hi) in zip(defined, ranges, strict=True)
        ]
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
