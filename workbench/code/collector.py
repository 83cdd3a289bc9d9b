"""Python's cyclic garbage collector paused around bulk work that builds no reference cycles."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# A full collection runs once this many objects were frozen since the last one, or as many as that one
# left alive if more: at most about the heap's size in cyclic garbage waits for it (CPython's own
# full pass waits for a quarter).
FULL_PASS_FLOOR = 1 << 20
_LOCK = threading.Lock()
_frozen_since_full = 0
_alive_after_full = 0


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector while building many small acyclic objects (AST nodes, term
    dicts, parsed rows), and restore it after. Reference counting still frees everything; the
    collector's passes over millions of young objects would cost a quarter of a cold index and
    a third of mining's parse time (bench/BENCHMARKS.md, issue 24 item 1, round 3).

    What the pause built outlives it in caches, and having no cycles it is what a collection would
    walk for nothing (the first young pass after the pause, then the older generations' again and
    again): it is frozen as the pause ends (``settle``)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            settle()
            gc.enable()


def settle() -> None:
    """Freeze what the collector tracks (``gc.freeze``): no collection walks it again. A frozen object
    is still freed when its last reference goes; one that later ends up in cyclic garbage waits for the
    full collection run here once about as many objects were frozen as the last one left alive."""
    global _frozen_since_full, _alive_after_full
    with _LOCK:
        _frozen_since_full += gc.get_count()[0]  # objects made since the last young pass or freeze
        if _frozen_since_full > max(FULL_PASS_FLOOR, _alive_after_full):
            gc.unfreeze()
            gc.collect()
            _alive_after_full = len(gc.get_objects())
            _frozen_since_full = 0
        gc.freeze()
