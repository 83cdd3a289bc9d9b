"""Which revision snapshots live processes have handed out: never pruned from under them.

A process lists each tree it hands out in ``<snapshots>/.inuse/<pid>`` (``register``) before handing it
out, under a shared ``flock`` of ``<snapshots>/.lock`` (``locked``); a prune takes the lock exclusive and
skips every tree a live process listed (``handed_out``), deleting the lists of processes that ended. So
a run's forked workers, and two runs sharing one cache, never delete a snapshot from under each other.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..files import flocked, lock_file

IN_USE = ".inuse"  # <pid>: the trees that process handed out, one per line
LOCK = ".lock"  # shared while a snapshot is handed out, exclusive while snapshots are pruned
HANDED_OUT: set[str] = set()  # tree shas handed out by this process (a forked child keeps its parent's)


@contextmanager
def locked(root: Path, shared: bool) -> Iterator[bool]:
    """``root``'s ``.lock`` held (shared, or exclusive) for the block: True; False in a cache this process
    cannot write (a snapshot there is read as it is, and the process prunes nothing there)."""
    try:
        fd = lock_file(root / LOCK, 0o600)
    except OSError:
        yield False
        return
    with flocked(fd, shared):
        yield True


def register(root: Path, tree: str) -> None:
    """Add ``tree`` to this process's list of snapshots handed out (``IN_USE``), which prunes read."""
    try:
        (root / IN_USE).mkdir(exist_ok=True)
        with open(root / IN_USE / str(os.getpid()), "a", encoding="ascii") as listing:
            listing.write(f"{tree}\n")
    except OSError:
        pass  # a cache this process cannot write: it builds nothing there either
    HANDED_OUT.add(tree)


def handed_out(root: Path) -> set[str]:
    """The trees handed out by this process and by every live process (under the exclusive lock);
    the lists of processes that ended are deleted."""
    used = set(HANDED_OUT)
    try:
        listings = list(os.scandir(root / IN_USE))
    except OSError:
        return used
    for listing in listings:
        if listing.name.isdigit() and _alive(int(listing.name)):
            try:
                used.update(Path(listing.path).read_text(encoding="ascii").split())
            except (OSError, UnicodeDecodeError):
                continue
        else:
            Path(listing.path).unlink(missing_ok=True)
    return used


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's: alive
        return True
    return True
