"""Co-change from git history: files that changed together in earlier commits.

When a repository is a git work tree, the commits up to its checked-out ``HEAD`` (so at
a revision, only the history before it) say which files tend to change together: a
route and its client, a module and its type declarations, a handler and its template.
Commits touching many files (renames, formatting, releases) say nothing about a pair
and are skipped. Without a work tree (a snapshot, a copy) there is no history and
nothing is added. The pairs are computed once per root and tree, and kept in memory.
"""

from __future__ import annotations

import subprocess
import threading
from collections import Counter, defaultdict
from pathlib import Path

MAX_COMMITS = 2000  # the most recent commits read
MAX_FILES = 12  # a commit touching more files than this says nothing about a pair
MIN_TOGETHER = 2  # a pair must have changed together at least this often
MAX_PARTNERS = 5
TIMEOUT = 10.0
MAX_MEMO = 64  # trees whose pairs are kept in memory

Partners = dict[int, list[tuple[int, int]]]  # doc -> [(other doc, commits together)], most first
_MEMO: dict[tuple[str, str], Partners] = {}
_LOCK = threading.Lock()


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            encoding="utf-8",
            errors="replace",
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _is_work_tree_root(root: Path) -> bool:
    """Only a repository's own top level: a folder inside another project's work tree
    (a fixture, a temp copy) must not borrow that project's history."""
    if not (root / ".git").exists():
        return False
    top = _git(root, "rev-parse", "--show-toplevel")
    return top is not None and Path(top.strip()).resolve() == root.resolve()


def commit_files(root: Path) -> list[list[str]]:
    """The files of each of the last ``MAX_COMMITS`` non-merge commits up to HEAD, newest first."""
    out = _git(root, "log", "--no-merges", f"-n{MAX_COMMITS}", "--name-only", "--format=%x00", "HEAD")
    if not out:
        return []
    return [[line for line in chunk.splitlines() if line] for chunk in out.split("\0")[1:]]


def pair_counts(commits: list[list[str]], ids: dict[str, int]) -> Partners:
    """Partners of each file among ``ids`` from the commits' file lists."""
    together: Counter[tuple[int, int]] = Counter()
    for files in commits:
        docs = sorted({ids[f] for f in files if f in ids})
        if len(docs) < 2 or len(files) > MAX_FILES:
            continue
        together.update((a, b) for i, a in enumerate(docs) for b in docs[i + 1 :])
    partners: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for (a, b), n in together.items():
        if n >= MIN_TOGETHER:
            partners[a].append((b, n))
            partners[b].append((a, n))
    return {d: sorted(found, key=lambda t: (-t[1], t[0]))[:MAX_PARTNERS] for d, found in partners.items()}


def partners(root: Path, files: list[str], tree: str) -> Partners:
    """Co-change partners of the files of the tree at ``root`` (empty without a git work tree),
    read once per root and tree content (checking out another revision changes the tree)."""
    key = (str(root), tree)
    found = _MEMO.get(key)
    if found is not None:
        return found
    with _LOCK:
        if key not in _MEMO:
            if len(_MEMO) >= MAX_MEMO:
                del _MEMO[next(iter(_MEMO))]  # the oldest tree: a long-lived server sees many
            ids = {path: i for i, path in enumerate(files)}
            _MEMO[key] = pair_counts(commit_files(root), ids) if _is_work_tree_root(root) else {}
        return _MEMO[key]
