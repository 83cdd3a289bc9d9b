"""What a long command says on stderr while it runs (``progress``): a base package, so ``run``,
``mine`` and ``report`` share one helper without importing each other."""

from __future__ import annotations

from .progress import Progress

__all__ = ["Progress"]
