"""The on-disk index cache: per repository, parsed file facts keyed by content digest.

Lives under ``$WORKBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/workbench``, else
``~/.cache/workbench`` (never inside the repository being indexed). Two pickles per
repository: ``facts`` (digest -> FileFacts, so an edit re-parses only what changed)
and ``index`` (the built index, valid while the tree digest matches, so an
unchanged repository loads in one read). Writes are atomic; an unreadable or
unwritable cache is only ever a miss.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

FORMAT = 1


def cache_dir() -> Path:
    """Where index caches live (created lazily on first write)."""
    explicit = os.environ.get("WORKBENCH_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "workbench"


def digest(data: bytes, salt: str = "") -> str:
    """A content digest (``salt`` separates the same bytes parsed as different languages)."""
    return hashlib.blake2b(data, digest_size=16, person=salt.encode()[:16].ljust(16, b"\0")).hexdigest()


def code_digest(*modules: str) -> str:
    """A digest of this package's named modules' source: caches built by other code are misses."""
    h = hashlib.blake2b(digest_size=6)
    for name in modules:
        h.update((Path(__file__).parent / f"{name}.py").read_bytes())
    return h.hexdigest()


def _key(root: Path) -> str:
    return hashlib.blake2b(str(root.resolve()).encode(), digest_size=12).hexdigest()


def _path(root: Path, part: str, version: str) -> Path:
    return cache_dir() / f"{_key(root)}-{version}.{part}.pkl"


def load(root: Path, part: str, version: str) -> Any | None:
    """The cached object, or None on any miss (absent, stale format, unreadable)."""
    try:
        with _path(root, part, version).open("rb") as handle:
            stored = pickle.load(handle)
    except (OSError, pickle.PickleError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        return None
    if not isinstance(stored, tuple) or len(stored) != 2 or stored[0] != FORMAT:
        return None
    return stored[1]


def save(root: Path, part: str, version: str, value: Any) -> None:
    """Write atomically (temp file + rename); failures are ignored, the cache is optional."""
    target = _path(root, part, version)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            pickle.dump((FORMAT, value), handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, target)
        for stale in target.parent.glob(f"{_key(root)}-*.{part}.pkl"):
            if stale != target:
                stale.unlink(missing_ok=True)
    except OSError:
        try:
            os.unlink(tmp)  # type: ignore[possibly-undefined]
        except (OSError, NameError):
            pass
