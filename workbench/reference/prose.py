"""What textbook BM25 does right with a task's words, blended into every file ranking.

A long text mentions its topic many times and a hundred other words once or twice. The engine's
own ranking counts each query term once and lifts long, central files, so on prose every big
module matches something and the file the text keeps returning to sinks. Textbook BM25 counts
each query word as often as the text says it and scores the document holding those words
densest. The file ranking of every task blends in two such legs, both BM25 over the engine's
own fitted models with each term weighted by how often the task says it:

* **chunks**: the symbol table's definitions, a file scored by the sum of its best
  ``BEST_CHUNKS`` (the file holding the definitions the text describes); a file whose words lie
  outside its definitions (a module docstring) is scored by its whole text instead;
* **files**: the file ranker's fields (path, symbols, content) as one document per file.

In both legs a test file's score also credits the code it tests (``tested_code``: a commit
message says "add tests for X" and the tests say X more than X does). Each leg is scaled to its
best file and blended with the engine's score (``BLEND``: the engine keeps half). A short task's
own evidence (a named file or symbol, a route, a language) is added after the blend, in full;
a long one's (``query.is_long``) is blended with the rest (``pack._score``). ``LONG_WORDS``,
``BLEND`` and ``TESTED`` were chosen on the development half of ``bench/engine_long.py``; blending
short tasks too on its medium-length development set and on the development repositories of
``bench/engine_real.py`` (issue 39, second round).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

import numpy as np

from .text import STOP_WORDS, identifier_terms

if TYPE_CHECKING:
    from .index import RepoIndex
    from .query import Query
    from .ranking import Ranker

BEST_CHUNKS = 3
TESTED = 1.0  # share of a test file's leg score credited to the code it tests (``tested_code``)
BLEND = {"engine": 0.5, "chunks": 0.25, "files": 0.25}
_WORD = re.compile(r"[A-Za-z_$][\w$]*")


def term_counts(raw: str, vocab: dict[str, int]) -> dict[str, int]:
    """How often the task says each term the model knows (stop words aside), in order of first mention."""
    return {term: count for term, count in _said(raw).items() if term in vocab}


@functools.lru_cache(maxsize=8)
def _said(raw: str) -> dict[str, int]:
    """How often the task says each term, in order of first mention (stop words aside). Kept for
    the last tasks (each is counted against two models); callers only read it."""
    counts: dict[str, int] = {}
    for word in _WORD.findall(raw):
        if word.lower() in STOP_WORDS:
            continue
        for term in identifier_terms(word):
            counts[term] = counts.get(term, 0) + 1
    return counts


def posting_scores(ranker: Ranker, ids: list[int], weights: np.ndarray) -> np.ndarray:
    """BM25 of every document of ``ranker`` for term ``ids`` at ``weights``, summed straight from
    the postings (no documents x terms matrix: a term's documents are distinct)."""
    out = np.zeros(ranker.size, dtype=np.float32)
    postings = ranker.saturated
    for t, weight in zip(ids, (ranker.idf[ids] * weights).astype(np.float32).tolist()):
        lo, hi = postings.indptr[t], postings.indptr[t + 1]
        out[postings.docs[lo:hi]] += postings.values[lo:hi] * np.float32(weight)
    return out


def counted_scores(ranker: Ranker, raw: str) -> np.ndarray:
    """BM25 of every document of ``ranker`` with each query term weighted by its count in ``raw``."""
    counts = term_counts(raw, ranker.vocab)
    weights = np.fromiter(counts.values(), dtype=np.float32, count=len(counts))
    return posting_scores(ranker, [ranker.vocab[t] for t in counts], weights)


def best_per_file(scores: np.ndarray, owner: np.ndarray, n_files: int, best: int = BEST_CHUNKS) -> np.ndarray:
    """Per file, the sum of the ``best`` highest ``scores`` of the chunks it owns. Only chunks
    scoring above zero are read (a task matches a few of a large tree's), sorted once by one key:
    their file, then their score, highest first. Sorted so, a chunk is among its file's best
    exactly when the chunk ``best`` places before it belongs to another file."""
    hit = np.flatnonzero(scores > 0)
    if not len(hit):
        return np.zeros(n_files, dtype=np.float32)
    values, files = scores[hit], owner[hit]
    order = np.argsort(files.astype(np.float64) * (2.0 * float(values.max()) + 1.0) - values)
    files, values = files[order], values[order]
    keep = np.ones(len(files), dtype=bool)
    keep[best:] = files[best:] != files[:-best]
    return np.bincount(files[keep], weights=values[keep], minlength=n_files).astype(np.float32)


def prose_legs(index: RepoIndex, q: Query, factors: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(each definition's counted BM25, chunks leg, files leg) of ``index`` for the task ``q``, each
    leg credited (``credited``) with the kind ``factors`` and scaled to its best file. The last
    task's are kept on the index (a pack ranks files and searches symbols for one task)."""
    from .symtable import symbol_table

    key = (q.raw, factors.tobytes())
    last = index.derived.get("prose legs")
    if last is not None and last[0] == key:
        return last[1]
    table = symbol_table(index)
    symbols = counted_scores(table.ranker, q.raw) if table.name else np.zeros(0, dtype=np.float32)
    chunks = best_per_file(symbols, table.file, len(index.files))
    files = counted_scores(index.ranker, q.raw)
    chunks, files = unit(credited(index, chunks, factors)), unit(credited(index, files, factors))
    # A file none of whose definitions match holds its matching words outside them (a module
    # docstring, top-level code): its whole text stands in for its chunks.
    legs = (symbols, np.where(chunks > 0, chunks, files), files)
    index.derived["prose legs"] = (key, legs)
    return legs


def tested_code(index: RepoIndex) -> list[tuple[int, int]]:
    """(test, code) pairs: each test file and the code file it is named after (``slash_test.go``
    and ``slash.go``, ``test_tax.py`` and ``tax.py``), in the same folder or the nearest one; else
    the code files it imports that share a word of its name. Kept on the index."""
    import posixpath

    from .filetable import file_table, module_stem
    from .text import terms

    known = index.derived.get("tested code")
    if known is not None:
        return known
    table = file_table(index)
    by_stem: dict[str, list[int]] = {}
    for d, path in enumerate(index.files):
        if index.kinds[d] != "test" and table.code[d]:
            by_stem.setdefault(module_stem(path), []).append(d)
    pairs = []
    for test, stem in table.test_stems.items():
        named = by_stem.get(stem, [])
        folder = posixpath.dirname(index.files[test])
        if named:
            near = sorted(named, key=lambda d: _distance(folder, posixpath.dirname(index.files[d])))
            pairs.append((test, near[0]))
            continue
        words = set(terms(stem))
        pairs += [
            (test, d)
            for d in index.imports[test]
            if index.kinds[d] != "test" and words & set(terms(module_stem(index.files[d])))
        ]
    index.derived["tested code"] = pairs
    return pairs


def _distance(a: str, b: str) -> int:
    common = 0
    for x, y in zip(a.split("/"), b.split("/")):
        if x != y:
            break
        common += 1
    return len(a.split("/")) + len(b.split("/")) - 2 * common


def credited(index: RepoIndex, leg: np.ndarray, factors: np.ndarray) -> np.ndarray:
    """A leg times the kind ``factors``, each tested code file also credited ``TESTED`` of its tests' raw score."""
    out = leg * factors
    pairs = index.derived.get("tested code arrays")
    if pairs is None:
        pairs = index.derived["tested code arrays"] = np.asarray(tested_code(index), dtype=np.int64).reshape(-1, 2).T
    tests, code = pairs
    if TESTED and len(code):
        np.maximum.at(out, code, leg[code] * factors[code] + np.float32(TESTED) * leg[tests])
    return out


def unit(values: np.ndarray) -> np.ndarray:
    """``values`` scaled so the largest is 1 (all zeros stay zeros)."""
    top = float(values.max()) if values.size else 0.0
    return values / top if top > 0 else values


def blended(index: RepoIndex, q: Query, engine: np.ndarray, factors: np.ndarray) -> np.ndarray:
    """The engine's file scores blended with the prose legs (each times the kind ``factors``),
    on the engine's scale: times its best score (a file best in all three keeps that score)."""
    _, chunks, files = prose_legs(index, q, factors)
    top = float(engine.max()) if engine.size else 0.0
    mix = BLEND["engine"] * unit(engine) + BLEND["chunks"] * chunks + BLEND["files"] * files
    return (mix * (top if top > 0 else 1.0)).astype(np.float32)
