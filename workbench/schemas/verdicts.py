"""Schema verdicts kept between runs, so a large corpus is not validated again while unchanged.

Validating a mined corpus of 10,000 cases against the schema takes most of a second, on every
run. The verdict is a function of the corpus bytes and the schema text alone, so a pass is
remembered as an empty marker file named by the digest of both, under
``<cache>/schema-verdicts/``. Only passes are kept: a corpus with problems is always validated,
so its problems are always listed. The directory holds at most ``MAX_VERDICTS`` markers.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..paths import private_dir
from . import schema_bytes

DIRECTORY = "schema-verdicts"
MAX_VERDICTS = 256


def _marker(raw: bytes) -> Path:
    digest = hashlib.sha256(hashlib.sha256(schema_bytes()).digest() + raw).hexdigest()
    return private_dir() / DIRECTORY / digest


def known_valid(raw: bytes) -> bool:
    """Whether this schema has passed a corpus with exactly these bytes before."""
    marker = _marker(raw)
    try:
        os.utime(marker)  # a use keeps it among the newest
    except OSError:
        return False
    return marker.is_file()


def remember_valid(raw: bytes) -> None:
    """Record that a corpus with these bytes passed the schema (best effort: a read-only cache
    directory only means the next run validates again)."""
    marker = _marker(raw)
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
        _bound(marker.parent)
    except OSError:
        pass


def _bound(directory: Path) -> None:
    """Drop the oldest markers beyond ``MAX_VERDICTS``."""
    entries = list(os.scandir(directory))
    if len(entries) <= MAX_VERDICTS:
        return
    entries.sort(key=lambda entry: entry.stat().st_mtime)
    for entry in entries[: len(entries) - MAX_VERDICTS]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass
