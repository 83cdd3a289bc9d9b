"""The controls every report is calibrated with: ``random`` and ``bm25`` (``guess`` is in ``guess``).

``random`` draws a seeded pack of the size the reference engine typically returns,
so its token savings equal a perfect pack's while its accuracy is chance. ``bm25``
is textbook Okapi BM25 (rank-bm25's BM25Okapi formula, k1 1.5, b 0.75, computed with
bm25s: see ``okapi``) over definition chunks (``file_chunks``), each its file's path and its
text in code-aware tokens (``reference.text.tokens``: camelCase/snake_case split, path
segments, plural folding); a file scores the sum of its best three chunks (issue 38's
ablations, bench/BENCHMARKS.md). For ``search`` it ranks each symbol's definition and its file:
the lexical-search baseline an engine has to beat. Both see the files the engine sees that the
corpus's ``goldScope`` allows (all of them when it has none).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from ..code.kinds import excluded_by, extension
from ..code.walk import list_files
from ..contract import PACK_LIMIT, FileRef, GoldScope, Pack, Repo, SearchHit
from ..errors import TargetError
from ..reference import blobstore, cache
from ..reference.index import load_index, snapshot, stat_paths
from ..reference.memo import BoundedMemo
from ..reference.text import tokens
from . import okapi

RANDOM_PRIMARY = 3
RANDOM_RELATED = 3


def _files(repo: Repo, gold_scope: GoldScope | None = None) -> list[str]:
    """The files a control sees: those ``list_files`` keeps that the corpus's goldScope allows."""
    root = Path(repo.path)
    if not root.is_dir():
        raise TargetError(f"{root}: repository directory not found (fixture {repo.name!r})")
    files = list_files(root)
    if gold_scope is None or not gold_scope.exclude:
        return files
    return [path for path in files if excluded_by(path, gold_scope.exclude) is None]


def _allowed(hits: list[SearchHit], gold_scope: GoldScope | None) -> list[SearchHit]:
    """The hits in files ``gold_scope`` allows."""
    if gold_scope is None or not gold_scope.exclude:
        return hits
    return [hit for hit in hits if excluded_by(hit.file, gold_scope.exclude) is None]


class RandomTarget:
    """A seeded random pack: deterministic per (seed, query, repository names and files), wherever
    the checkout lives (the draw never depends on an absolute path)."""

    name = "random"
    version = "2"  # 2: the draw no longer depends on where the checkout lives

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def context_pack(
        self, query: str, repos: list[Repo], limit: int = PACK_LIMIT, gold_scope: GoldScope | None = None
    ) -> Pack:
        """``RANDOM_PRIMARY`` primary and ``RANDOM_RELATED`` related files drawn without replacement
        from the files ``gold_scope`` allows."""
        pool = [(repo.name, path) for repo in repos for path in _files(repo, gold_scope)]
        key = f"{self.seed}\0{query}\0" + "\0".join(r.name for r in repos)
        rng = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))
        size = min(len(pool), RANDOM_PRIMARY + RANDOM_RELATED, max(limit, 0))
        drawn = [FileRef(repo, path, "random draw") for repo, path in rng.sample(pool, size)]
        cut = min(RANDOM_PRIMARY, len(drawn))
        return Pack(primary=drawn[:cut], related=drawn[cut:])


BEST_CHUNKS = 3  # a file's score: the sum of its best three chunks' scores


def file_chunks(rel: str, text: str) -> list[str]:
    """A file's chunks: each outermost definition (``code.enclosing.definition_ranges``: a class
    with its methods, a function, a Go method), then the lines outside every definition as one more
    chunk when they hold anything; a file without definitions is one chunk."""
    from ..code.enclosing import definition_ranges

    lines = text.split("\n")
    chunks, outside, end = [], [], 0
    for _, first, last in sorted(definition_ranges(rel, text.encode("utf-8", "surrogateescape")), key=_span):
        if first <= end:
            continue  # inside the definition taken before it
        outside += lines[end : first - 1]
        chunks.append("\n".join(lines[first - 1 : last]))
        end = last
    rest = "\n".join(outside + lines[end:])
    return [*chunks, rest] if rest.strip() or not chunks else chunks


def _span(item: tuple[str, int, int]) -> tuple[int, int]:
    return item[1], -item[2]  # by first line, the widest first


CHUNK_TERMS: blobstore.Part[list[dict[str, int]]] = blobstore.Part("bm25-chunks", okapi.TERMS_VERSION)


def _chunk_terms(root: Path, files: list[str]) -> list[list[dict[str, int]]]:
    """Per file, the token counts of each of its chunks (``file_chunks`` of its text as ``read_text``
    decodes it), kept per blob (``blobstore``: by content digest, salted with the extension the
    chunking reads, and the tokenizer's and chunking's version): a revision tokenizes only new blobs."""
    datas = [(root / path).read_bytes() for path in files]
    digests = [cache.digest(data, extension(path)) for path, data in zip(files, datas, strict=True)]
    known = CHUNK_TERMS.get_many(digests)
    fresh: dict[str, list[dict[str, int]]] = {}
    out = []
    for path, data, digest in zip(files, datas, digests, strict=True):
        chunks = known[digest] if digest in known else fresh.get(digest)
        if chunks is None:
            text = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")  # as read_text reads
            chunks = fresh[digest] = [dict(Counter(tokens(chunk))) for chunk in file_chunks(path, text)]
        out.append(chunks)
    CHUNK_TERMS.put_many(fresh, root)
    return out


class Bm25Target:
    """Textbook Okapi BM25 (k1=1.5, b=0.75, see ``okapi``) over definition chunks of the files the
    corpus's goldScope allows, each chunk its file's path + its text; a file scores the sum of its
    best ``BEST_CHUNKS`` chunks; the top ``limit`` files are the pack."""

    name = "bm25"
    version = "4"  # 4: only the files goldScope allows; definition chunks, a file's best three summed

    def __init__(self) -> None:
        self._models: BoundedMemo[tuple[tuple, list[str], np.ndarray, okapi.Okapi]] = BoundedMemo()
        self._symbol_models: BoundedMemo[Any] = BoundedMemo()

    def _model(self, repo: Repo, gold_scope: GoldScope | None) -> tuple[list[str], np.ndarray, okapi.Okapi]:
        """The allowed files, each chunk's file (an index into them) and the fitted chunk model."""
        files = _files(repo, gold_scope)
        root = Path(repo.path).resolve()
        stamp = snapshot(stat_paths(root, files))
        key = f"{root}\0{gold_scope}"
        cached = self._models.get(key)
        if cached is not None and cached[0] == stamp and cached[1] == files:
            return cached[1], cached[2], cached[3]
        owners, docs = [], []
        for number, (path, chunks) in enumerate(zip(files, _chunk_terms(root, files), strict=True)):
            path_terms = tokens(path.replace("/", " "))
            for counts in chunks:
                owners.append(number)
                docs.append(path_terms + okapi.expand(counts))
        owner = np.asarray(owners, dtype=np.int64)
        model = okapi.fit(docs)
        self._models[key] = (stamp, files, owner, model)
        return files, owner, model

    def _ranked(self, query: str, repo: Repo, gold_scope: GoldScope | None = None) -> list[tuple[str, float]]:
        """Every file with a positive score: the sum of its best ``BEST_CHUNKS`` chunk scores."""
        files, owner, model = self._model(repo, gold_scope)
        scores = model.scores(tokens(query))
        best: dict[int, list[float]] = {}
        for i in np.flatnonzero(scores > 0):
            best.setdefault(int(owner[i]), []).append(float(scores[i]))
        totals = [(files[f], sum(sorted(found, reverse=True)[:BEST_CHUNKS])) for f, found in best.items()]
        return sorted(totals, key=lambda h: (-h[1], h[0]))

    def context_pack(
        self, query: str, repos: list[Repo], limit: int = PACK_LIMIT, gold_scope: GoldScope | None = None
    ) -> Pack:
        """The ``limit`` best-scoring files the corpus's ``gold_scope`` allows over all repositories (ties:
        repository, then path), as primary;
        its ``symbols`` are the symbol ``search``'s, ordered as the reference engine orders a pack's
        (``rank_pack_symbols``: the primary files' definitions first)."""
        from ..reference.search import PACK_SYMBOLS, SYMBOL_DEPTH, rank_pack_symbols

        hits = [(score, repo.name, path) for repo in repos for path, score in self._ranked(query, repo, gold_scope)]
        hits.sort(key=lambda h: (-h[0], h[1], h[2]))
        primary = [FileRef(name, path, f"bm25 {score:.2f}") for score, name, path in hits[:limit]]
        found = [(repo.name, _allowed(self.search(query, repo, SYMBOL_DEPTH), gold_scope)) for repo in repos]
        return Pack(primary=primary, symbols=rank_pack_symbols(found, primary, PACK_SYMBOLS))

    def search(self, query: str, repo: Repo, top_k: int = 20) -> list[SearchHit]:
        """The ``top_k`` best symbol definitions for ``query`` (textbook BM25, see ``bm25_symbols``)."""
        from . import bm25_symbols

        _files(repo)
        root = Path(repo.path).resolve()
        model = self._symbol_models.get(str(root))
        if model is None or model.tree != load_index(root).tree:
            model = self._symbol_models[str(root)] = bm25_symbols.fit(root)
        return bm25_symbols.search(model, query, top_k)
