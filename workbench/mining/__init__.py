"""Corpora from git history: ``mine_corpus(repo, MineOptions(out=...))`` is ``workbench mine``. Git is
only ever read."""

from __future__ import annotations

from ..corpus.write import corpus_text
from ..options import MineOptions
from .filters import MineFilters
from .mine import MineResult, mine, mine_corpus, parse_date

__all__ = ["MineFilters", "MineOptions", "MineResult", "corpus_text", "mine", "mine_corpus", "parse_date"]
