"""The generated history shaped like a large scientific library's (``tests/library_history.py``, the
one ``bench/mining.py --part library`` times at 62,000 commits), and the reads that mining it at
speed rests on: the commits' diffs limited by file suffix, git cat-file asked ahead."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import pytest

from tests.git_history import git
from tests.library_history import library_history
from workbench.corpus.gitio import CatFile, git_bytes
from workbench.errors import GitError
from workbench.mining.gold_symbols import (
    PatchReader,
    commit_patches,
    excluded_folders,
    old_blob_ids,
    suffix_pathspecs,
)
from workbench.mining.mine import mine


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return library_history(tmp_path_factory.mktemp("lib") / "repo", 500, modules=40, seed=3)


def test_the_history_is_seeded_and_its_modules_parse(library: Path, tmp_path: Path) -> None:
    again = library_history(tmp_path / "again", 500, modules=40, seed=3)
    assert git(again, "rev-parse", "HEAD") == git(library, "rev-parse", "HEAD")
    listing = git(library, "ls-tree", "-r", "-l", "HEAD").splitlines()
    modules = [line.split() for line in listing if "/_" in line and line.endswith(".py") and "/tests/" not in line]
    assert len(modules) >= 30
    for _, _, blob, size, _ in modules:
        assert 1_500 < int(size) < 60_000
        ast.parse(git(library, "cat-file", "blob", blob))
    merges = git(library, "rev-list", "--merges", "--count", "HEAD")
    assert int(git(library, "rev-list", "--count", "HEAD")) == 500 and int(merges) > 50


def test_mining_it_drops_what_a_real_history_holds_and_finds_symbols(library: Path) -> None:
    result = mine(library, max_cases=60, seed=1, fixture="lib", progress=False)
    assert result.commits == 500 and len(result.cases) == 60
    # bots, docs and chores change no source here: the file filters, which come first, drop them
    for name in ("merge", "no-source", "too-many-files", "dependency", "release", "style-only"):
        assert result.dropped[name] > 0, name
    with_symbols = [c for c in result.cases if c.get("expectedSymbols")]
    assert len(with_symbols) > 50
    assert {c["shape"] for c in result.cases} >= {"names-symbol", "words-only"}


def test_diffs_limited_by_suffix_are_the_diffs_limited_by_path(library: Path) -> None:
    result = mine(library, max_cases=30, seed=2, fixture="lib", progress=False)
    pairs = [(c["source"]["commit"], c["revision"]) for c in result.cases]
    paths = [p for c in result.cases for p in c["expectedPrimary"]]
    assert suffix_pathspecs(paths) == ["*.py"]
    by_suffix = commit_patches(library / ".git", pairs, paths)
    feed = "".join(f"{commit} {parent}\n" for commit, parent in pairs).encode()
    changed = git_bytes(library / ".git", "diff-tree", "--stdin", "-r", "--name-only", input=feed).decode()
    others = {line for line in changed.splitlines() if "/" in line and line not in paths}
    assert excluded_folders(paths, others)  # the tests' folders hold no gold file
    reader = PatchReader(library / ".git", pairs, paths, others)
    reader.run()
    leaner = reader.upto(len(pairs))
    for commit, parent in pairs:
        own = [p for c in result.cases if c["source"]["commit"] == commit for p in c["expectedPrimary"]]
        args = ["diff-tree", "-p", "-U0", "--no-renames", "--src-prefix=a/", "--dst-prefix=b/", parent, commit]
        alone = git(library, *args, "--", *own)
        for path in own:
            assert _file_patch(alone, path) == _file_patch(by_suffix[commit], path) == _file_patch(leaner[commit], path)
        assert "/tests/" not in leaner[commit]


def test_folders_left_out_of_the_diffs_hold_no_gold_file() -> None:
    gold = ["pkg/linalg/norm.py", "pkg/core.py", "tools/run.py"]
    others = ["pkg/linalg/tests/test_norm.py", "pkg/linalg/tests/b.py", "pkg/linalgx/y.py", "docs/a/b.py", "setup.py"]
    others += ["pkg/linalg/other.py", "tools/x/y.py"]
    assert excluded_folders(gold, others) == ["docs", "pkg/linalg/tests", "pkg/linalgx", "tools/x"]
    assert excluded_folders(gold, others, most=1) == ["pkg/linalg/tests"]


def _file_patch(patch: str, path: str) -> str:
    """The hunks of a multi-file patch about ``path`` (from its ``--- a/path`` line on)."""
    start = patch.index(f"\n--- a/{path}\n")
    end = patch.find("\ndiff --git ", start)
    return patch[start : end if end >= 0 else len(patch)].rstrip("\n")


def test_pathspecs_fall_back_to_the_paths_when_a_suffix_cannot_be_a_glob() -> None:
    assert suffix_pathspecs(["a/b.py", "c.PY", "d/e.ts"]) == ["*.PY", "*.py", "*.ts"]
    assert suffix_pathspecs(["a/b.py", "Makefile"]) == ["Makefile", "a/b.py"]
    assert suffix_pathspecs(["a/b.p[y]", "c.py"]) == ["a/b.p[y]", "c.py"]


def test_cat_file_asked_ahead_answers_in_order(library: Path) -> None:
    shas = git(library, "rev-list", "HEAD").split()
    with CatFile(library / ".git") as objects:
        first = objects.ask(shas[:200])
        second = objects.ask([*shas[200:400], "missing\nspec", "0" * 40])
        got = objects.answers(first) + objects.answers(second)
    assert [g[0] if g else None for g in got] == [*shas[:400], None, None]
    assert all(g is not None and g[1] == "commit" for g in got[:400])


def _whole_output_patches(git_dir: Path, pairs: list[tuple[str, str]], paths: list[str]) -> dict[str, str]:
    """The patches as ``commit_patches`` cut them before they were read line by line (from all of
    git's output at once; limited by suffix as now)."""
    args = ["diff-tree", "--stdin", "-p", "-U0", "--full-index", "--no-renames", "--no-color", "--no-ext-diff"]
    args += ["--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", "--", *suffix_pathspecs(paths)]
    stdout = git_bytes(git_dir, *args, input="".join(f"{c} {p}\n" for c, p in pairs).encode())
    pending, out, current = {c for c, _ in pairs}, {}, None
    for line in stdout.decode("utf-8", "replace").split("\n"):
        if line in pending:
            pending.discard(line)
            current = out.setdefault(line, [])
        elif current is not None:
            current.append(line)
    return {commit: "\n".join(lines) for commit, lines in out.items()}


def test_patches_read_as_git_writes_them_are_the_whole_output_cut(library: Path) -> None:
    result = mine(library, max_cases=40, seed=4, fixture="lib", progress=False)
    pairs = [(c["source"]["commit"], c["revision"]) for c in result.cases]
    paths = [p for c in result.cases for p in c["expectedPrimary"]]
    expected = _whole_output_patches(library / ".git", pairs, paths)
    reader = PatchReader(library / ".git", pairs, paths)
    thread = threading.Thread(target=reader.run)
    thread.start()
    first = reader.upto(1, [pairs[0][0]])
    assert first == {pairs[0][0]: expected[pairs[0][0]]}
    assert reader.upto(len(pairs)) == expected
    thread.join()


def test_the_old_blob_a_patch_names_is_the_file_at_the_parent(library: Path) -> None:
    result = mine(library, max_cases=40, seed=4, fixture="lib", progress=False)
    pairs = [(c["source"]["commit"], c["revision"]) for c in result.cases]
    paths = [p for c in result.cases for p in c["expectedPrimary"]]
    patches = commit_patches(library / ".git", pairs, paths)
    named = 0
    for case in result.cases:
        ids = old_blob_ids(patches[case["source"]["commit"]])
        for path in case["expectedPrimary"]:
            assert ids[path] == git(library, "rev-parse", f"{case['revision']}:{path}").strip()
            named += 1
    assert named >= 40


def test_a_failing_diff_is_raised_where_its_patches_are_waited_for(library: Path) -> None:
    head = git(library, "rev-parse", "HEAD").strip()
    reader = PatchReader(library / ".git", [(head, "0" * 40)], ["a.py"])
    reader.run()
    with pytest.raises(GitError, match="diff-tree failed"):
        reader.upto(1)
