"""The on-disk index cache: self-limiting pickles outside the repositories they describe.

Lives under ``$WORKBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/workbench``, else
``~/.cache/workbench``, and never inside the repository being indexed: a save that
would land inside it is skipped. Each entry is one file
``<key>-<version>.<part>.pickle`` (a header naming its repository, then one pickle
per frame: usually one, the value), of two kinds:

* **per repository** (``load``/``save``, keyed by the resolved root path), such as
  the parsed ``facts`` (``save_frames``: stored as the batches the workers pickled),
  so an edit re-parses only what changed;
* **shared** (``load_shared``/``save_shared``, keyed by what the value is built
  from), such as the built index keyed by its tree digest, so every copy of the same
  tree (the temp copies the gate and harness suites index) reuses one entry; a
  repository that rebuilds after an edit drops the entry of its previous tree
  (``drop_shared``).

Saving a new version of a key removes the other versions. The directory limits
itself: after a save (at most once per ``PRUNE_INTERVAL`` seconds per process),
``prune`` deletes per-repository entries whose root no longer exists (a deleted temp
copy), unreadable or old-format entries and abandoned temp files, then the least
recently used entries (a load refreshes an entry's mtime) until at most
``paths.CACHE_MAX_ENTRIES`` entries and ``paths.cache_max_bytes()`` remain (the limits
every cache under the directory keeps). Only files named like this module's entries are ever deleted.
Writes are atomic; an unreadable or unwritable cache is only ever a miss.

Private (``paths.private_dir``): the directory is used only when it is the user's and not writable by
others, and an entry is ``MAGIC``, then its sealed body (an HMAC with the user's key, then the
owner's length and name, then the pickles): nothing is unpickled before its tag matches, so a
planted or copied-in entry is a miss. ``prune`` reads only the owner, never a pickle.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from ..code.held import bounded
from ..code.kinds import extension
from ..paths import CACHE_MAX_ENTRIES as MAX_ENTRIES
from ..paths import CACHE_PRUNE_INTERVAL as PRUNE_INTERVAL
from ..paths import CACHE_TEMP_AGE as TEMP_AGE
from ..paths import TAG_BYTES, cache_max_bytes, private_dir, seal, unseal

FORMAT = 3  # 3: sealed (an HMAC before the body), the owner outside any pickle
MAGIC = b"WBC3"
SUFFIX = ".pickle"

# Entries (current and, ``.pkl``, the single-pickle format 1) and temp files of this module.
_OURS = re.compile(r"[0-9a-f]{24}-[\w.+-]+\.(?:pickle|pkl)")
_TEMP = re.compile(r"[0-9a-f]{24}-[\w.+-]+\.pickle\w*\.tmp")
# What reading an entry may raise: each is a miss, never an error.
MISS = (OSError, pickle.PickleError, EOFError, AttributeError, ImportError, TypeError, ValueError, IndexError)
_last_prune = float("-inf")


def digest(data: bytes, salt: str = "") -> str:
    """A content digest (``salt`` separates the same bytes parsed as different languages)."""
    return hashlib.blake2b(data, digest_size=16, person=salt.encode()[:16].ljust(16, b"\0")).hexdigest()


def file_digests(root: Path, files: list[str], fixed: bool = False) -> tuple[list[int], list[str]]:
    """Each file's size and content digest (salted with its extension), one file's bytes at a time:
    a large repository never sits in memory. A file of a revision snapshot (``fixed``: never
    rewritten, hard-linked from one store) is read once per process: known by its inode."""
    sizes, digests = [], []
    base = str(root)
    for rel in files:
        path = os.path.join(base, rel)
        key = None
        if fixed:
            st = os.stat(path)
            key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, extension(rel))
            found = _DIGESTS.get(key)
            if found is not None:
                sizes.append(st.st_size)
                digests.append(found)
                continue
        with open(path, "rb") as handle:
            data = handle.read()
        sizes.append(len(data))
        digests.append(digest(data, extension(rel)))
        if key is not None:
            bounded(_DIGESTS, DIGESTS_HELD)[key] = digests[-1]
    return sizes, digests


DIGESTS_HELD = 1 << 15  # snapshot files whose digest a process remembers (a few MB)
_DIGESTS: dict[tuple[int, int, int, int, str], str] = {}


def code_digest(*modules: str) -> str:
    """A digest of the named modules' source (this package's, or ``workbench.code``'s, where the
    engine's file readers live): caches built by other code are misses."""
    here = Path(__file__).parent
    h = hashlib.blake2b(digest_size=6)
    for name in modules:
        path = here / f"{name}.py"
        h.update((path if path.exists() else here.parent / "code" / f"{name}.py").read_bytes())
    return h.hexdigest()


def _key(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def _path(key: str, part: str, version: str) -> Path:
    return private_dir() / f"{key}-{version}.{part}{SUFFIX}"


def _read(path: Path) -> list[Any] | None:
    """The frames of an entry (the pickles after its owner), or None on any miss: a wrong
    magic, a tag that does not match (nothing is unpickled then), a damaged pickle."""
    try:
        raw = path.read_bytes()
        body = unseal(raw[len(MAGIC) :]) if raw.startswith(MAGIC) else None
        if body is None:
            return None
        stream = io.BytesIO(body)
        stream.seek(4 + int.from_bytes(body[:4], "big"))
        frames = []
        while stream.tell() < len(body):
            frames.append(pickle.load(stream))
    except MISS:
        return None
    try:
        os.utime(path)  # recently used: the last to be pruned
    except OSError:
        pass
    return frames


def _first(frames: list[Any] | None) -> Any | None:
    return frames[0] if frames else None


def load(root: Path, part: str, version: str) -> Any | None:
    """The cached ``part`` of the repository at ``root``, or None on any miss."""
    return _first(load_frames(root, part, version))


def load_frames(root: Path, part: str, version: str) -> list[Any] | None:
    """Every frame of ``part`` of the repository at ``root`` as saved by ``save_frames``."""
    return _read(_path(_key(str(root.resolve())), part, version))


def load_shared(key: str, part: str, version: str) -> Any | None:
    """The cached ``part`` stored under a content ``key`` (any repository may have saved it)."""
    return _first(_read(_path(_key(key), part, version)))


def save(root: Path, part: str, version: str, value: Any) -> None:
    """Store ``part`` of the repository at ``root`` (failures are ignored: the cache is optional)."""
    save_frames(root, part, version, [pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)])


def save_frames(root: Path, part: str, version: str, frames: list[bytes]) -> None:
    """Store ``part`` of the repository at ``root`` as pickles made elsewhere (a worker process
    pickles its batch once; the same bytes cross to the parent and land here unchanged)."""
    resolved = root.resolve()
    _write(_key(str(resolved)), part, version, frames, str(resolved), resolved)


def save_shared(key: str, part: str, version: str, value: Any, source: Path) -> None:
    """Store ``part`` under a content ``key``; ``source`` is the repository it was built from."""
    frames = [pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)]
    _write(_key(key), part, version, frames, "", source.resolve())


def drop_shared(key: str, part: str, version: str) -> None:
    """Delete the entry stored under a content ``key`` (a tree its repository no longer has)."""
    _path(_key(key), part, version).unlink(missing_ok=True)


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or under it."""
    return path == root or root in path.parents


def _write(key: str, part: str, version: str, frames: list[bytes], owner: str, source: Path) -> None:
    """Write atomically (temp file + rename), drop the key's other versions, then maybe prune."""
    target = _path(key, part, version)
    if inside(target.parent.resolve(), source):
        return
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        name = owner.encode("utf-8", "surrogateescape")
        sealed = seal(b"".join([len(name).to_bytes(4, "big"), name, *frames]))
        if sealed is None:
            return
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(MAGIC)
            handle.write(sealed)
        os.replace(tmp, target)
        tmp = None
        for stale in target.parent.glob(f"{key}-*.{part}{SUFFIX}"):
            if stale != target:
                stale.unlink(missing_ok=True)
    except OSError:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        return
    _maybe_prune()


def _maybe_prune() -> None:
    global _last_prune
    now = time.monotonic()
    if now - _last_prune >= PRUNE_INTERVAL:
        _last_prune = now
        prune()


def _owner(path: str) -> str | None:
    """The root an entry belongs to (``""`` for a shared one), None if unreadable or old. Read
    without the tag (nothing is unpickled): it only decides whether a file of ours is deleted."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(MAGIC) + TAG_BYTES + 4)
            if len(head) != len(MAGIC) + TAG_BYTES + 4 or not head.startswith(MAGIC):
                return None
            size = int.from_bytes(head[-4:], "big")
            name = handle.read(size)
    except OSError:
        return None
    return name.decode("utf-8", "surrogateescape") if len(name) == size else None


def _scan(directory: Path) -> tuple[list[tuple[float, int, str]], list[str]]:
    """(mtime, size, path) of live entries, and the paths of dead ones and abandoned temp files."""
    live: list[tuple[float, int, str]] = []
    dead: list[str] = []
    now = time.time()
    with os.scandir(directory) as entries:
        for entry in entries:
            try:
                if _TEMP.fullmatch(entry.name):
                    if now - entry.stat().st_mtime > TEMP_AGE:
                        dead.append(entry.path)
                elif _OURS.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                    owner = _owner(entry.path) if entry.name.endswith(SUFFIX) else None
                    if owner is None or (owner and not os.path.isdir(owner)):
                        dead.append(entry.path)
                    else:
                        st = entry.stat()
                        live.append((st.st_mtime, st.st_size, entry.path))
            except OSError:
                continue
    return live, dead


def prune(max_entries: int | None = None, max_bytes: int | None = None) -> int:
    """Delete dead, unreadable and least recently used entries; the number of files deleted."""
    entries_limit = MAX_ENTRIES if max_entries is None else max_entries
    bytes_limit = cache_max_bytes() if max_bytes is None else max_bytes
    try:
        live, dead = _scan(private_dir())
    except OSError:
        return 0
    live.sort(reverse=True)  # most recently used first
    total = 0
    for rank, (_, size, path) in enumerate(live):
        total += size
        if rank > 0 and (rank >= entries_limit or total > bytes_limit):  # the newest always stays
            dead.append(path)
    removed = 0
    for path in dead:
        try:
            os.unlink(path)
            removed += 1
        except OSError:
            pass
    return removed
