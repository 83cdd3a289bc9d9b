"""Materialize a revision's tree, read from git objects only, into a read-only cache.

``materialize(repo, revision)`` returns ``<cache>/snapshots/<tree sha>/``: the files of
that commit's tree, content-addressed by the tree, so every case (and every run) at
the same tree shares one directory. Objects are read through one ``git cat-file
--batch`` process (no work tree, index, HEAD or ref is touched, no checkout, no
``.gitattributes`` filters). Each blob is written once to ``snapshots/.blobs/`` and
hard-linked into every snapshot holding it; files are read-only (0444, 0555 for
executables), directories 0555. Symlinks are kept only when they stay inside the
snapshot; submodules are left out. A snapshot is built in a temp directory and renamed
into place, so a directory that exists is complete.

The cache limits itself with the limits every cache keeps (``paths.CACHE_MAX_ENTRIES``: at most
256 snapshots and ``$WORKBENCH_CACHE_MAX_MB``, default 512, of blob bytes): after a new
snapshot (at most once a minute per process) the least recently used ones (a use refreshes a
snapshot's mtime) are deleted, never one a live process has handed out (``handed_out``: a run's
workers and two runs sharing one cache prune nothing from under each other), then the blobs no
snapshot links any more.
"""

from __future__ import annotations

import atexit
import os
import posixpath
import shutil
import stat
import tempfile
import threading
import time
from pathlib import Path

from ..code.held import bounded
from ..errors import GitError
from ..paths import CACHE_MAX_ENTRIES, CACHE_PRUNE_INTERVAL, CACHE_TEMP_AGE, GIT_SHA, cache_max_bytes, snapshots_dir
from .gitio import CatFile
from .handed_out import HANDED_OUT, IN_USE, LOCK, handed_out, locked, register
from .sources import GitRepo

BLOBS = ".blobs"
_LOCK = threading.Lock()
_READERS: dict[Path, CatFile] = {}
_last_prune = float("-inf")
_TOUCHED: set[str] = set()  # snapshots whose use time this process has refreshed
_TREES: dict[tuple[Path, str], str] = {}  # (git dir, full commit sha) -> its tree sha


def _forget_readers() -> None:
    """In a forked child: the parent's ``cat-file`` processes are the parent's (two processes asking
    one would mix their answers), so the child starts its own."""
    _READERS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_readers)


def close_readers() -> None:
    """End this process's ``cat-file`` processes and wait for them, so none outlives it unwaited (a
    forked worker calls this before it exits; this process at exit)."""
    with _LOCK:
        readers = list(_READERS.values())
        _READERS.clear()
    for reader in readers:
        reader.close()


atexit.register(close_readers)


def snapshots_root() -> Path:
    return snapshots_dir()


def _reader(repo: GitRepo) -> CatFile:
    reader = _READERS.get(repo.git_dir)
    if reader is None:
        reader = _READERS[repo.git_dir] = CatFile(repo.git_dir)
    return reader


def tree_of(repo: GitRepo, revision: str) -> str:
    """The tree sha of ``revision``'s commit, or a GitError naming the repository and revision.
    A full commit sha names its tree for good, so that answer is kept for the process."""
    memo = (repo.git_dir, revision) if GIT_SHA.fullmatch(revision) else None
    if memo is not None and memo in _TREES:
        return _TREES[memo]
    with _LOCK:
        found = _reader(repo).read_object(f"{revision}^{{tree}}")
    if found is None or found[1] != "tree":
        raise GitError(f"{repo.path}: revision {revision!r} is not a commit in this repository")
    if memo is not None:
        _TREES[memo] = found[0]
    return found[0]


def materialize(repo: GitRepo, revision: str) -> Path:
    """The read-only directory holding ``revision``'s tree (built on first use, then reused)."""
    tree = tree_of(repo, revision)
    root = snapshots_root()
    target = root / tree
    with _LOCK, locked(root, shared=True):
        if tree not in HANDED_OUT:
            register(root, tree)
        if target.is_dir():
            if tree not in _TOUCHED:  # once per process: a changing mtime would make every index load rebuild
                _touch(target)
                _TOUCHED.add(tree)
            return target
        _build(_reader(repo), tree, target)
        _TOUCHED.add(tree)
    _maybe_prune()
    return target


def _maybe_prune() -> None:
    """Prune after a new snapshot, at most once per ``CACHE_PRUNE_INTERVAL`` seconds per process."""
    global _last_prune
    now = time.monotonic()
    if now - _last_prune >= CACHE_PRUNE_INTERVAL:
        _last_prune = now
        prune()


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


def _build(objects: CatFile, tree: str, target: Path) -> None:
    root = target.parent
    blobs = root / BLOBS
    blobs.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(dir=root, prefix=f".{tree[:12]}-"))
    try:
        dirs = _fill(objects, tree, temp, blobs)
        for directory in sorted(dirs, key=lambda d: len(d.parts), reverse=True):
            directory.chmod(0o555)
        try:
            temp.rename(target)
        except OSError:  # another process built the same tree first
            if not target.is_dir():
                raise
            _remove_tree(temp)
            return
        target.chmod(0o555)
    except BaseException:
        _remove_tree(temp)
        raise


def _entries(data: bytes, width: int) -> list[tuple[str, str, str]]:
    """(mode, name, sha) of each entry of a raw tree object (``width``: 20-byte SHA-1 or 32-byte SHA-256 ids)."""
    entries, at = [], 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        entries.append(
            (
                data[at:space].decode(),
                data[space + 1 : nul].decode("utf-8", "surrogateescape"),
                data[nul + 1 : nul + 1 + width].hex(),
            )
        )
        at = nul + 1 + width
    return entries


def _fill(objects: CatFile, tree: str, root: Path, blobs: Path) -> list[Path]:
    """Write ``tree`` under ``root``; the directories made (to be made read-only)."""
    made: list[Path] = []
    pending = [(tree, str(root))]
    while pending:
        sha, directory = pending.pop()
        for mode, name, child in _tree_entries(objects, sha):
            if name in (".", "..") or "/" in name:
                continue
            path = os.path.join(directory, name)
            if mode == "40000":
                os.mkdir(path)
                made.append(Path(path))
                pending.append((child, path))
            elif mode in ("100644", "100755", "100664"):
                _link_blob(objects, child, mode == "100755", path, str(blobs))
            elif mode == "120000":
                _symlink(objects, child, Path(path), root)
    return made


def _tree_entries(objects: CatFile, sha: str) -> list[tuple[str, str, str]]:
    """The entries of tree ``sha``, read once per process (a tree's id names its entries for good;
    consecutive revisions share most of their folders)."""
    found = _TREE_ENTRIES.get(sha)
    if found is None:
        read = objects.read_object(sha)
        if read is None or read[1] != "tree":
            raise GitError(f"{objects.git_dir}: tree {sha} is missing (a shallow or damaged repository?)")
        global _held_entries
        found = _entries(read[2], len(sha) // 2)
        if _held_entries + len(found) > ENTRIES_HELD:
            _TREE_ENTRIES.clear()
            _held_entries = 0
        _TREE_ENTRIES[sha] = found
        _held_entries += len(found)
    return found


ENTRIES_HELD = 1 << 14  # tree entries a process remembers (about 4 MB)
_TREE_ENTRIES: dict[str, list[tuple[str, str, str]]] = {}
_held_entries = 0
_STORED: set[str] = set()  # blob files this process has linked from (pruning may remove one: then written anew)


def _link_blob(objects: CatFile, sha: str, executable: bool, path: str, blobs: str) -> None:
    stored = os.path.join(blobs, f"{sha}.{'x' if executable else 'r'}")
    if stored not in _STORED and not os.path.exists(stored):
        _write_blob(objects, sha, executable, stored, blobs)
    try:
        os.link(stored, path)
    except FileNotFoundError:  # pruned since: write it again
        _write_blob(objects, sha, executable, stored, blobs)
        os.link(stored, path)
    except OSError:  # a file system without hard links: copy
        shutil.copy2(stored, path)
    bounded(_STORED, 1 << 14).add(stored)


def _write_blob(objects: CatFile, sha: str, executable: bool, stored: str, blobs: str) -> None:
    found = objects.read_object(sha)
    if found is None:
        raise GitError(f"{objects.git_dir}: blob {sha} is missing")
    fd, temp = tempfile.mkstemp(dir=blobs, prefix=f".{sha[:12]}-")
    with os.fdopen(fd, "wb") as handle:
        handle.write(found[2])
    os.chmod(temp, 0o555 if executable else 0o444)
    os.replace(temp, stored)


def _symlink(objects: CatFile, sha: str, path: Path, root: Path) -> None:
    found = objects.read_object(sha)
    if found is None:
        return
    target = found[2].decode("utf-8", "surrogateescape")
    inside = posixpath.normpath(posixpath.join(path.parent.relative_to(root).as_posix(), target))
    if target.startswith("/") or inside == ".." or inside.startswith("../"):
        return  # a link leading outside the snapshot is left out
    os.symlink(target, path)


def _remove_tree(path: Path) -> None:
    """Delete a (read-only) snapshot directory."""
    if not path.exists():
        return
    for directory, _, _ in os.walk(path):
        try:
            os.chmod(directory, 0o755)
        except OSError:
            pass
    shutil.rmtree(path, ignore_errors=True)


def prune(max_entries: int | None = None, max_bytes: int | None = None) -> int:
    """Delete least recently used snapshots beyond the limits, then orphaned blobs; how many snapshots went."""
    max_entries = CACHE_MAX_ENTRIES if max_entries is None else max_entries
    max_bytes = cache_max_bytes() if max_bytes is None else max_bytes
    root = snapshots_root()
    if not root.is_dir():
        return 0
    with locked(root, shared=False) as held:
        return _prune(root, max_entries, max_bytes) if held else 0


def _prune(root: Path, max_entries: int, max_bytes: int) -> int:
    """``prune`` under the exclusive lock: no snapshot is handed out meanwhile."""
    in_use = handed_out(root)
    try:
        snapshots = sorted(
            (entry.stat().st_mtime, entry.name)
            for entry in os.scandir(root)
            if entry.is_dir(follow_symlinks=False) and not entry.name.startswith(".")
        )
        blobs = {
            entry.stat().st_ino: (entry.path, entry.stat().st_size)
            for entry in os.scandir(root / BLOBS)
            if not entry.name.startswith(".")
        }
    except OSError:
        return 0
    total = sum(size for _, size in blobs.values())
    _remove_abandoned(root)
    removed = 0
    for _, name in snapshots:  # oldest first
        if len(snapshots) - removed <= max_entries and total <= max_bytes:
            break
        if name in in_use:
            continue
        inodes = {os.lstat(os.path.join(d, f)).st_ino for d, _, files in os.walk(root / name) for f in files}
        _remove_tree(root / name)
        removed += 1
        for inode in inodes & blobs.keys():
            path, size = blobs[inode]
            try:
                if os.stat(path).st_nlink <= 1:
                    os.unlink(path)
                    total -= size
                    del blobs[inode]
            except OSError:
                continue
    return removed


def _remove_abandoned(root: Path) -> None:
    """Delete temp snapshots and blob files a writer that died left behind (older than ``CACHE_TEMP_AGE``)."""
    cutoff = time.time() - CACHE_TEMP_AGE
    for directory, is_blobs in ((root, False), (root / BLOBS, True)):
        try:
            stale = [
                e
                for e in os.scandir(directory)
                if e.name.startswith(".")
                and e.name not in (BLOBS, IN_USE, LOCK)
                and e.stat(follow_symlinks=False).st_mtime < cutoff
            ]
        except OSError:
            continue
        for entry in stale:
            if is_blobs:
                Path(entry.path).unlink(missing_ok=True)
            else:
                _remove_tree(Path(entry.path))


def snapshot_files(path: Path) -> list[str]:
    """Every file of a snapshot, repo-relative with ``/`` (for tests and checks)."""
    return sorted(p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file() or p.is_symlink())


def is_read_only(path: Path) -> bool:
    return not (path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
