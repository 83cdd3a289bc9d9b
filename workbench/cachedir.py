"""The cache directory, treated as ssh treats ``~/.ssh``: private to the user, entries sealed.

Caches hold pickles (indexes, per-blob facts) and revision snapshots. A pickle runs code when
loaded, so a directory another user can write is never read: ``private_dir()`` returns the
configured ``paths.cache_dir()`` only when it is owned by this user and not writable by group or
others; otherwise it says so in one line on stderr, once, and
falls back to a private directory of its own. On top of that every entry is sealed: ``seal`` puts
an HMAC-SHA256 of the bytes (with a per-user key kept 0600 in the directory, ``.key``) in front,
and ``unseal`` returns the bytes only when the tag matches, so an entry copied in from elsewhere
or planted by anyone without the key is a miss, never code.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
import sys
import tempfile
import threading
from pathlib import Path

from .paths import cache_dir

KEY_NAME = ".key"
KEY_BYTES = 32
TAG_BYTES = 32
_LOCK = threading.Lock()
_CHOSEN: dict[str, Path] = {}  # configured directory -> the directory used (checked once per process)
_KEYS: dict[Path, bytes] = {}


def unsafe_reason(path: Path) -> str | None:
    """Why ``path`` may not hold caches (owned by another user, writable by group or others, not a
    directory), or None when it is safe. ``lstat``: a symlink in its place is refused too."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"is owned by uid {st.st_uid}, not by this user"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"is writable by others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def private_dir() -> Path:
    """The cache directory to use: the configured one when it is safe, else a private fallback,
    said once on stderr. A missing directory is not created here (writers make it, 0700) and is
    checked again on the next call, so it is judged as soon as it exists."""
    configured = cache_dir()
    found = _CHOSEN.get(str(configured))
    if found is not None:
        return found
    reason = unsafe_reason(configured)
    if reason is None and not configured.is_dir():
        return configured
    with _LOCK:
        found = _CHOSEN.get(str(configured))
        if found is None:
            found = _CHOSEN[str(configured)] = configured if reason is None else _fallback(configured, reason)
    return found


def _fallback(configured: Path, reason: str) -> Path:
    fallback = Path(tempfile.mkdtemp(prefix="workbench-cache-"))  # 0700, ours
    print(f"workbench: cache directory {configured} {reason}; using {fallback} instead", file=sys.stderr)
    return fallback


def _key(directory: Path) -> bytes | None:
    """This user's sealing key for ``directory`` (made on first use, 0600), None when unusable."""
    key = _KEYS.get(directory)
    if key is not None:
        return key
    path = directory / KEY_NAME
    key = _read_key(path)
    if key is None and not path.exists():
        key = _make_key(path)
    if key is not None:
        _KEYS[directory] = key
    return key


def _read_key(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if (hasattr(os, "getuid") and st.st_uid != os.getuid()) or st.st_mode & 0o077:
            return None  # a key others can read or write authenticates nothing
        data = handle.read(KEY_BYTES + 1)
    return data if len(data) == KEY_BYTES else None


def _make_key(path: Path) -> bytes | None:
    """Write a fresh key to a 0600 temp file and link it into place: two processes racing both end
    up with the one that landed first."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".key-")  # mkstemp makes it 0600
    except OSError:
        return None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
        try:
            os.link(temp, path)
        except FileExistsError:
            pass
        except OSError:
            return None
    finally:
        Path(temp).unlink(missing_ok=True)
    return _read_key(path)


def tag(data: bytes | memoryview, directory: Path | None = None) -> bytes | None:
    """The HMAC of ``data`` under the key of ``directory`` (default: the cache), None without a key."""
    key = _key(directory or private_dir())
    return None if key is None else hmac.new(key, data, hashlib.sha256).digest()


def seal(data: bytes, directory: Path | None = None) -> bytes | None:
    """``data`` with its tag in front, None when no key can be had (then nothing is written)."""
    mac = tag(data, directory)
    return None if mac is None else mac + data


def unseal(sealed: bytes, directory: Path | None = None) -> bytes | None:
    """The bytes ``seal`` sealed, or None when the tag does not match (a planted or copied entry)."""
    if len(sealed) < TAG_BYTES:
        return None
    data = memoryview(sealed)[TAG_BYTES:]
    mac = tag(data, directory)
    return bytes(data) if mac is not None and hmac.compare_digest(mac, sealed[:TAG_BYTES]) else None
