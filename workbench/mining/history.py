"""Read a repository's commits, with the files each one changed, in two streaming git calls.

``git log -z --format=%H%x00%P --name-status`` prints, NUL-separated, each commit's sha and
parents (hex only) and its ``status, path`` pairs; paths cannot hold a NUL, so a token stream
parsed by position can never be forged by a file name. Author, e-mail, time and message come
from the commit object itself, read with its length through one ``git cat-file --batch``, so
no commit text can forge a field or another commit. A commit touching a path with a newline,
another control character or bytes that are not UTF-8 keeps the flag ``odd_paths`` (the
``odd-path`` filter drops it); it never stops the mine. Renames are not detected (a rename
reads as a delete and an add); merges list no files (git shows no diff for them by default).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..corpus.gitio import CatFile, git_text, stream_records
from ..errors import GitError

_FORMAT = "%H%x00%P"
_SHA = re.compile(rb"[0-9a-f]{40}|[0-9a-f]{64}")
_PARENTS = re.compile(rb"(?:(?:[0-9a-f]{40}|[0-9a-f]{64})(?: |$))*")
_STATUS = re.compile(rb"\n?[ACDMRTUXB][0-9]{0,3}")
_ODD = re.compile(r"[\x00-\x1f\x7f]")


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
    odd_paths: bool = False  # a changed path with a control character or bytes that are not UTF-8

    @cached_property
    def subject(self) -> str:
        """The message's first line (worked out once: every message filter reads it)."""
        return self.message.partition("\n")[0].strip()

    @property
    def body(self) -> str:
        parts = self.message.split("\n", 1)
        return parts[1].strip() if len(parts) > 1 else ""

    def paths(self, status: str | None = None) -> list[str]:
        """Changed paths, optionally only those with one status letter (``M``, ``A``, ``D``, ...)."""
        return [p for s, p in self.changes if status is None or s == status]


@dataclass
class LogEntry:
    """What the ``git log`` stream says of one commit: its sha, parents and changed paths (raw bytes)."""

    sha: str
    parents: tuple[str, ...]
    changes: list[tuple[str, bytes]] = field(default_factory=list)
    _decoded: tuple[tuple[tuple[str, str], ...], bool] | None = field(default=None, repr=False, compare=False)

    @property
    def decoded(self) -> tuple[tuple[tuple[str, str], ...], bool]:
        """The changes with their paths as text, and whether any path is odd (``decode_path``)."""
        if self._decoded is None:
            changes, odd = [], False
            for status, path in self.changes:
                text, strange = decode_path(path)
                odd = odd or strange
                changes.append((status, text))
            self._decoded = tuple(changes), odd
        return self._decoded

    @property
    def odd_paths(self) -> bool:
        return self.decoded[1]


def parse_log(tokens: Iterable[bytes]) -> Iterator[LogEntry]:
    """The commits of a NUL-split ``git log -z --format=%H%x00%P --name-status`` stream, by position:
    a sha, its parents, then ``status, path`` pairs until the next sha. A GitError if it is malformed."""
    entry: LogEntry | None = None
    state = "sha"  # what the next token is: "sha", "parents", "status-or-sha" or "path"
    status = ""
    for token in tokens:
        if state == "path":
            assert entry is not None
            entry.changes.append((status, token))
            state = "status-or-sha"
        elif state == "parents":
            if not _PARENTS.fullmatch(token):
                raise GitError(f"git log: unexpected parents field {token[:80]!r}")
            assert entry is not None
            entry.parents = tuple(token.decode().split())
            state = "status-or-sha"
        elif state == "status-or-sha" and _STATUS.fullmatch(token):
            status, state = token.strip().decode()[:1], "path"
        elif state == "status-or-sha" and not token:
            continue  # the stream's last terminator
        elif _SHA.fullmatch(token):
            if entry is not None:
                yield entry
            entry, state = LogEntry(token.decode(), ()), "parents"
        else:
            raise GitError(f"git log: unexpected field {token[:80]!r} where a {state} belongs")
    if state in ("parents", "path"):
        raise GitError("git log: the stream ended inside a commit")
    if entry is not None:
        yield entry


def decode_path(raw: bytes) -> tuple[str, bool]:
    """A path as text and whether it is odd (not UTF-8, or holding a newline or control character)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace"), True
    return text, bool(_ODD.search(text))


def _person(line: bytes) -> tuple[str, str, int]:
    """(name, e-mail, Unix time) of an ``author``/``committer`` header line's value."""
    ident, _, when = line.rpartition(b">")
    name, _, email = ident.partition(b"<")
    stamp = when.split()
    seconds = int(stamp[0]) if stamp and stamp[0].isdigit() and len(stamp[0]) < 19 else 0
    return name.strip().decode("utf-8", "replace"), email.decode("utf-8", "replace"), seconds


def parse_commit_object(data: bytes) -> tuple[str, str, int, str]:
    """(author, e-mail, committer time, message) of a raw commit object."""
    header, _, message = data.partition(b"\n\n")
    author: tuple[str, str, int] = ("", "", 0)
    committed = 0
    for line in header.split(b"\n"):
        key, _, value = line.partition(b" ")
        if key == b"author":
            author = _person(value)
        elif key == b"committer":
            committed = _person(value)[2]
    return author[0], author[1], committed, message.decode("utf-8", "replace").strip()


def to_commit(entry: LogEntry, raw: bytes) -> Commit:
    """One ``Commit`` from its log entry and its raw object."""
    author, email, when, message = parse_commit_object(raw)
    changes, odd = entry.decoded
    return Commit(entry.sha, entry.parents, author, email, when, message, changes, odd)


def count_commits(git_dir: Path, rev: str = "HEAD") -> int:
    """How many commits ``rev`` reaches (for a progress bar's total)."""
    return int(git_text(git_dir, "rev-list", "--count", rev).strip() or 0)


def log_entries(git_dir: Path, rev: str = "HEAD", skip: int = 0) -> Iterator[LogEntry]:
    """What ``git log`` says of every commit reachable from ``rev``, newest first (streamed), after
    the first ``skip`` of them (which git walks without diffing)."""
    args = ["log", rev, "-z", "--no-renames", "--name-status", "--no-color", "--no-show-signature"]
    args += [f"--skip={skip}"] if skip else []
    return parse_log(stream_records(git_dir, [*args, f"--format={_FORMAT}", "--"], b"\0", keep_empty=True))


def read_commits(git_dir: Path, entries: Iterable[LogEntry]) -> Iterator[Commit]:
    """The ``Commit`` of each log entry, its object read through one ``git cat-file --batch`` a group
    ahead (``CatFile.stream``: git reads objects while the caller works; streamed)."""
    asked: deque[LogEntry] = deque()  # the entries whose objects were asked for, not yet answered

    def shas() -> Iterator[str]:
        for entry in entries:
            asked.append(entry)
            yield entry.sha

    with CatFile(git_dir) as objects:
        for found in objects.stream(shas()):
            entry = asked.popleft()
            if found is None or found[1] != "commit":
                raise GitError(f"{git_dir}: commit {entry.sha} listed by git log cannot be read")
            yield to_commit(entry, found[2])


def iter_commits(git_dir: Path, rev: str = "HEAD") -> Iterator[Commit]:
    """Every commit reachable from ``rev``, newest first, with its changed files (streamed)."""
    return read_commits(git_dir, log_entries(git_dir, rev))
