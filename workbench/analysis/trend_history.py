"""Every recording of each baseline: the files in ``<corpus dir>/baselines/`` now, and each earlier
version of them that git history holds (a baseline re-recorded with ``--force`` or by
``make baseline`` overwrites the file; its earlier recordings stay in the commits before).

History is read only through ``corpus.gitio`` (``git log`` and ``git cat-file`` with ``--git-dir``;
no work tree, index or ref is touched). A corpus outside a git repository, or git missing, gives the
baselines on disk and a note saying so. A file version that does not read as a baseline (history is
untrusted input) is skipped with a note naming it and its commit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..corpus.gitio import CatFile, git_bytes
from ..errors import GitError, StoreError

MAX_NOTES = 20  # skipped versions named one by one; past this, counted


@dataclass(frozen=True)
class Recording:
    """One recording of a baseline: its checked document, the commit that stored it (None when it
    is only on disk, not committed) and whether it is the file on disk now."""

    data: dict[str, Any]
    commit: str | None
    on_disk: bool


def recordings(directory: Path) -> tuple[list[Recording], list[str]]:
    """Every recording of the baselines in ``directory``, oldest commit first (the uncommitted ones
    on disk last), and the notes on what could not be read."""
    notes: list[str] = []
    history: list[Recording] = []
    found = _git_dir_of(directory)
    if found is None:
        if Path(directory).is_dir():  # no baselines at all needs no word on where they come from
            notes.append(f"baselines: {directory} is not in a git repository; only the files on disk are shown")
    else:
        try:
            history = _from_history(found[0], _relative(directory, found[1]), notes)
        except GitError as error:
            notes.append(f"baselines: history not read ({error}); only the baselines on disk are shown")
    return _with_disk(history, directory, notes), _capped(notes)


def _git_dir_of(directory: Path) -> tuple[Path, Path] | None:
    """(git dir, top of its work tree) of the repository holding ``directory``, without a git call."""
    start = directory.resolve()
    for top in (start, *start.parents):
        dot = top / ".git"
        if dot.is_dir():
            return dot, top
        if dot.is_file():
            text = dot.read_text(errors="replace").strip()
            if not text.startswith("gitdir:"):
                return None
            target = Path(text.split(":", 1)[1].strip())
            return (target if target.is_absolute() else (top / target).resolve()), top
    return None


def _relative(directory: Path, top: Path) -> str:
    return PurePosixPath(*directory.resolve().relative_to(top).parts).as_posix() or "."


def _from_history(git_dir: Path, where: str, notes: list[str]) -> list[Recording]:
    """Each version of ``where/*.json`` that a commit on HEAD's history added or changed, oldest first."""
    log = git_bytes(
        git_dir, "log", "-z", "--format=%x1e%H", "--name-only", "--diff-filter=AM", "--no-renames", "--", where
    )
    versions: list[tuple[str, str]] = []
    for record in log.split(b"\x1e")[1:]:
        sha, *paths = record.split(b"\0")
        for raw in paths:
            path = raw.strip(b"\n").decode("utf-8", "replace")
            if path.endswith(".json") and str(PurePosixPath(path).parent) == where.rstrip("/"):
                versions.append((sha.decode().strip(), path))
    found: list[Recording] = []
    with CatFile(git_dir) as objects:  # one version in memory at a time; its per-case records dropped
        for commit, path in reversed(versions):
            blob = objects.read(f"{commit}:{path}")
            data = _checked(blob[1] if blob and blob[0] == "blob" else None, Path(path), commit, notes)
            if data is not None:
                found.append(Recording({k: v for k, v in data.items() if k != "cases"}, commit, on_disk=False))
    return found


def _checked(raw: bytes | None, path: Path, commit: str, notes: list[str]) -> dict[str, Any] | None:
    """The baseline document in ``raw``, or None with a note naming the file, commit and fault."""
    from ..store.shapes import check_baseline

    if raw is None:
        notes.append(f"baselines: {path} at commit {commit[:12]}: skipped (not readable from git)")
        return None
    try:
        return check_baseline(json.loads(raw.decode("utf-8")), path)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        reason = f"not JSON: {str(error)[:80]}"
    except StoreError as error:
        reason = str(error).removeprefix(f"{path}: ")[:120]
    notes.append(f"baselines: {path} at commit {commit[:12]}: skipped ({reason})")
    return None


def _key(data: dict[str, Any]) -> tuple[Any, ...]:
    """What makes two versions of a file the same recording (a revert recommits an old one)."""
    return data.get("name"), data.get("recorded"), data.get("run_id"), data["target"].get("name")


def _with_disk(history: list[Recording], directory: Path, notes: list[str]) -> list[Recording]:
    """The recordings in history, each once (its first commit), marked when it is the file on disk
    now; then the files on disk that no commit holds."""
    from ..store.headers import read_baseline

    on_disk: dict[tuple[Any, ...], dict[str, Any]] = {}
    for path in sorted(Path(directory).glob("*.json")):
        try:
            data = read_baseline(path)[1]
        except StoreError as error:
            notes.append(f"baselines: {error}; skipped")
            continue
        on_disk[_key(data)] = data
    seen: set[tuple[Any, ...]] = set()
    found = []
    for recording in history:
        key = _key(recording.data)
        if key not in seen:
            seen.add(key)
            found.append(Recording(recording.data, recording.commit, on_disk=key in on_disk))
    return found + [Recording(data, None, on_disk=True) for key, data in on_disk.items() if key not in seen]


def _capped(notes: list[str]) -> list[str]:
    if len(notes) <= MAX_NOTES:
        return notes
    return [*notes[:MAX_NOTES], f"baselines: {len(notes) - MAX_NOTES} more notes not shown"]
