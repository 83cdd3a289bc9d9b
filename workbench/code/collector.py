"""Python's cyclic garbage collector paused around bulk work that builds no reference cycles."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector while building many small acyclic objects (AST nodes, term
    dicts, parsed rows), and restore it after. Reference counting still frees everything; the
    collector's passes over millions of young objects would cost a quarter of a cold index and
    a third of mining's parse time (bench/BENCHMARKS.md, issue 24 item 1, round 3)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
