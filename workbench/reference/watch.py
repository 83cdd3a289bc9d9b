"""Notice edits to an indexed tree without a stat of every file per query: Linux inotify via ctypes.

One inotify instance per process (non-blocking, close-on-exec) carries a watch on every directory
an index was read from; ``Watch.changed()`` is then a non-blocking read of that one descriptor,
however large the tree. Events name the watch they came from, so a change marks only the indexes
watching that directory. A ``Watch`` is set up before its tree is listed and read (``add`` as the
walk enters each directory), so an edit made while the index is built is seen at the next query.

Where this cannot be trusted, ``watch()`` answers ``None`` (or ``Watch.ok`` turns false) and the
caller falls back to stat'ing the tree: not Linux, no inotify, the instance or watch limit hit, a
directory that cannot be watched, a network file system (inotify only sees local writes), or
``$WORKBENCH_WATCH=0``. A queue overflow marks every watched tree changed; a ``Watch`` used by a
forked child reports a change (the events belong to its parent's instance).
"""

from __future__ import annotations

import os
import select
import struct
import sys
import threading
from functools import lru_cache
from typing import TYPE_CHECKING

from ..code.walk import SKIP_DIRS

if TYPE_CHECKING:
    import ctypes

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF = 0x400, 0x800
IN_Q_OVERFLOW, IN_IGNORED, IN_ONLYDIR, IN_DONT_FOLLOW, IN_ISDIR = 0x4000, 0x8000, 0x01000000, 0x02000000, 0x40000000
MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then len bytes of name
# statfs f_type of file systems whose remote writes inotify never sees: NFS, SMB, SMB2, CIFS,
# FUSE (sshfs and the like), 9p and virtiofs (VM and container shares), AFS, Ceph, Coda.
REMOTE = frozenset(
    {0x6969, 0x517B, 0xFE534D42, 0xFF534D42, 0x65735546, 0x01021997, 0x6A656A63, 0x5346414F, 0x00C36400, 0x73757245}
)


def enabled() -> bool:
    """Whether inotify may be used: Linux, and not switched off by ``$WORKBENCH_WATCH=0``."""
    return sys.platform.startswith("linux") and os.environ.get("WORKBENCH_WATCH", "1") != "0"


class _Instance:
    """The process's inotify descriptor and which ``Watch``es own each watch descriptor."""

    def __init__(self) -> None:
        self.libc = libc = _libc()
        self.fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            import ctypes

            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self.pid = os.getpid()
        self.ready = select.poll()  # a zero-timeout poll is cheaper than a read that finds nothing
        self.ready.register(self.fd, select.POLLIN)
        self.owners: dict[int, set[Watch]] = {}
        self.lock = threading.Lock()

    def add(self, watch: Watch, path: str) -> int:
        """Watch ``path`` for ``watch``; the watch descriptor, or -1 when it cannot be watched."""
        with self.lock:
            wd = self.libc.inotify_add_watch(self.fd, os.fsencode(path), MASK)
            if wd >= 0:
                self.owners.setdefault(wd, set()).add(watch)
            return int(wd)

    def release(self, watch: Watch) -> None:
        """Drop ``watch``'s claims; a directory no other ``Watch`` needs is no longer watched."""
        with self.lock:
            for wd in watch.wds:
                owners = self.owners.get(wd)
                if owners is None:
                    continue
                owners.discard(watch)
                if not owners:
                    del self.owners[wd]
                    if os.getpid() == self.pid:
                        self.libc.inotify_rm_watch(self.fd, wd)

    def poll(self) -> None:
        """Read every pending event and mark the ``Watch``es they concern changed."""
        with self.lock:
            while self.ready.poll(0):
                try:
                    data = os.read(self.fd, 65536)
                except (BlockingIOError, InterruptedError):
                    return
                self._dispatch(data)

    def _dispatch(self, data: bytes) -> None:
        offset = 0
        while offset + _EVENT.size <= len(data):
            wd, mask, _, length = _EVENT.unpack_from(data, offset)
            name = data[offset + _EVENT.size : offset + _EVENT.size + length].rstrip(b"\0")
            offset += _EVENT.size + length
            if mask & IN_Q_OVERFLOW:
                for owners in self.owners.values():
                    for watch in owners:
                        watch.dirty = True
                continue
            if mask & IN_ISDIR and os.fsdecode(name) in SKIP_DIRS:
                continue  # a directory the walk never enters (``__pycache__``, ``node_modules``)
            for watch in self.owners.get(wd, ()):
                watch.dirty = True
            if mask & IN_IGNORED:
                self.owners.pop(wd, None)  # the directory is gone: its watch is too

    def close(self) -> None:
        os.close(self.fd)


class Watch:
    """The inotify watches of one indexed tree."""

    def __init__(self, instance: _Instance) -> None:
        self.instance = instance
        self.wds: list[int] = []
        self.dirty = False
        self.ok = True  # every directory handed to ``add`` is watched

    def add(self, path: str) -> None:
        """Watch the directory ``path`` (before it is listed); a failure turns ``ok`` false."""
        if not self.ok:
            return
        wd = self.instance.add(self, path)
        if wd < 0:
            self.ok = False
        else:
            self.wds.append(wd)

    def changed(self) -> bool:
        """Whether anything in the watched directories may have changed since they were watched."""
        if self.dirty or os.getpid() != self.instance.pid:
            return True
        self.instance.poll()
        return self.dirty

    def close(self) -> None:
        """Stop watching (the directories no other index needs); a closed watch reports a change."""
        self.dirty = True
        self.instance.release(self)
        self.wds = []


_INSTANCE: _Instance | None = None
_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL:
    import ctypes  # on first use: importing the engine stays cheap

    return ctypes.CDLL(None, use_errno=True)


def _instance() -> _Instance | None:
    """This process's inotify instance, made on first use (and again in a forked child)."""
    global _INSTANCE
    with _LOCK:
        if _INSTANCE is not None and _INSTANCE.pid == os.getpid():
            return _INSTANCE
        try:
            made = _Instance()
        except (OSError, AttributeError):
            return None  # no inotify here, or the instance limit is reached: try again next build
        if _INSTANCE is not None:
            os.close(_INSTANCE.fd)  # the parent's descriptor, inherited by this child
        _INSTANCE = made
        return made


def _remote(path: str) -> bool:
    """Whether ``path`` is on a file system whose changes inotify may not report."""
    import ctypes

    buffer = ctypes.create_string_buffer(512)  # struct statfs, f_type first
    try:
        if _libc().statfs(os.fsencode(path), buffer) != 0:
            return True
    except (OSError, AttributeError):
        return True
    return ctypes.c_long.from_buffer(buffer).value & 0xFFFFFFFF in REMOTE


def watch(root: str) -> Watch | None:
    """A new, empty ``Watch`` for the tree at ``root``, or ``None`` where inotify cannot be trusted."""
    if not enabled() or _remote(root):
        return None
    instance = _instance()
    return Watch(instance) if instance is not None else None
