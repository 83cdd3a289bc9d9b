"""List the files of a repository that an engine should read.

Honours ``.gitignore`` files (root and nested), and skips version-control
metadata, vendored and generated trees, binaries and oversized files, so every
consumer (the reference engine, the controls, the naive dump) sees the same set.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..paths import is_snapshot
from .held import bounded

if TYPE_CHECKING:
    import pathspec

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "vendor",
        "third_party",
        "dist",
        "build",
        "out",
        "target",
        "coverage",
        ".next",
        ".nuxt",
        ".venv",
        "venv",
        "env",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".idea",
        ".vscode",
        ".gradle",
        "bower_components",
        ".workbench-cache",
        ".solumbe",
        ".otito",
    }
)
SKIP_SUFFIXES = (
    ".min.js",
    ".min.css",
    ".map",
    ".lock",
    ".pyc",
    ".pyo",
    ".so",
    ".o",
    ".a",
    ".dll",
    ".exe",
    ".class",
    ".jar",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".ico",
    ".pdf",
    ".zip",
    ".gz",
    ".tgz",
    ".bz2",
    ".xz",
    ".woff",
    ".woff2",
    ".ttf",
    ".eot",
    ".mp3",
    ".mp4",
    ".wasm",
    ".db",
    ".sqlite",
)
GENERATED_NAMES = frozenset(
    {"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "Cargo.lock", "go.sum", "composer.lock"}
)
MAX_BYTES = 512 * 1024
BINARY_PROBE = 8192


def _is_binary(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return b"\0" in handle.read(BINARY_PROBE)
    except OSError:
        return True


def _ignore_spec(directory: str) -> tuple[str, pathspec.GitIgnoreSpec] | None:
    """The ``.gitignore`` of ``directory`` as (its content's digest, its compiled patterns), compiled
    once per content (a mined corpus's revisions mostly share them)."""
    try:
        with open(os.path.join(directory, ".gitignore"), "rb") as handle:
            data = handle.read()
    except OSError:  # none, or a directory named so
        return None
    key = hashlib.blake2b(data, digest_size=16).hexdigest()
    spec = _SPECS.get(key)
    if spec is None:
        import pathspec

        spec = pathspec.GitIgnoreSpec.from_lines(data.decode("utf-8", errors="replace").splitlines())
        bounded(_SPECS, 64)[key] = spec
    return key, spec


Specs = tuple[tuple[str, str, "pathspec.GitIgnoreSpec"], ...]  # (folder, its .gitignore's digest, its patterns)


def _ignored(rel_to_spec: str, specs: Specs, is_dir: bool) -> bool:
    """Whether a ``.gitignore`` of ``specs`` ignores the path (remembered per path and patterns)."""
    if not specs:
        return False
    key = (tuple((base, digest) for base, digest, _ in specs), rel_to_spec, is_dir)
    found = _IGNORED.get(key)
    if found is None:
        found = False
        for base, _, spec in specs:
            rel = rel_to_spec[len(base) :] if base else rel_to_spec
            if spec.match_file(rel + "/" if is_dir else rel):
                found = True
                break
        bounded(_IGNORED, 1 << 16)[key] = found
    return found


def _keep_file(entry: os.DirEntry[str], fixed: bool) -> bool:
    """Whether the walk lists a file: not generated, binary or too large. A file of a revision
    snapshot (``fixed``: never rewritten, hard-linked from one store) is probed once per process."""
    name = entry.name
    if name in GENERATED_NAMES or name.endswith(SKIP_SUFFIXES):
        return False
    try:
        st = entry.stat()
    except OSError:
        return False
    if st.st_size > MAX_BYTES:
        return False
    if not fixed:
        return not _is_binary(entry.path)
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    found = _PROBED.get(key)
    if found is None:
        found = bounded(_PROBED, 1 << 15)[key] = not _is_binary(entry.path)
    return found


_SPECS: dict[str, pathspec.GitIgnoreSpec] = {}
_IGNORED: dict[tuple[tuple[tuple[str, str], ...], str, bool], bool] = {}
_PROBED: dict[tuple[int, int, int, int], bool] = {}


def list_files(root: Path | str) -> list[str]:
    """Repo-relative ``/`` paths of the readable source files under ``root``, sorted.

    A revision snapshot never changes once built, so its list is walked once per process and kept
    (a bounded number of them): every target of a run over a mined corpus lists each revision, the
    controls more than once per case."""
    resolved = Path(root).resolve()
    if not is_snapshot(resolved):
        return sorted(_walk(Path(root), None, files=True))
    key = str(resolved)
    with _SNAPSHOT_LOCK:
        known = _SNAPSHOT_FILES.get(key)
        if known is not None:
            _SNAPSHOT_FILES.move_to_end(key)
            return list(known)
    found = tuple(sorted(_walk(resolved, None, files=True)))
    with _SNAPSHOT_LOCK:
        _SNAPSHOT_FILES[key] = found
        while len(_SNAPSHOT_FILES) > SNAPSHOT_LISTS:
            _SNAPSHOT_FILES.popitem(last=False)
    return list(found)


SNAPSHOT_LISTS = 512  # snapshots whose file list a process keeps (a mined corpus's revisions)
_SNAPSHOT_FILES: OrderedDict[str, tuple[str, ...]] = OrderedDict()
_SNAPSHOT_LOCK = threading.Lock()  # cases of one run may list on several threads (--jobs)


def list_directories(root: Path | str, visit: Callable[[str], object] | None = None) -> list[str]:
    """Absolute paths of the directories ``list_files`` enters under ``root`` (``root`` first);
    ``visit`` sees each one before it is scanned (a watch set up there misses no later change)."""
    entered: list[str] = []

    def enter(path: str) -> None:
        entered.append(path)
        if visit is not None:
            visit(path)

    _walk(Path(root), enter, files=False)
    return entered


def _walk(root: Path, enter: Callable[[str], object] | None, files: bool) -> list[str]:
    """The kept files under ``root`` (when ``files``), skipping ignored and vendored trees;
    ``enter`` is called with each directory's path before it is scanned."""
    found: list[str] = []
    fixed = files and is_snapshot(Path(root).resolve())
    stack: list[tuple[str, str, Specs]] = [(str(root), "", ())]
    while stack:
        directory, rel_dir, specs = stack.pop()
        if enter is not None:
            enter(directory)
        spec = _ignore_spec(directory)
        if spec is not None:
            specs = (*specs, (rel_dir, *spec))
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            rel = f"{rel_dir}{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                if entry.name in SKIP_DIRS or _ignored(rel, specs, True):
                    continue
                stack.append((entry.path, rel + "/", specs))
            elif files and entry.is_file(follow_symlinks=False):
                if not _ignored(rel, specs, False) and _keep_file(entry, fixed):
                    found.append(rel)
    return found


@lru_cache(maxsize=64)
def _cached(root: str, stamp: float) -> tuple[str, ...]:
    return tuple(list_files(root))


def list_files_cached(root: Path | str) -> tuple[str, ...]:
    """``list_files`` memoised per root and its modification time (fixtures never change mid-run)."""
    resolved = str(Path(root).resolve())
    return _cached(resolved, os.stat(resolved).st_mtime)


def read_text(root: Path | str, rel: str) -> str:
    """A file's text, decoded leniently (engines must never crash on odd bytes)."""
    return (Path(root) / rel).read_text(encoding="utf-8", errors="replace")


def read_head(root: Path | str, rel: str, chars: int) -> str:
    """The first ``chars`` characters of ``read_text(root, rel)``, without reading the rest."""
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as handle:
        return handle.read(chars)
