"""What is learnt from one file's bytes, kept by content: shared by every revision, copy and repository.

A revision snapshot is a new root, and consecutive revisions share almost every file, so what
the engine extracts from a file (``FileFacts``, the symbols' bodies) and what the ``bm25`` control
counts in it are kept per *blob*: keyed by the content digest the index already computes
(``cache.digest``, salted with what else the value depends on, such as the extension or kind)
and a version naming the code that made it. A new revision then parses only blobs never seen.

The entries live in one SQLite file in the private cache directory (``paths.private_dir``), so they
survive the process: a second corpus over the same repository starts warm. Each value is a
pickle sealed with the user's key (``paths.seal``): a row whose tag does not match is a miss
and is never unpickled. Writes are transactions (atomic); the file limits itself like the rest
of the cache: after a write (at most once per ``cache.PRUNE_INTERVAL`` seconds per process) the
least recently used rows go until their bytes fit ``$WORKBENCH_CACHE_MAX_MB`` (default 512 MB).
Any error of the store (a locked, damaged or unwritable file) is a miss, never a failure.

In front of the file, each ``Part`` keeps values in memory up to ``MEMORY`` bytes of their pickles
(least recently used go first), so a run over hundreds of revisions holds the blobs it is working
on, not every one it has seen, however large the trees.
"""

from __future__ import annotations

import os
import pickle
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Generic, TypeVar

from ..paths import cache_max_bytes, private_dir, seal, unseal
from . import cache

V = TypeVar("V")
FILE = "blobs.sqlite"
MEMORY = 1024 * 1024  # bytes (of pickles) of values a part keeps in memory (more raised the peak, saved no time)
_SCHEMA = """CREATE TABLE IF NOT EXISTS blobs (
    part TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, used REAL NOT NULL,
    PRIMARY KEY (part, key)) WITHOUT ROWID"""
_CHUNK = 500  # keys per SELECT (below SQLite's variable limit)
_LOCAL = threading.local()
_last_prune = float("-inf")


def _connection(create: bool = False) -> sqlite3.Connection | None:
    """This thread's connection to the store (a forked child opens its own), None when unusable
    (or missing, unless ``create``)."""
    path = private_dir() / FILE
    found = getattr(_LOCAL, "db", None)
    if found is not None and found[0] == (os.getpid(), path):
        return found[1]
    if not create and not path.is_file():
        return None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        os.chmod(path, 0o600)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(_SCHEMA)
    except (sqlite3.Error, OSError):
        return None
    _LOCAL.db = ((os.getpid(), path), db)
    return db


def close() -> None:
    """Close this thread's connection (tests that change the cache directory call it)."""
    found = getattr(_LOCAL, "db", None)
    _LOCAL.db = None
    if found is not None and found[0][0] == os.getpid():
        found[1].close()


class Part(Generic[V]):
    """One kind of per-blob value (``name``, made by code of ``version``): read many, write many."""

    def __init__(self, name: str, version: str, memory: int = MEMORY) -> None:
        self.part = f"{name}/{version}"
        self.memory = memory
        self._held: OrderedDict[str, tuple[V, int]] = OrderedDict()  # key -> (value, its pickle's size)
        self._bytes = 0
        self._lock = threading.Lock()

    def get_many(self, keys: Iterable[str]) -> dict[str, V]:
        """The values found for ``keys``: from memory, else from the store (each a miss otherwise)."""
        found: dict[str, V] = {}
        missing: list[str] = []
        with self._lock:
            for key in dict.fromkeys(keys):
                held = self._held.get(key)
                if held is not None and isinstance(held[0], _Pickle):
                    held = self._unpickled(key, held[0])
                if held is None:
                    missing.append(key)
                else:
                    self._held.move_to_end(key)
                    found[key] = held[0]
        if missing:
            loaded = _load(self.part, missing)
            self._hold(loaded)
            found.update((key, value) for key, (value, _) in loaded.items())
        return found

    def put_many(self, values: dict[str, V], source: Path, pickled: dict[str, bytes] | None = None) -> None:
        """Keep ``values`` (read from the tree at ``source``) in memory and store them (``pickled``:
        their pickles, when made already)."""
        if not values:
            return
        made = pickled or {}
        rows = {key: made.get(key) or pickle.dumps(value, pickle.HIGHEST_PROTOCOL) for key, value in values.items()}
        self._hold({key: (value, len(rows[key])) for key, value in values.items()})
        _store(self.part, rows, source)

    def put_pickled(self, pickled: dict[str, bytes], source: Path) -> None:
        """Store values already pickled, without unpickling them: held in memory as pickles, each
        unpickled when first read (the next revision reads most of them)."""
        if pickled:
            self._hold({key: (_Pickle(data), len(data)) for key, data in pickled.items()})  # type: ignore[misc]
            _store(self.part, pickled, source)

    def _unpickled(self, key: str, data: bytes) -> tuple[V, int] | None:
        """The value of a pickle held for ``key``, held in its place (None, and dropped, when damaged)."""
        size = self._held[key][1]
        try:
            value = pickle.loads(data)
        except cache.MISS:
            self._bytes -= self._held.pop(key)[1]
            return None
        self._held[key] = (value, size)
        return value, size

    def forget(self) -> None:
        """Drop what this process holds in memory (the store keeps its rows)."""
        with self._lock:
            self._held.clear()
            self._bytes = 0

    def _hold(self, values: dict[str, tuple[V, int]]) -> None:
        with self._lock:
            for key, (value, size) in values.items():
                old = self._held.pop(key, None)
                self._bytes += size - (old[1] if old is not None else 0)
                self._held[key] = (value, size)
            while self._bytes > self.memory and self._held:
                self._bytes -= self._held.popitem(last=False)[1][1]


class _Pickle(bytes):
    """A value held still pickled (``Part.put_pickled``): unpickled when first read."""


def _load(part: str, keys: list[str]) -> dict[str, tuple[Any, int]]:
    """Unsealed, unpickled values of ``keys`` in ``part`` with their pickles' sizes; a wrong tag or
    damaged pickle is left out."""
    db = _connection()
    if db is None:
        return {}
    found: dict[str, tuple[Any, int]] = {}
    try:
        for at in range(0, len(keys), _CHUNK):
            chunk = keys[at : at + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for key, value in db.execute(
                f"SELECT key, value FROM blobs WHERE part = ? AND key IN ({marks})", [part, *chunk]
            ):
                body = unseal(bytes(value))
                if body is not None:
                    try:
                        found[key] = (pickle.loads(body), len(body))
                    except cache.MISS:
                        continue
        if found:
            now = time.time()
            with db:
                db.executemany("UPDATE blobs SET used = ? WHERE part = ? AND key = ?", [(now, part, k) for k in found])
    except sqlite3.Error:
        return found
    return found


def _store(part: str, rows: dict[str, bytes], source: Path) -> None:
    """Write sealed ``rows`` in one transaction (all or nothing), then maybe prune; never into a
    store inside the tree ``source`` they were read from."""
    if cache.inside(private_dir().resolve(), source.resolve()):
        return
    db = _connection(create=True)
    if db is None:
        return
    now = time.time()
    sealed = []
    for key, data in rows.items():
        value = seal(data)
        if value is None:
            return
        sealed.append((part, key, value, now))
    try:
        with db:
            db.executemany("INSERT OR REPLACE INTO blobs (part, key, value, used) VALUES (?, ?, ?, ?)", sealed)
    except sqlite3.Error:
        return
    _maybe_prune(db)


def _maybe_prune(db: sqlite3.Connection) -> None:
    global _last_prune
    now = time.monotonic()
    if now - _last_prune >= cache.PRUNE_INTERVAL:
        _last_prune = now
        prune(db=db)


def prune(max_bytes: int | None = None, db: sqlite3.Connection | None = None) -> int:
    """Delete the least recently used rows until the values fit ``max_bytes`` (default: the cache's
    limit); the number of rows deleted."""
    limit = cache_max_bytes() if max_bytes is None else max_bytes
    db = db or _connection()
    if db is None:
        return 0
    try:
        total = db.execute("SELECT COALESCE(SUM(LENGTH(value)), 0) FROM blobs").fetchone()[0]
        if total <= limit:
            return 0
        removed = 0
        rows = db.execute("SELECT part, key, LENGTH(value) FROM blobs ORDER BY used").fetchall()
        doomed = []
        for part, key, size in rows:
            if total <= limit:
                break
            doomed.append((part, key))
            total -= size
        with db:
            db.executemany("DELETE FROM blobs WHERE part = ? AND key = ?", doomed)
            removed = len(doomed)
        return removed
    except sqlite3.Error:
        return 0


def store_path() -> Path:
    """Where the store lives (for tests and benchmarks)."""
    return private_dir() / FILE
