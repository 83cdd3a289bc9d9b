"""Co-change: with git history, files that changed together are neighbours; without it, nothing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from workbench.contract import Repo
from workbench.reference import build_pack
from workbench.reference.cochange import MAX_FILES, pair_counts


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), *args],
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
            "PATH": "/usr/bin:/bin",
            "HOME": str(root),
        },
    )


def _commit(root: Path, files: dict[str, str], message: str) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", message)


def _history(root: Path) -> None:
    _git(root, "init", "-q")
    _commit(
        root,
        {
            "src/quota.py": "def quota_limit(user):\n    return 10\n",
            "src/shapes.pyi": "X: int\n",
            "src/other.py": "def other():\n    return 0\n",
        },
        "start",
    )
    for i in range(2):
        _commit(
            root,
            {
                "src/quota.py": f"def quota_limit(user):\n    return {11 + i}\n",
                "src/shapes.pyi": f"X: int\nY{i}: int\n",
            },
            f"change {i}",
        )


def test_pairs_need_two_commits_and_skip_bulk_commits():
    ids = {"a": 0, "b": 1, "c": 2}
    bulk = ["a", "c"] + [f"f{i}" for i in range(MAX_FILES)]
    assert pair_counts([["a", "b"], ["a", "b", "x"], ["a", "c"], bulk, bulk], ids) == {0: [(1, 2)], 1: [(0, 2)]}


def test_a_file_that_changed_with_the_match_joins_the_pack(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    _history(root)
    pack = build_pack("raise the quota limit", [Repo("repo", str(root))])
    reasons = {ref.path: ref.reason for ref in [*pack.primary, *pack.related]}
    assert pack.primary[0].path == "src/quota.py"
    assert reasons.get("src/shapes.pyi") == "changed together with src/quota.py in 3 earlier commits"


def test_without_a_work_tree_there_is_no_history(tmp_path: Path):
    root = tmp_path / "repo"
    root.mkdir()
    _history(root)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".git"))
    inner = root / "vendored"
    shutil.copytree(copy, inner)  # a folder inside someone else's work tree borrows no history
    for where in (copy, inner):
        pack = build_pack("raise the quota limit", [Repo("repo", str(where))])
        reasons = [ref.reason for ref in [*pack.primary, *pack.related]]
        assert not any("changed together" in reason for reason in reasons)
