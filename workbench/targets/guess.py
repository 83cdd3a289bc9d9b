"""The ``guess`` control: what a corpus gives away in its wording, with no file read.

It sees the task text and the list of file paths only (those the corpus's goldScope allows), never
their contents, and ranks the paths lexically: textbook BM25Okapi (``okapi``) over each path's
code-aware tokens (``reference.text.tokens``: segments, camelCase / snake_case parts, plural folding).
A case whose query names its file (``names-file``) is solved by it; an engine earns credit for what
``guess`` cannot find.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..contract import PACK_LIMIT, FileRef, GoldScope, Pack, Repo
from ..reference.memo import BoundedMemo
from ..reference.text import tokens
from . import okapi
from .controls import _files


class GuessTarget:
    """BM25Okapi over file paths only; the top ``limit`` paths are the pack."""

    name = "guess"
    version = "1"

    def __init__(self) -> None:
        self._models: BoundedMemo[tuple[list[str], okapi.Okapi]] = BoundedMemo()

    def _model(self, repo: Repo, gold_scope: GoldScope | None) -> tuple[list[str], okapi.Okapi]:
        files = _files(repo, gold_scope)
        key = f"{Path(repo.path).resolve()}\0{gold_scope}"
        cached = self._models.get(key)
        if cached is None or cached[0] != files:
            cached = self._models[key] = (files, okapi.fit([tokens(path) for path in files]))
        return cached

    def context_pack(
        self, query: str, repos: list[Repo], limit: int = PACK_LIMIT, gold_scope: GoldScope | None = None
    ) -> Pack:
        """The ``limit`` paths whose words best match the query's (ties: repository, then path)."""
        terms = tokens(query)
        hits: list[tuple[float, str, str]] = []
        for repo in repos:
            files, model = self._model(repo, gold_scope)
            scores = model.scores(terms)
            hits += [(float(scores[i]), repo.name, files[i]) for i in np.flatnonzero(scores > 0)]
        hits.sort(key=lambda h: (-h[0], h[1], h[2]))
        return Pack(primary=[FileRef(name, path, f"guess {score:.2f}") for score, name, path in hits[:limit]])
