"""A small LRU map for what an engine keeps in memory per repository (indexes, symbol tables,
BM25 models), so a run over many snapshots holds a bounded number of them, not all.

``$WORKBENCH_LOADED_INDEXES`` sets the bound (default 8 per map): a run over hundreds of
revisions then stays in flat memory, and one over a few fixtures keeps every index warm.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
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
    """Least recently used entries are dropped once more than ``limit`` are held; thread-safe.
    ``on_drop`` sees every value that leaves (evicted, replaced or cleared), to release what it holds."""

    def __init__(self, limit: int | None = None, on_drop: Callable[[V], object] | None = None) -> None:
        self._limit = limit
        self._items: OrderedDict[str, V] = OrderedDict()
        self._lock = threading.Lock()
        self._on_drop = on_drop

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
            dropped = [old] if (old := self._items.get(key)) is not None and old is not value else []
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.limit:
                dropped.append(self._items.popitem(last=False)[1])
        self._drop(dropped)

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            dropped = list(self._items.values())
            self._items.clear()
        self._drop(dropped)

    def _drop(self, values: list[V]) -> None:
        if self._on_drop is not None:
            for value in values:
                self._on_drop(value)
