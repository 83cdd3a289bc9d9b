"""``git cat-file --batch`` read a group ahead (``CatFile.stream``): the same answers as ``read_many``."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.git_history import commit, init
from workbench.corpus import gitio
from workbench.corpus.gitio import CatFile


def _repo(tmp_path: Path) -> tuple[Path, list[str]]:
    repo = init(tmp_path / "r")
    files = {f"src/module_{index:03d}.py": f"value = {index}\n" * (index + 1) for index in range(60)}
    sha = commit(repo, "start", files, 0)
    return repo / ".git", [f"{sha}:{path}" for path in files]


def test_streamed_answers_are_read_manys_in_order_missing_ones_included(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git_dir, specs = _repo(tmp_path)
    specs = [*specs[:30], "HEAD:no/such/file.py", *specs[30:], "bad\nspec"]
    monkeypatch.setattr(gitio, "_GROUP_BYTES", 200)  # many groups, each asked before the last is read
    monkeypatch.setattr(gitio, "_FIRST_GROUP_BYTES", 50)  # the first ones smaller
    with CatFile(git_dir) as objects:
        expected = objects.read_many(specs)
    with CatFile(git_dir) as objects:
        streamed = list(objects.stream(iter(specs)))
        assert objects.read_many(specs[:2]) == expected[:2]  # the process answers in turn afterwards
    assert streamed == expected
    assert expected[30] is None and expected[-1] is None and expected[0] is not None
    assert expected[59] is not None and expected[59][2] == b"value = 58\n" * 59


def test_the_first_answer_waits_for_two_small_groups_of_specs(tmp_path: Path) -> None:
    """Specs may come slowly (mining's wait on each case's diff), so the first answers do not wait for
    two full groups: groups start small and double."""
    git_dir, specs = _repo(tmp_path)
    taken: list[str] = []

    def counted() -> Iterator[str]:
        for spec in specs * 20:  # 1,200 specs, about 60 KB: several full groups
            taken.append(spec)
            yield spec

    with CatFile(git_dir) as objects:
        answers = objects.stream(counted())
        first = next(answers)
        before_first = len(taken)
        rest = list(answers)
    assert first is not None and len(rest) == len(specs) * 20 - 1
    spec_bytes = len(specs[0]) + 1
    assert before_first * spec_bytes <= 3 * gitio._FIRST_GROUP_BYTES + 2 * spec_bytes < gitio._GROUP_BYTES


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="F_SETPIPE_SZ is Linux's")
def test_git_may_write_a_megabyte_of_answers_ahead(tmp_path: Path) -> None:
    import fcntl

    limit = int(Path("/proc/sys/fs/pipe-max-size").read_text())
    git_dir, _ = _repo(tmp_path)
    with CatFile(git_dir) as objects:
        size = fcntl.fcntl(objects._out.fileno(), fcntl.F_GETPIPE_SZ)
    assert size == gitio._PIPE_BYTES if limit >= gitio._PIPE_BYTES else size >= 4_096  # else left as it was


def test_closing_a_reader_stopped_midway_does_not_wait_on_git(tmp_path: Path) -> None:
    """An error between asking and reading (a missing gold file, Ctrl-C) closes the reader with
    megabytes of answers unread: git, blocked writing them, must still end."""
    import threading

    repo = init(tmp_path / "big")
    files = {f"data/part_{index:02d}.txt": f"row {index} " * 9_000 + "\n" for index in range(40)}
    sha = commit(repo, "start", files, 0)
    specs = [f"{sha}:{path}" for path in files] * 20  # three groups of specs, tens of megabytes asked
    objects = CatFile(repo / ".git")
    next(objects.stream(iter(specs)))
    closed = threading.Event()
    threading.Thread(target=lambda: (objects.close(), closed.set()), daemon=True).start()
    ended = closed.wait(20)
    if not ended:
        objects._process.kill()  # the failure must not leave git blocked behind the test
    assert ended and objects._process.returncode is not None
