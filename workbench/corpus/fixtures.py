"""Git-backed fixtures in a corpus: resolve a case's revision, validate it, record it.

A ``fixtureRoots`` entry may name a work tree, a bare repository or a ``.bundle``; a case
with ``"revision"`` runs against that commit's tree, materialized by ``snapshots``. A
case without one runs against the directory itself (a work tree, as before), or against
the snapshot of ``HEAD`` when the fixture has no work tree (a bare repository or a bundle).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import GitError
from .gitio import CatFile, resolve_commits
from .snapshots import materialize, tree_of
from .sources import GitRepo, is_git_source, open_repo

Finding = tuple[str, str, "str | None"]  # (location, message, case name): ``corpus.Problem``'s fields

REVISION_SECTIONS = ("retrieval", "tokenSavings")


def git_repo(path: Path) -> GitRepo:
    """The repository behind a fixture path (opened once per process; a caller asking for one that
    ``open_in_background`` is opening waits for it)."""
    with _OPENING:
        lock = _LOCKS.setdefault(path, threading.Lock())
    with lock:
        return _opened(path)


@lru_cache(maxsize=256)
def _opened(path: Path) -> GitRepo:
    return open_repo(path)


_OPENING = threading.Lock()
_LOCKS: dict[Path, threading.Lock] = {}  # fixture path -> held while it is being opened


def open_in_background(data: dict[str, Any], fixtures: dict[str, Path]) -> threading.Thread:
    """Start opening, on a thread, the bundle fixtures a case of ``data`` names: a bundle is cloned
    once (``sources.open_repo``), and that clone can run while the caller imports its suites and
    plans. The first ``git_repo`` of a bundle waits for it; an error is left for that call to raise.
    Join the thread before forking (a child must not inherit a lock it holds)."""
    named = {name for _, _, case in _cases(data) for name in _fixture_names(case)}
    bundles = [path for name, path in fixtures.items() if name in named and _is_bundle(path)]
    thread = threading.Thread(target=_open_quietly, args=(bundles,), name="workbench-fixtures", daemon=True)
    thread.start()
    return thread


def _is_bundle(path: Path) -> bool:
    return path.suffix == ".bundle" and path.is_file()


def _open_quietly(paths: Iterable[Path]) -> None:
    for path in paths:
        try:
            git_repo(path)
        except Exception:  # noqa: BLE001  (the run's own git_repo call raises it again, where it is reported)
            pass


def needs_git(path: Path, case: Any) -> bool:
    """Whether a case's files come from git objects: it has a revision, or the fixture has no work tree."""
    return (isinstance(case, dict) and bool(case.get("revision"))) or not path.is_dir()


def _revision(case: Any) -> str:
    revision = case.get("revision") if isinstance(case, dict) else None
    return str(revision or "HEAD")


def case_repo_dir(path: Path, case: Any) -> Path:
    """The directory a case runs against in the fixture at ``path``."""
    if not needs_git(path, case):
        return path
    return materialize(git_repo(path), _revision(case))


def case_tree(path: Path, case: Any) -> str | None:
    """The git tree a case's files come from (what names their content), or None when the case
    runs against the directory itself. Nothing is materialized."""
    return tree_of(git_repo(path), _revision(case)) if needs_git(path, case) else None


def _cases(data: dict[str, Any]) -> list[tuple[str, int, dict[str, Any]]]:
    found = []
    for section in REVISION_SECTIONS:
        listed = data.get(section)
        for index, case in enumerate(listed if isinstance(listed, list) else []):
            if isinstance(case, dict):
                found.append((section, index, case))
    return found


def _fixture_names(case: dict[str, Any]) -> list[str]:
    """``repoFixtures`` or ``[repoFixture]`` (as ``corpus.case_fixtures``, which imports this module)."""
    names = case.get("repoFixtures") or ([case["repoFixture"]] if case.get("repoFixture") else [])
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def revision_problems(data: dict[str, Any], fixtures: dict[str, Path]) -> list[Finding]:
    """Problems of cases whose files come from git: the revision must be a commit of a git fixture,
    and every expected file must exist at it. (Other cases are checked on disk by ``corpus``.)"""
    problems: list[Finding] = []
    checks: dict[str, list[tuple[str, str, str, dict[str, Any]]]] = {}  # fixture -> (where, rev, path, case)
    for section, index, case in _cases(data):
        names = [n for n in _fixture_names(case) if n in fixtures]
        where = f"{section}[{index}]"
        if case.get("revision") and len(_fixture_names(case)) != 1:
            problems.append((f"{where}.revision", "a revision needs exactly one repoFixture", case.get("name")))
            continue
        if not names or not needs_git(fixtures[names[0]], case):
            continue
        name = names[0]
        if not is_git_source(fixtures[name]):
            problems.append(
                (
                    f"{where}.revision",
                    f"fixture {name!r} is not a git repository (a work tree, bare repository or .bundle)",
                    case.get("name"),
                )
            )
            continue
        revision = str(case.get("revision") or "HEAD")
        for key in ("expectedPrimary", "expectedAnyOf"):
            listed = case.get(key)
            for item, path in enumerate(listed if isinstance(listed, list) else []):
                if isinstance(path, str):
                    checks.setdefault(name, []).append((f"{where}.{key}[{item}]", revision, path, case))
        checks.setdefault(name, []).append((f"{where}.revision", revision, "", case))
    for name, items in checks.items():
        problems += _check_fixture(name, fixtures[name], items)
    return problems


def _check_fixture(name: str, path: Path, items: list[tuple[str, str, str, dict[str, Any]]]) -> list[Finding]:
    try:
        repo = git_repo(path)
        commits = resolve_commits(repo.git_dir, [rev for _, rev, _, _ in items])
    except GitError as exc:
        return [(f"fixtureRoots.{name}", str(exc), None)]
    problems: list[Finding] = []
    with CatFile(repo.git_dir) as objects:
        for where, revision, rel, case in items:
            commit = commits.get(revision)
            if commit is None:
                if not rel:
                    problems.append(
                        (where, f"revision {revision!r} is not a commit of fixture {name!r}", case.get("name"))
                    )
                continue
            if rel:
                found = objects.read(f"{commit}:{rel}")
                if found is None or found[0] != "blob":
                    problems.append(
                        (where, f"{rel!r} does not exist at {revision[:12]} in fixture {name!r}", case.get("name"))
                    )
                elif tree_mode(objects, commit, rel) == LINK_MODE:
                    problems.append(
                        (
                            where,
                            f"{rel!r} is a symlink at {revision[:12]} in fixture {name!r}: " + _NEVER,
                            case.get("name"),
                        )
                    )
    return problems


LINK_MODE = b"120000"  # a symlink's mode in a git tree
_NEVER = "engines index files, never links, so no answer could ever return it"


def tree_mode(objects: CatFile, commit: str, rel: str) -> bytes | None:
    """The mode of ``rel``'s entry in its folder's tree at ``commit`` (``100644``, ``120000`` for a
    link), read through the open ``cat-file`` (no process per path), or None when it has none."""
    parent, _, base = rel.rpartition("/")
    tree = objects.read(f"{commit}:{parent}")
    if tree is None or tree[0] != "tree":
        return None
    data, width, at, wanted = tree[1], len(commit) // 2, 0, base.encode()  # binary ids: sha1 20, sha256 32
    while at < len(data):
        space = data.index(b" ", at)
        end = data.index(b"\0", space)
        if data[space + 1 : end] == wanted:
            return data[at:space]
        at = end + 1 + width
    return None


def missing_revisions(path: Path, revisions: list[str]) -> set[str]:
    """The ``revisions`` that are not commits of the fixture at ``path`` (all of them when it is not a
    git repository)."""
    if not is_git_source(path):
        return set(revisions)
    commits = resolve_commits(git_repo(path).git_dir, revisions)
    return {revision for revision in revisions if commits.get(revision) is None}


def corpus_revisions(data: dict[str, Any], fixtures: dict[str, Path]) -> dict[str, dict[str, str]]:
    """Per section, each revision-pinned case's full commit sha (for the run manifest), from a
    corpus's ``data`` and its resolved ``fixtures``."""
    wanted: dict[str, list[tuple[str, str, str]]] = {}
    for section, _, case in _cases(data):
        names = _fixture_names(case)
        if case.get("revision") and len(names) == 1 and names[0] in fixtures:
            wanted.setdefault(names[0], []).append((section, str(case.get("name")), str(case["revision"])))
    recorded: dict[str, dict[str, str]] = {}
    for name, items in wanted.items():
        commits = resolve_commits(git_repo(fixtures[name]).git_dir, [rev for _, _, rev in items])
        for section, case_name, revision in items:
            recorded.setdefault(section, {})[case_name] = commits.get(revision) or revision
    return recorded
