"""Read a repository's commits, with the files each one changed, in ONE streaming git call.

``git log --name-status -z`` prints every commit's header and its changed paths; the
records are parsed as they arrive, so a long history costs one process and memory
for one commit at a time. Renames are not detected (a rename reads as a delete and
an add), merges list no files (git shows no diff for them by default).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..corpus.gitio import git_text, stream_records

_RECORD, _FIELD = b"\x1e", b"\x1f"
_FORMAT = "%x1e%H%x1f%P%x1f%an%x1f%ae%x1f%ct%x1f%B%x1f"


@dataclass(frozen=True)
class Commit:
    """One commit: ids, author, time (Unix seconds), message, and ``(status, path)`` per changed file."""

    sha: str
    parents: tuple[str, ...]
    author: str
    email: str
    time: int
    message: str
    changes: tuple[tuple[str, str], ...] = field(default=())

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0].strip()

    @property
    def body(self) -> str:
        parts = self.message.split("\n", 1)
        return parts[1].strip() if len(parts) > 1 else ""

    def paths(self, status: str | None = None) -> list[str]:
        """Changed paths, optionally only those with one status letter (``M``, ``A``, ``D``, ...)."""
        return [p for s, p in self.changes if status is None or s == status]


def _parse(record: bytes) -> Commit | None:
    parts = record.split(_FIELD, 6)
    if len(parts) < 7:
        return None
    sha, parents, author, email, stamp, message, tail = (p.decode("utf-8", "replace") for p in parts)
    tokens = [t for t in tail.split("\0") if t not in ("", "\n")]
    changes = []
    for index in range(0, len(tokens) - 1, 2):
        status = tokens[index].strip()[:1]
        changes.append((status, tokens[index + 1]))
    try:
        when = int(stamp)
    except ValueError:
        when = 0
    return Commit(sha, tuple(parents.split()), author, email, when, message.strip(), tuple(changes))


def count_commits(git_dir: Path, rev: str = "HEAD") -> int:
    """How many commits ``rev`` reaches (for a progress bar's total)."""
    return int(git_text(git_dir, "rev-list", "--count", rev).strip() or 0)


def iter_commits(git_dir: Path, rev: str = "HEAD") -> Iterator[Commit]:
    """Every commit reachable from ``rev``, newest first, with its changed files."""
    args = [
        "log",
        rev,
        "-z",
        "--no-renames",
        "--name-status",
        "--no-color",
        "--no-show-signature",
        f"--format={_FORMAT}",
        "--",
    ]
    for record in stream_records(git_dir, args, _RECORD):
        commit = _parse(record)
        if commit is not None:
            yield commit
