"""Corpora from git history: ``mine_corpus(repo, out)`` is ``workbench mine``. Git is only ever read.

Names are imported on first use, so ``import workbench.mining.<module>`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_HOME = {
    "MineOptions": "filters",
    "MineResult": "mine",
    "mine": "mine",
    "mine_corpus": "mine",
    "parse_date": "mine",
    "corpus_text": "corpus_out",
}
__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_HOME[name]}", __name__), name)
