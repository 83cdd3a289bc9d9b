"""Revision-pinned fixtures: snapshots from git objects, cache reuse and pruning, validate, run, repo untouched."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from tests.git_history import commit, git, init, shop_history
from workbench.corpus import load_corpus, snapshots, validate_corpus
from workbench.corpus.sources import open_repo
from workbench.mining.mine import mine_corpus
from workbench.options import MineOptions


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(cache))
    return cache


def _state(repo: Path) -> dict[str, object]:
    """Everything mining and running must leave alone: files, refs, HEAD, index, worktrees, status."""
    files = {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in repo.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }
    git_dir = repo / ".git"
    return {
        "files": files,
        "refs": git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
        "head": (git_dir / "HEAD").read_text(),
        "index": (git_dir / "index").read_bytes(),
        "worktrees": git(repo, "worktree", "list", "--porcelain"),
        "status": git(repo, "status", "--porcelain", env={"GIT_OPTIONAL_LOCKS": "0"}),
    }


def test_materialize_reads_the_revision_and_reuses_the_cache(tmp_path: Path, own_cache: Path) -> None:
    repo = init(tmp_path / "r")
    first = commit(
        repo, "one", {"a.py": "x = 1\n", "pkg/b.py": "y = 2\n", "run.sh": "#!/bin/sh\n", "same.md": "s\n"}, 0
    )
    os.chmod(repo / "run.sh", 0o755)
    git(repo, "add", "run.sh")
    second = commit(repo, "two", {"a.py": "x = 3\n", "pkg/b.py": None, "c.py": "z = 1\n"}, 1)
    opened = open_repo(repo)
    old, new = snapshots.materialize(opened, first), snapshots.materialize(opened, second)
    assert snapshots.snapshot_files(old) == ["a.py", "pkg/b.py", "run.sh", "same.md"]
    assert (old / "a.py").read_text() == "x = 1\n" and (new / "a.py").read_text() == "x = 3\n"
    assert snapshots.snapshot_files(new) == ["a.py", "c.py", "run.sh", "same.md"]
    assert snapshots.is_read_only(old / "a.py") and snapshots.is_read_only(old / "pkg")
    assert os.access(new / "run.sh", os.X_OK) and not os.access(old / "run.sh", os.X_OK)  # mode 100755 at two only
    assert (old / "same.md").stat().st_ino == (new / "same.md").stat().st_ino  # one blob, linked into both
    assert snapshots.materialize(opened, first[:8]) == old  # same tree, same directory, nothing rebuilt
    assert old.parent == own_cache / "snapshots"


def test_close_readers_waits_for_git_and_a_later_snapshot_starts_another(tmp_path: Path) -> None:
    repo = init(tmp_path / "r")
    first = commit(repo, "one", {"a.py": "x = 1\n"}, 0)
    second = commit(repo, "two", {"a.py": "x = 2\n"}, 1)
    opened = open_repo(repo)
    snapshots.materialize(opened, first)
    git_process = snapshots._READERS[opened.git_dir]._process
    snapshots.close_readers()
    assert git_process.returncode == 0 and not snapshots._READERS  # ended and waited for: no zombie left
    assert (snapshots.materialize(opened, second) / "a.py").read_text() == "x = 2\n"
    snapshots.close_readers()


def test_prune_drops_least_recently_used_snapshots_and_orphan_blobs(tmp_path: Path) -> None:
    repo = init(tmp_path / "r")
    shas = [commit(repo, f"c{i}", {"a.py": f"x = {i}\n", "same.py": "s = 0\n"}, i) for i in range(3)]
    opened = open_repo(repo)
    made = [snapshots.materialize(opened, sha) for sha in shas]
    os.utime(made[0], (1, 1))
    abandoned = made[0].parent / ".0123456789ab-dead"  # a build whose process died an hour ago
    (abandoned / "sub").mkdir(parents=True)
    os.utime(abandoned, (1, 1))
    _as_a_later_process(made[0].parent)
    assert snapshots.prune(max_entries=2) == 1
    assert not abandoned.exists()
    assert not made[0].exists() and made[1].exists() and made[2].exists()
    blobs = sorted(p.name for p in (made[0].parent / ".blobs").iterdir())
    assert len(blobs) == 3  # x = 1, x = 2, and the shared same.py; x = 0 went with its snapshot


def _as_a_later_process(root: Path) -> None:
    """Forget what this process handed out, as a process started later would hold nothing."""
    snapshots.HANDED_OUT.clear()
    (root / snapshots.IN_USE / str(os.getpid())).unlink()


def _hold(opened: object, sha: str, ready: Connection, done: Connection) -> None:
    """In a forked process: hand out ``sha``'s snapshot, say so, and keep running until told."""
    snapshots.materialize(opened, sha)  # type: ignore[arg-type]
    ready.send(True)
    done.recv()
    snapshots.close_readers()


def test_a_snapshot_another_live_process_handed_out_is_never_pruned(tmp_path: Path) -> None:
    repo = init(tmp_path / "r")
    shas = [commit(repo, f"c{i}", {"a.py": f"x = {i}\n"}, i) for i in range(2)]
    opened = open_repo(repo)
    mine = snapshots.materialize(opened, shas[0])
    context = multiprocessing.get_context("fork")
    (ready, tell_ready), (wait_done, done) = context.Pipe(), context.Pipe()
    other = context.Process(target=_hold, args=(opened, shas[1], tell_ready, wait_done), daemon=True)
    other.start()
    try:
        assert ready.poll(30) and ready.recv()
        theirs = mine.parent / snapshots.tree_of(opened, shas[1])
        _as_a_later_process(mine.parent)
        os.utime(theirs, (1, 1))  # the oldest: pruned first were it not in use
        assert snapshots.prune(max_entries=0) == 1  # ours only: the live process's snapshot stays
        assert theirs.is_dir() and not mine.exists()
    finally:
        done.send(True)
        other.join(10)
        if other.is_alive():
            other.kill()
    assert snapshots.prune(max_entries=0) == 1 and not theirs.exists()  # its process ended: no longer in use
    assert not (mine.parent / snapshots.IN_USE / str(other.pid)).exists()  # its list went with it


def test_a_snapshot_is_read_from_a_cache_this_process_cannot_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = init(tmp_path / "r")
    sha = commit(repo, "one", {"a.py": "x = 1\n"}, 0)
    opened = open_repo(repo)
    made = snapshots.materialize(opened, sha)
    _as_a_later_process(made.parent)
    snapshots._TOUCHED.clear()
    real_open = os.open
    os.utime(made, (1, 1))  # the oldest, and listed by no process: pruned first where a lock can be taken

    def refused(path: object, *args: object, **kwargs: object) -> int:
        if str(path).endswith(snapshots.LOCK):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refused)
    assert (snapshots.materialize(opened, sha) / "a.py").read_text() == "x = 1\n"
    _as_a_later_process(made.parent)
    assert snapshots.prune(max_entries=0) == 0 and made.is_dir()  # no lock: nothing pruned there


def test_a_bundle_is_read_not_modified(tmp_path: Path) -> None:
    repo = init(tmp_path / "r")
    sha = commit(repo, "one", {"a.py": "x = 1\n"}, 0)
    bundle = tmp_path / "r.bundle"
    git(repo, "bundle", "create", str(bundle), "main")  # a branch only: the bundle carries no HEAD
    before = bundle.read_bytes()
    opened = open_repo(bundle)
    assert opened.kind == "bundle" and opened.name == "r"
    assert (snapshots.materialize(opened, sha) / "a.py").read_text() == "x = 1\n"
    assert snapshots.materialize(opened, "HEAD") == snapshots.materialize(opened, sha)  # HEAD: the bundle's tip
    assert bundle.read_bytes() == before


def test_validate_checks_revisions_and_expected_files_at_them(tmp_path: Path) -> None:
    repo = init(tmp_path / "r")
    first = commit(repo, "one", {"a.py": "x = 1\n"}, 0)
    commit(repo, "two", {"b.py": "y = 1\n"}, 1)
    corpus = tmp_path / "corpus.json"

    def case(name: str, revision: str, expected: list[str]) -> dict[str, object]:
        return {"name": name, "query": "q", "repoFixture": "r", "revision": revision, "expectedPrimary": expected}

    corpus.write_text(
        json.dumps(
            {
                "fixtureRoots": {"r": str(repo)},
                "retrieval": [
                    case("ok", first, ["a.py"]),
                    case("later-file", first, ["b.py"]),
                    case("no-such", "f" * 40, ["a.py"]),
                ],
            }
        )
    )
    problems = [str(p) for p in validate_corpus(corpus)]
    assert problems == [
        f"retrieval[1].expectedPrimary[0]: 'b.py' does not exist at {first[:12]} in fixture 'r' (case 'later-file')",
        f"retrieval[2].revision: revision '{'f' * 40}' is not a commit of fixture 'r' (case 'no-such')",
    ]


@pytest.mark.slow
def test_mine_then_run_leaves_the_repository_untouched(tmp_path: Path) -> None:
    repo = tmp_path / "shop"
    shas = shop_history(repo)
    (repo / "scratch.txt").write_text("uncommitted\n")  # a dirty work tree stays dirty, as it was
    (repo / "src" / "users.py").write_text("edited but not staged\n")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt2"), shas["task"])
    before = _state(repo)
    out = tmp_path / "mined" / "corpus.json"
    mine_corpus(repo, MineOptions(out=out, progress=False, max_cases=None))
    assert validate_corpus(out) == []
    corpus = load_corpus(out)
    case = next(c for c in corpus.cases("retrieval") if c["source"]["commit"] == shas["symbol"])
    assert (corpus.repo_dir("shop", case) / "src" / "users.py").read_text() == "def find_user(name):\n    return name\n"
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "workbench"),
            "run",
            "--corpus",
            str(out),
            "--target",
            "bm25",
            "--target",
            "random",
            "--out",
            str(tmp_path / "runs"),
            "--json",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["suites"]["retrieval"]["bm25"]["cases"] == 3
    manifest = json.loads((Path(summary["run_dir"]) / "manifest.json").read_text())
    assert manifest["revisions"]["retrieval"][case["name"]] == case["revision"]
    assert _state(repo) == before


def test_a_snapshot_used_again_keeps_its_index_loaded(tmp_path, monkeypatch) -> None:
    """Each case of a revision materializes it again: that must not change the snapshot's stats,
    or every case would rebuild the engine's index of it (seen at scale: one build per case)."""
    import subprocess

    from workbench.corpus.snapshots import materialize
    from workbench.corpus.sources import open_repo
    from workbench.reference import index as index_module

    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "a.ts").write_text("export const a = 1;\n")
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    opened = open_repo(repo)
    first = index_module.load_index(materialize(opened, "HEAD"))
    assert index_module.load_index(materialize(opened, "HEAD")) is first


def test_a_loaded_snapshot_index_is_not_checked_for_edits_but_a_work_tree_is(tmp_path, monkeypatch) -> None:
    """A snapshot is named by its tree and never changes: once loaded its index is used without
    a stat per file (the per-query cost on a mined corpus). A work tree is still checked."""
    from workbench.corpus.snapshots import materialize
    from workbench.reference import index as index_module

    repo = init(tmp_path / "repo")
    commit(repo, "one", {"src/a.ts": "export const a = 1;\n"}, 0)
    root = materialize(open_repo(repo), "HEAD")
    loaded = index_module.load_index(root)
    stats = []
    real = index_module.snapshot
    monkeypatch.setattr(index_module, "snapshot", lambda paths: stats.append(paths) or real(paths))
    assert index_module.load_index(root) is loaded and stats == []
    work = index_module.load_index(repo)
    assert index_module.load_index(repo) is work
    entry = index_module._MEMO.get(str(repo.resolve()))
    assert entry is not None and (entry.watch is not None or stats), "a work tree is watched, else stat'ed"
    (repo / "src" / "b.ts").write_text("export const b = 2;\n")
    assert "src/b.ts" in index_module.load_index(repo).files, "an edit to a work tree is seen"


def test_a_snapshots_file_list_is_walked_once_a_work_trees_every_time(tmp_path: Path, monkeypatch) -> None:
    from workbench.code import walk

    repo = init(tmp_path / "r")
    first = commit(repo, "one", {"a.py": "x = 1\n", "pkg/b.py": "y = 2\n"}, 0)
    snap = snapshots.materialize(open_repo(repo), first)
    walks: list[Path] = []
    real = walk._walk
    monkeypatch.setattr(walk, "_walk", lambda root, *a, **k: walks.append(root) or real(root, *a, **k))
    lists = [walk.list_files(snap), walk.list_files(snap), walk.list_files(repo), walk.list_files(repo)]
    assert lists[0] == lists[1] == lists[2] == lists[3] == ["a.py", "pkg/b.py"]
    lists[0].append("mutated.py")  # a caller's copy: the kept list is not changed
    assert walk.list_files(snap) == ["a.py", "pkg/b.py"]
    assert walks.count(snap) == 1 and len(walks) == 3  # the work tree is walked each time: it may change
