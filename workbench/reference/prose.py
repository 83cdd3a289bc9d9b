"""Long tasks (an issue, a whole commit message): what textbook BM25 does right with prose.

A long text mentions its topic many times and a hundred other words once or twice. The engine's
own ranking counts each query term once and lifts long, central files, so on prose every big
module matches something and the file the text keeps returning to sinks. Textbook BM25 counts
each query word as often as the text says it and scores the document holding those words
densest. For a long task (``query.is_long``) the file ranking blends in two such legs, both
BM25 over the engine's own fitted models with each term weighted by how often the task says it:

* **chunks**: the symbol table's definitions, a file scored by the sum of its best
  ``BEST_CHUNKS`` (the file holding the definitions the text describes);
* **files**: the file ranker's fields (path, symbols, content) as one document per file.

In both legs a test file's score also credits the code it tests (``tested_code``: a commit
message says "add tests for X" and the tests say X more than X does). Each leg is scaled to its
best file and blended with the engine's score (``BLEND``: the engine keeps half). ``LONG_WORDS``,
``BLEND`` and ``TESTED`` were chosen on the development half of ``bench/engine_long.py``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from .text import STOP_WORDS, identifier_terms

if TYPE_CHECKING:
    from .index import RepoIndex
    from .ranking import Ranker

BEST_CHUNKS = 3
TESTED = 1.0  # share of a test file's leg score credited to the code it tests (``tested_code``)
BLEND = {"engine": 0.5, "chunks": 0.25, "files": 0.25}
_WORD = re.compile(r"[A-Za-z_$][\w$]*")


def term_counts(raw: str, vocab: dict[str, int]) -> dict[str, int]:
    """How often the task says each term the model knows (stop words aside)."""
    counts: dict[str, int] = {}
    for word in _WORD.findall(raw):
        if word.lower() in STOP_WORDS:
            continue
        for term in identifier_terms(word):
            if term in vocab:
                counts[term] = counts.get(term, 0) + 1
    return counts


def counted_scores(ranker: Ranker, raw: str) -> np.ndarray:
    """BM25 of every document of ``ranker`` with each query term weighted by its count in ``raw``."""
    counts = term_counts(raw, ranker.vocab)
    if not counts:
        return np.zeros(ranker.size, dtype=np.float32)
    weights = np.fromiter(counts.values(), dtype=np.float32, count=len(counts))
    scores, _, _ = ranker.score([ranker.vocab[t] for t in counts], weights)
    return scores


def best_per_file(scores: np.ndarray, owner: np.ndarray, n_files: int, best: int = BEST_CHUNKS) -> np.ndarray:
    """Per file, the sum of the ``best`` highest ``scores`` of the chunks it owns."""
    out = np.zeros(n_files, dtype=np.float32)
    if not len(scores):
        return out
    order = np.lexsort((-scores, owner))
    files, values = owner[order], scores[order]
    start = np.r_[True, files[1:] != files[:-1]]
    position = np.arange(len(files)) - np.maximum.accumulate(np.where(start, np.arange(len(files)), 0))
    keep = position < best
    np.add.at(out, files[keep], values[keep])
    return out


def prose_legs(index: RepoIndex, raw: str) -> tuple[np.ndarray, np.ndarray]:
    """(chunks leg, files leg) of every file of ``index`` for the task ``raw``."""
    from .symtable import symbol_table

    table = symbol_table(index)
    chunks = (
        best_per_file(counted_scores(table.ranker, raw), table.file, len(index.files))
        if table.name
        else np.zeros(len(index.files), dtype=np.float32)
    )
    return chunks, counted_scores(index.ranker, raw)


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
    if TESTED:
        for test, code in tested_code(index):
            out[code] = max(out[code], leg[code] * factors[code] + TESTED * leg[test])
    return out


def unit(values: np.ndarray) -> np.ndarray:
    """``values`` scaled so the largest is 1 (all zeros stay zeros)."""
    top = float(values.max()) if values.size else 0.0
    return values / top if top > 0 else values


def blended(index: RepoIndex, raw: str, engine: np.ndarray, factors: np.ndarray) -> np.ndarray:
    """The engine's file scores blended with the prose legs (each times the kind ``factors``),
    on the engine's scale: times its best score (a file best in all three keeps that score)."""
    chunks, files = prose_legs(index, raw)
    top = float(engine.max()) if engine.size else 0.0
    mix = (
        BLEND["engine"] * unit(engine)
        + BLEND["chunks"] * unit(credited(index, chunks, factors))
        + BLEND["files"] * unit(credited(index, files, factors))
    )
    return (mix * (top if top > 0 else 1.0)).astype(np.float32)
