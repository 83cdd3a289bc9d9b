"""Read the change a merge gate judges: the staged (or working-tree) diff against a base commit.

One ``git diff --name-status -z`` lists the changed paths (renames as delete + add, so a renamed
secret is an added secret); one ``git diff -U0`` supplies every added line with its line number
and the per-file added/deleted counts. ``Diff`` also reads a file as it was at the base and as
it is in the change, which the release and validation checks need.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import TargetError, WorkbenchError
from ...sandbox import git

_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+(\d+)")
_DIFF_FLAGS = ["--no-renames", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/"]


@dataclass
class Change:
    """One changed path: git status letter, counts (None for binary) and the added lines."""

    status: str
    path: str
    added: int | None = 0
    deleted: int | None = 0
    added_lines: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class Diff:
    """The change under review: resolved base commit, staged or not, and the changed paths."""

    repo: Path
    base: str
    staged: bool
    changes: list[Change]

    @property
    def paths(self) -> list[str]:
        return [change.path for change in self.changes]

    def base_text(self, path: str) -> str | None:
        """A file's text at the base commit, or None when it did not exist there."""
        return _maybe(["show", f"{self.base}:{path}"], self.repo)

    def new_text(self, path: str) -> str | None:
        """A file's text in the change (the index when staged), or None when it is gone."""
        if self.staged:
            return _maybe(["show", f":{path}"], self.repo)
        try:
            return (self.repo / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None


def _maybe(args: list[str], repo: Path) -> str | None:
    try:
        return git(args, repo)
    except WorkbenchError:
        return None


def _unquote(name: str) -> str:
    name = name.rstrip("\t")
    if name.startswith('"') and name.endswith('"'):
        raw = codecs.escape_decode(name[1:-1].encode("utf-8"))[0]
        return raw.decode("utf-8", errors="replace")
    return name


def _header_path(line: str) -> str | None:
    name = _unquote(line[4:])
    return None if name == "/dev/null" else name[2:]


def parse_patch(patch: str) -> dict[str, Change]:
    """Added lines and counts per path from a ``-U0`` patch (status is filled in by the caller)."""
    changes: dict[str, Change] = {}
    current: Change | None = None
    old: str | None = None
    line_no, in_hunk = 0, False
    for line in patch.splitlines():
        if line.startswith("diff --git "):
            current, old, in_hunk = None, None, False
        elif not in_hunk and line.startswith("--- "):
            old = _header_path(line)
        elif not in_hunk and line.startswith("+++ "):
            path = _header_path(line) or old or ""
            current = changes.setdefault(path, Change("", path))
        elif line.startswith("@@") and (match := _HUNK.match(line)):
            line_no, in_hunk = int(match.group(1)), True
        elif in_hunk and current is not None and line.startswith("+"):
            current.added_lines.append((line_no, line[1:]))
            current.added = (current.added or 0) + 1
            line_no += 1
        elif in_hunk and current is not None and line.startswith("-"):
            current.deleted = (current.deleted or 0) + 1
    return changes


def _binary_paths(patch: str) -> set[str]:
    found = set()
    for line in patch.splitlines():
        if line.startswith("Binary files ") and line.endswith(" differ"):
            left, _, right = line[len("Binary files ") : -len(" differ")].partition(" and ")
            name = right if right != "/dev/null" else left
            found.add(_unquote(name)[2:])
    return found


def read_diff(repo: Path, base: str = "HEAD", staged: bool = True) -> Diff:
    """The change in ``repo`` against ``base``: staged when ``staged``, else the working tree."""
    if not isinstance(base, str) or not base or base.startswith("-"):
        raise TargetError(f"gate: base must be a revision name, got {base!r}")
    _require_repo(repo)
    commit = _maybe(["rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"], repo)
    if not commit:
        raise TargetError(f"gate: base {base!r} is not a commit in {repo}")
    commit = commit.strip()
    scope = ["--cached"] if staged else []
    listing = git(["diff", *scope, *_DIFF_FLAGS, "--name-status", "-z", commit], repo, error=TargetError)
    patch = git(["diff", *scope, *_DIFF_FLAGS, "-U0", commit], repo, error=TargetError)
    parsed, binary = parse_patch(patch), _binary_paths(patch)
    fields = listing.split("\0")
    changes = []
    for status, path in zip(fields[0::2], fields[1::2]):
        change = parsed.get(path, Change("", path))
        change.status = status[:1]
        if path in binary:
            change.added, change.deleted = None, None
        changes.append(change)
    return Diff(repo, commit, staged, changes)


def _require_repo(repo: Path) -> None:
    if not Path(repo).is_dir():
        raise TargetError(f"gate: {repo} is not a directory")
    try:
        git(["rev-parse", "--git-dir"], repo, error=TargetError)
    except TargetError:
        raise TargetError(f"gate: {repo} is not a git repository") from None
