"""Process-wide memos bounded the simplest way: emptied whole when full.

What the walk, the content digests and the snapshot writer remember per process is keyed by things
that never change meaning (a ``.gitignore``'s digest, an inode of an immutable blob), so forgetting
is only a lost shortcut; emptying at a bound keeps each memo a few MB without an LRU's bookkeeping.
"""

from __future__ import annotations

from typing import Protocol, TypeVar


class _Memo(Protocol):
    def __len__(self) -> int: ...

    def clear(self) -> None: ...


M = TypeVar("M", bound=_Memo)


def bounded(memo: M, limit: int) -> M:
    """``memo``, emptied first when it holds ``limit`` entries: call it before adding one."""
    if len(memo) >= limit:
        memo.clear()
    return memo
