"""Process-wide memos, bounded.

What the walk, the content digests and the snapshot writer remember per process is keyed by things
that never change meaning (a ``.gitignore``'s digest, an inode of an immutable blob), so forgetting
is only a lost shortcut; emptying at a bound (``bounded``) keeps each memo a few MB without an LRU's
bookkeeping. What is worth keeping by recency and bounding by size (the engine's per-blob link parts,
the trees of a module's statement groups) is ``Held``: least recently used first, up to a byte budget.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar


class _Memo(Protocol):
    def __len__(self) -> int: ...

    def clear(self) -> None: ...


M = TypeVar("M", bound=_Memo)
K = TypeVar("K")
V = TypeVar("V")


def bounded(memo: M, limit: int) -> M:
    """``memo``, emptied first when it holds ``limit`` entries: call it before adding one."""
    if len(memo) >= limit:
        memo.clear()
    return memo


class Held(Generic[K, V]):
    """Values by key up to ``memory`` bytes (``size`` of each); the least recently used go first."""

    def __init__(self, memory: int, size: Callable[[V], int]) -> None:
        self.memory = memory
        self._size = size
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._bytes = 0

    def get(self, key: K) -> V | None:
        found = self._items.get(key)
        if found is None:
            return None
        self._items.move_to_end(key)
        return found[0]

    def put(self, key: K, value: V, trim: bool = True) -> None:
        """Hold ``value`` (the most recently used); ``trim`` False: nothing goes until ``trim()``."""
        size = self._size(value)
        old = self._items.pop(key, None)
        self._bytes += size - (old[1] if old is not None else 0)
        self._items[key] = (value, size)
        if trim:
            self.trim()

    def trim(self) -> None:
        """Drop the least recently used values until the rest fit ``memory`` (the newest stays)."""
        while self._bytes > self.memory and len(self._items) > 1:
            self._bytes -= self._items.popitem(last=False)[1][1]

    def clear(self) -> None:
        self._items.clear()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._items)

    @property
    def nbytes(self) -> int:
        """The bytes held (the sum of ``size`` of each value)."""
        return self._bytes
