"""Corpora from git history: ``mine_corpus(repo, out)`` is ``workbench mine``. Git is only ever read."""

from __future__ import annotations

from ..corpus.write import corpus_text
from .filters import MineOptions
from .mine import MineResult, mine, mine_corpus, parse_date

__all__ = ["MineOptions", "MineResult", "corpus_text", "mine", "mine_corpus", "parse_date"]
