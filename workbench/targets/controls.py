"""The two controls every report is calibrated with: ``random`` and ``bm25``.

``random`` draws a seeded pack of the size the reference engine typically returns,
so its token savings equal a perfect pack's while its accuracy is chance. ``bm25``
is textbook Okapi BM25 (rank-bm25's BM25Okapi formula, k1 1.5, b 0.75, computed with
bm25s: see ``okapi``) over each file's path and text with code-aware tokens
(``reference.text.tokens``: camelCase/snake_case split, path segments, plural folding),
and for ``search`` over each symbol's definition and its file: the lexical-search
baseline an engine has to beat. Both see exactly the files the engine sees.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from ..code.walk import list_files
from ..contract import PACK_LIMIT, FileRef, Pack, Repo, SearchHit
from ..errors import TargetError
from ..reference import blobstore, cache
from ..reference.index import load_index, snapshot, stat_paths
from ..reference.memo import BoundedMemo
from ..reference.text import tokens
from . import okapi

RANDOM_PRIMARY = 3
RANDOM_RELATED = 3


def _files(repo: Repo) -> list[str]:
    root = Path(repo.path)
    if not root.is_dir():
        raise TargetError(f"{root}: repository directory not found (fixture {repo.name!r})")
    return list_files(root)


class RandomTarget:
    """A seeded random pack: deterministic per (seed, query, repository names and files), wherever
    the checkout lives (the draw never depends on an absolute path)."""

    name = "random"
    version = "2"  # 2: the draw no longer depends on where the checkout lives

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def context_pack(self, query: str, repos: list[Repo], limit: int = PACK_LIMIT) -> Pack:
        """``RANDOM_PRIMARY`` primary and ``RANDOM_RELATED`` related files drawn without replacement."""
        pool = [(repo.name, path) for repo in repos for path in _files(repo)]
        key = f"{self.seed}\0{query}\0" + "\0".join(r.name for r in repos)
        rng = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))
        size = min(len(pool), RANDOM_PRIMARY + RANDOM_RELATED, max(limit, 0))
        drawn = [FileRef(repo, path, "random draw") for repo, path in rng.sample(pool, size)]
        cut = min(RANDOM_PRIMARY, len(drawn))
        return Pack(primary=drawn[:cut], related=drawn[cut:])


FILE_TERMS: blobstore.Part[dict[str, int]] = blobstore.Part("bm25-files", okapi.TERMS_VERSION)


def _text_terms(root: Path, files: list[str]) -> list[tuple[str, dict[str, int]]]:
    """Each file with the token counts of its text (as ``read_text`` decodes it), kept per blob
    (``blobstore``, by content digest and the tokenizer's version): a revision tokenizes only new blobs."""
    datas = [(root / path).read_bytes() for path in files]
    digests = [cache.digest(data) for data in datas]
    known = FILE_TERMS.get_many(digests)
    fresh: dict[str, dict[str, int]] = {}
    out = []
    for path, data, digest in zip(files, datas, digests, strict=True):
        counts = known[digest] if digest in known else fresh.get(digest)
        if counts is None:  # (an empty file holds {}, found all the same)
            text = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")  # as read_text reads
            counts = fresh[digest] = dict(Counter(tokens(text)))
        out.append((path, counts))
    FILE_TERMS.put_many(fresh, root)
    return out


class Bm25Target:
    """Okapi BM25 (k1=1.5, b=0.75, see ``okapi``) over path + text; the top ``limit`` files are the pack."""

    name = "bm25"
    version = "3"  # 3: packs carry ranked symbols; symbol documents are definition chunks

    def __init__(self) -> None:
        self._models: BoundedMemo[tuple[tuple, list[str], okapi.Okapi]] = BoundedMemo()
        self._symbol_models: BoundedMemo[Any] = BoundedMemo()

    def _model(self, repo: Repo) -> tuple[list[str], okapi.Okapi]:
        files = _files(repo)
        root = Path(repo.path).resolve()
        stamp = snapshot(stat_paths(root, files))
        cached = self._models.get(str(root))
        if cached is not None and cached[0] == stamp and cached[1] == files:
            return cached[1], cached[2]
        model = okapi.fit(
            [tokens(path.replace("/", " ")) + okapi.expand(counts) for path, counts in _text_terms(root, files)]
        )
        self._models[str(root)] = (stamp, files, model)
        return files, model

    def _ranked(self, query: str, repo: Repo) -> list[tuple[str, float]]:
        files, model = self._model(repo)
        scores = model.scores(tokens(query))
        hits = np.flatnonzero(scores > 0)
        return sorted(((files[i], float(scores[i])) for i in hits), key=lambda h: (-h[1], h[0]))

    def context_pack(self, query: str, repos: list[Repo], limit: int = PACK_LIMIT) -> Pack:
        """The ``limit`` best-scoring files over all repositories (ties: repository, then path), as primary;
        its ``symbols`` are the symbol ``search``'s, ordered as the reference engine orders a pack's
        (``rank_pack_symbols``: the primary files' definitions first)."""
        from ..reference.search import PACK_SYMBOLS, SYMBOL_DEPTH, rank_pack_symbols

        hits = [(score, repo.name, path) for repo in repos for path, score in self._ranked(query, repo)]
        hits.sort(key=lambda h: (-h[0], h[1], h[2]))
        primary = [FileRef(name, path, f"bm25 {score:.2f}") for score, name, path in hits[:limit]]
        found = [(repo.name, self.search(query, repo, SYMBOL_DEPTH)) for repo in repos]
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
