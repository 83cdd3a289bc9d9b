"""A small LRU map for what an engine keeps in memory per repository (indexes, symbol tables,
BM25 models), so a run over many snapshots holds a bounded number of them, not all.

``$WORKBENCH_LOADED_INDEXES`` sets the bound (default 8 per map): a run over hundreds of
revisions then stays in flat memory, and one over a few fixtures keeps every index warm.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Generic, TypeVar

V = TypeVar("V")
DEFAULT_LOADED = 8


def loaded_limit() -> int:
    """How many entries a memo keeps: ``$WORKBENCH_LOADED_INDEXES`` (at least 1), else 8."""
    try:
        return max(1, int(os.environ.get("WORKBENCH_LOADED_INDEXES", DEFAULT_LOADED)))
    except ValueError:
        return DEFAULT_LOADED


class BoundedMemo(Generic[V]):
    """Least recently used entries are dropped once more than ``limit`` are held; thread-safe."""

    def __init__(self, limit: int | None = None) -> None:
        self._limit = limit
        self._items: OrderedDict[str, V] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def limit(self) -> int:
        return self._limit if self._limit is not None else loaded_limit()

    def get(self, key: str) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def __setitem__(self, key: str, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.limit:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
