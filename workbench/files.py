"""Atomic file writes, and JSON text without NaN (a reader never sees half a file); a lock for a
read-modify-write of one file, and a create that never replaces what another process wrote."""

from __future__ import annotations

import errno
import fcntl
import json
import math
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .errors import StoreError


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [_json_safe(v) for v in items]
    if hasattr(value, "item") and callable(value.item):
        return _json_safe(value.item())
    if isinstance(value, Path):
        return str(value)
    return value


def _plain_leaf(value: Any) -> Any:
    """``json.dumps``'s ``default``: a numpy scalar, set or path as the JSON value it stands for."""
    safe = _json_safe(value)
    if safe is value:
        raise TypeError(f"{type(value).__name__} is not JSON serializable")
    return safe


def dumps(obj: Any, **kwargs: Any) -> str:
    """JSON text with NaN/inf as null and numpy scalars, sets and paths made plain.

    Plain JSON data (what a corpus or an engine's answer holds) is written by the C encoder in one
    pass; a value holding NaN or infinity (or a key of another type) is made plain first.
    """
    try:
        return json.dumps(obj, ensure_ascii=False, allow_nan=False, default=_plain_leaf, **kwargs)
    except (ValueError, TypeError):  # NaN or infinity somewhere, or a key json cannot write (a numpy int)
        return json.dumps(_json_safe(obj), ensure_ascii=False, allow_nan=False, **kwargs)


# What a write can fail with that is the disk's or the user's, not workbench's (see ``write_failure``).
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO})


def write_failure(path: Path | str, exc: OSError) -> StoreError:
    """The one-line ``StoreError`` for ``exc`` raised while writing ``path``: ``P: cannot write: No
    space left on device (ENOSPC)``."""
    name = errno.errorcode.get(exc.errno or 0, "")
    reason = exc.strerror or str(exc) or type(exc).__name__
    return StoreError(f"{path}: cannot write: {reason}" + (f" ({name})" if name else ""))


@contextmanager
def writing(path: Path | str) -> Iterator[None]:
    """Turn an OSError while writing ``path`` (a full disk, a quota, no permission) into one
    ``StoreError`` line naming the path (exit 3), never a traceback."""
    try:
        yield
    except OSError as exc:
        raise write_failure(path, exc) from None


def _write_fd(fd: int, text: str) -> None:
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


def write_text_atomic(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` via a temp file in the same directory and ``os.replace``.

    An existing file keeps its permissions; a new one gets 0644 (mkstemp's 0600 would hide
    reports and baselines from other users). A failed write leaves the old file as it was and
    raises a ``StoreError`` naming ``path`` (see ``writing``).
    """
    path = Path(path)
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            _write_fd(fd, text)
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def write_json_atomic(path: Path | str, obj: Any, **kwargs: Any) -> None:
    """Atomically write ``obj`` as JSON (indent 2 unless told otherwise)."""
    kwargs.setdefault("indent", 2)
    write_text_atomic(path, dumps(obj, **kwargs) + "\n")


def lock_path(path: Path | str) -> Path:
    """The sibling lock file of ``path``: ``.<name>.lock`` in the same directory (left in place:
    deleting a lock file while another process waits on it would let two holders in)."""
    path = Path(path)
    return path.parent / f".{path.name}.lock"


@contextmanager
def locked(path: Path | str) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path``'s sibling lock file (``lock_path``) while the body reads,
    changes and atomically rewrites ``path``: a second process (or thread) doing the same waits, so
    neither write is lost. The lock goes with the holder, even when it is killed."""
    lock = lock_path(path)
    with writing(lock):
        fd = lock_file(lock, 0o644)
    with flocked(fd, shared=False):
        yield


def lock_file(lock: Path, mode: int) -> int:
    """A descriptor of the lock file ``lock`` (made, with its folder, if missing); OSError if it cannot be."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    return os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, mode)


@contextmanager
def flocked(fd: int, shared: bool) -> Iterator[None]:
    """Hold a ``flock`` on ``fd`` (shared, or exclusive) for the body, then close it (which releases it)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def create_text_atomic(path: Path | str, text: str, exists: str) -> None:
    """Write ``text`` to ``path`` only if no file is there, complete or not at all: the text goes to
    a temp file that is then hard-linked to ``path``, which fails when ``path`` exists, so of two
    processes creating one name at once exactly one wins; the other gets a ``StoreError`` with
    ``exists`` as its message (one line)."""
    path = Path(path)
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            _write_fd(fd, text)
            os.chmod(tmp, 0o644)
            _link_or_create(Path(tmp), path, text)
        except FileExistsError:
            raise StoreError(exists) from None
        finally:
            Path(tmp).unlink(missing_ok=True)


def _link_or_create(tmp: Path, path: Path, text: str) -> None:
    """Hard-link ``tmp`` to ``path``; on a file system without hard links, create ``path`` with
    ``O_EXCL`` and write ``text`` (still exclusive; a reader may then see it being written)."""
    try:
        os.link(tmp, path)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK):
            raise
        _write_fd(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644), text)
