"""What one report kernel keeps between the pages it renders: runs, baselines and comparisons.

The report reuses kernels (``_kernels``), so the pages of one report can share the run they
read and the comparison they draw. Pages stay independent: each page asks for what it needs by
value, a page rendered alone computes the same thing, and nothing is keyed by object identity.
A key names the files behind a value and their modification stamps, so a re-recorded baseline or
a rewritten run is a miss. The cache holds at most ``LIMIT`` values (a long JupyterLab session).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ..store.runs import RunLike

LIMIT = 8
T = TypeVar("T")
_VALUES: OrderedDict[Hashable, Any] = OrderedDict()


def stamp(path: Path | str) -> tuple[str, tuple[int, ...]]:
    """A file's or directory's identity: its resolved path and the modification times of its files."""
    path = Path(path).resolve()
    files = sorted(path.iterdir()) if path.is_dir() else [path]
    return str(path), tuple(f.stat().st_mtime_ns for f in files if f.is_file())


def identity(side: RunLike) -> Hashable:
    """The cache identity of a run or baseline object: its files, and the targets it is narrowed to."""
    return stamp(side.path), tuple(side.targets)


def remember(key: Hashable, build: Callable[[], T]) -> T:
    """The value cached under ``key``, else ``build()`` cached (the oldest value beyond LIMIT goes)."""
    if key in _VALUES:
        _VALUES.move_to_end(key)
        return _VALUES[key]
    value = build()
    _VALUES[key] = value
    while len(_VALUES) > LIMIT:
        _VALUES.popitem(last=False)
    return value


def clear() -> None:
    """Forget everything (tests; a kernel that must not reuse anything)."""
    _VALUES.clear()
