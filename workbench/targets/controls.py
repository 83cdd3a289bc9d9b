"""The controls every report is calibrated with: ``random`` and ``bm25`` (``guess`` is in ``guess``).

``random`` draws a seeded pack of the size the reference engine typically returns,
so its token savings equal a perfect pack's while its accuracy is chance. ``bm25``
is textbook Okapi BM25 (rank-bm25's BM25Okapi formula, k1 1.5, b 0.75, scored with numpy from
term counts: see ``okapi``) over definition chunks (``file_chunks``), each its file's path and its
text in code-aware tokens (``reference.text.tokens``: camelCase/snake_case split, path
segments, plural folding); a file scores the sum of its best three chunks (issue 38's
ablations, bench/BENCHMARKS.md). For ``search`` it ranks each symbol's definition and its file:
the lexical-search baseline an engine has to beat. Both see the files the engine sees that the
corpus's ``goldScope`` allows (all of them when it has none).

A run over a mined corpus meets hundreds of revisions that share most files, so ``bm25`` counts each
blob's terms once (``BlobTerms``, kept in the blob store by content digest) and fits a revision's
models from those counts: it lists a revision once, digests its files (a revision snapshot's once per
inode, as the engine does, reading only the new blobs' bytes), and never builds the reference
engine's index. A Python blob's definition ranges come from the engine's parse when it made one
(``reference.extract.RANGES``), so neither target parses a blob the other parsed.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..code.collector import collector_paused
from ..code.kinds import allowed_by, extension
from ..code.walk import list_files
from ..contract import PACK_LIMIT, FileRef, GoldScope, Pack, Repo, SearchHit
from ..errors import TargetError
from ..paths import is_snapshot
from ..reference import cache
from ..reference.index import snapshot, stat_paths
from ..reference.memo import BoundedMemo
from ..reference.text import tokens
from . import okapi
from .bm25_blobs import BLOB_TERMS, BlobTerms, file_chunks, fresh_terms, path_terms

if TYPE_CHECKING:
    from .bm25_symbols import SymbolModel

RANDOM_PRIMARY = 3
RANDOM_RELATED = 3


def _root(repo: Repo) -> Path:
    """The checkout of ``repo``; a TargetError naming the fixture when it is not a directory."""
    root = Path(repo.path)
    if not root.is_dir():
        raise TargetError(f"{root}: repository directory not found (fixture {repo.name!r})")
    return root


def _files(repo: Repo, gold_scope: GoldScope | None = None) -> list[str]:
    """The files a control sees: those ``list_files`` keeps that the corpus's goldScope allows."""
    return [rel for rel in list_files(_root(repo)) if allowed_by(gold_scope, rel)]


def _allowed(hits: list[SearchHit], gold_scope: GoldScope | None) -> list[SearchHit]:
    """The hits in files ``gold_scope`` allows."""
    return [hit for hit in hits if allowed_by(gold_scope, hit.file)]


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
__all__ = ["BEST_CHUNKS", "Bm25Target", "RandomTarget", "file_chunks"]


@dataclass
class _Revision:
    """One tree as the control sees it: its files (listed once), each one's counts and path terms,
    and the models fitted from them (per goldScope for files; one for symbols)."""

    root: Path
    listed: list[str]
    files: list[str]  # those listed that could be read
    terms: list[BlobTerms]
    paths: list[okapi.Bag]
    stamp: tuple | None  # sizes and mtimes when read (None: a revision snapshot, which never changes)
    models: dict[str, tuple[list[str], np.ndarray, okapi.Okapi]] = field(default_factory=dict)
    symbols: SymbolModel | None = None  # once searched

    def current(self) -> bool:
        """Whether the tree is still as read: a snapshot always; else the same files, sizes and mtimes."""
        if self.stamp is None:
            return True
        listed = list_files(self.root)
        return listed == self.listed and snapshot(stat_paths(self.root, listed)) == self.stamp


def _read_revision(root: Path) -> _Revision:
    """List ``root`` once and take each file's counts from the blob store, counting new blobs. A
    revision snapshot's files are digested as the engine digests them (``cache.file_digests``: once
    per process, by inode), and only the new blobs are read; a work tree's files are each read once."""
    files = list_files(root)
    fixed = is_snapshot(root)
    stamp = None if fixed else snapshot(stat_paths(root, files))  # before reading: see edits made meanwhile
    kept, datas, digests = _digested(root, files) if fixed else _read_all(root, files)
    known = BLOB_TERMS.get_many(digests)
    new: dict[str, tuple[str, bytes]] = {}
    for i, (rel, digest) in enumerate(zip(kept, digests, strict=True)):
        if digest not in known and digest not in new:
            data = datas[i] if datas else (root / rel).read_bytes()
            new[digest] = (rel, data)
    with collector_paused():  # parse trees and term lists: many small objects, no cycles
        fresh = fresh_terms(new, root)
    BLOB_TERMS.put_many(fresh, root)
    terms = [known[d] if d in known else fresh[d] for d in digests]
    return _Revision(root, files, kept, terms, [path_terms(rel) for rel in kept], stamp)


def _digested(root: Path, files: list[str]) -> tuple[list[str], list[bytes], list[str]]:
    """A snapshot's files and digests, no bytes (read when needed); every file read when one is missing."""
    try:
        return files, [], cache.file_digests(root, files, fixed=True)[1]
    except OSError:
        return _read_all(root, files)


def _read_all(root: Path, files: list[str]) -> tuple[list[str], list[bytes], list[str]]:
    """The files that could be read, their bytes and digests."""
    kept, datas, digests = [], [], []
    for rel in files:
        try:
            data = (root / rel).read_bytes()
        except OSError:
            continue  # gone since it was listed
        kept.append(rel)
        datas.append(data)
        digests.append(cache.digest(data, extension(rel)))
    return kept, datas, digests


class Bm25Target:
    """Textbook Okapi BM25 (k1=1.5, b=0.75, see ``okapi``) over definition chunks of the files the
    corpus's goldScope allows, each chunk its file's path + its text; a file scores the sum of its
    best ``BEST_CHUNKS`` chunks; the top ``limit`` files are the pack."""

    name = "bm25"
    version = "4"  # 4: only the files goldScope allows; definition chunks, a file's best three summed

    def __init__(self) -> None:
        self._revisions: BoundedMemo[_Revision] = BoundedMemo()

    def _revision(self, repo: Repo) -> _Revision:
        """The tree at ``repo``: kept while unchanged (a revision snapshot never changes)."""
        root = _root(repo).resolve()
        found = self._revisions.get(str(root))
        if found is None or not found.current():
            found = self._revisions[str(root)] = _read_revision(root)
        return found

    @staticmethod
    def _model(revision: _Revision, gold_scope: GoldScope | None) -> tuple[list[str], np.ndarray, okapi.Okapi]:
        """The allowed files, each chunk's file (an index into them) and the fitted chunk model."""
        key = str(gold_scope)
        found = revision.models.get(key)
        if found is None:
            allowed = [i for i, rel in enumerate(revision.files) if allowed_by(gold_scope, rel)]
            chunks = [revision.terms[i].chunks for i in allowed]
            owner = np.repeat(np.arange(len(allowed), dtype=np.int64), [bag.size for bag in chunks])
            model = okapi.fit_bags(chunks, [revision.paths[i] for i in allowed])
            found = revision.models[key] = ([revision.files[i] for i in allowed], owner, model)
        return found

    def _ranked(self, query: str, repo: Repo, gold_scope: GoldScope | None = None) -> list[tuple[str, float]]:
        """Every file with a positive score: the sum of its best ``BEST_CHUNKS`` chunk scores."""
        return self._ranked_in(query, self._revision(repo), gold_scope)

    def _ranked_in(self, query: str, revision: _Revision, gold_scope: GoldScope | None) -> list[tuple[str, float]]:
        files, owner, model = self._model(revision, gold_scope)
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

        trees = [(repo.name, self._revision(repo)) for repo in repos]  # each checked once per pack
        hits = [(score, name, path) for name, tree in trees for path, score in self._ranked_in(query, tree, gold_scope)]
        hits.sort(key=lambda h: (-h[0], h[1], h[2]))
        primary = [FileRef(name, path, f"bm25 {score:.2f}") for score, name, path in hits[:limit]]
        found = [(name, _allowed(self._search_in(query, tree, SYMBOL_DEPTH), gold_scope)) for name, tree in trees]
        return Pack(primary=primary, symbols=rank_pack_symbols(found, primary, PACK_SYMBOLS))

    def search(self, query: str, repo: Repo, top_k: int = 20) -> list[SearchHit]:
        """The ``top_k`` best symbol definitions for ``query`` (textbook BM25, see ``bm25_symbols``)."""
        return self._search_in(query, self._revision(repo), top_k)

    @staticmethod
    def _search_in(query: str, revision: _Revision, top_k: int) -> list[SearchHit]:
        from . import bm25_symbols

        if revision.symbols is None:
            names = [terms.names for terms in revision.terms]
            bags = [terms.definitions for terms in revision.terms]
            revision.symbols = bm25_symbols.fit(revision.files, names, bags, revision.paths)
        return bm25_symbols.search(revision.symbols, query, top_k)
