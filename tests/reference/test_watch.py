"""Freshness of a loaded index: every kind of edit is seen at the next query, with inotify and with
the stat fallback, and watches are released with the indexes that held them."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from workbench.reference import index as index_module
from workbench.reference import watch as watching
from workbench.reference.index import load_index
from workbench.reference.memo import BoundedMemo

from ..conftest import write_tree

FILES = {"pkg/__init__.py": "", "pkg/orders.py": "def cancel_order(order):\n    return order\n", "main.py": "x = 1\n"}


@pytest.fixture(params=["inotify", "stat"])
def mode(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    if request.param == "stat":
        monkeypatch.setenv("WORKBENCH_WATCH", "0")
    elif watching.watch(str(tmp_path)) is None:
        pytest.skip("inotify is not available here")
    index_module._MEMO.clear()
    yield request.param
    index_module._MEMO.clear()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "repo", FILES)


def _symbols(root: Path, rel: str) -> list[str]:
    index = load_index(root)
    return [name for name, _, _ in index.facts[index.files.index(rel)].outline.symbols]


def test_the_check_is_the_one_asked_for(repo: Path, mode: str):
    load_index(repo)
    loaded = index_module._MEMO.get(str(repo.resolve()))
    assert loaded is not None and (loaded.watch is not None) == (mode == "inotify")
    assert bool(loaded.paths) == (mode == "stat")


def test_an_unchanged_tree_is_not_rebuilt_even_after_it_is_read(repo: Path, mode: str):
    first = load_index(repo)
    for path in repo.rglob("*.py"):
        path.read_bytes()
    assert load_index(repo) is first


CHANGES = {  # name: (the change, a file it concerns, whether that file is indexed afterwards)
    "edit": (
        lambda r: (r / "pkg/orders.py").write_text("def refund_order(order, amount):\n    pass\n"),
        "pkg/orders.py",
        True,
    ),
    "new file": (lambda r: (r / "pkg/refunds.py").write_text("def refund(x):\n    return x\n"), "pkg/refunds.py", True),
    "deleted file": (lambda r: (r / "main.py").unlink(), "main.py", False),
    "rename": (lambda r: (r / "pkg/orders.py").rename(r / "pkg/cancel.py"), "pkg/cancel.py", True),
    "new subdirectory": (
        lambda r: write_tree(r / "pkg/sub", {"deep.py": "def deep():\n    pass\n"}),
        "pkg/sub/deep.py",
        True,
    ),
}


@pytest.mark.parametrize("name", list(CHANGES))
def test_a_change_is_seen_at_the_next_query(repo: Path, mode: str, name: str):
    change, file, indexed = CHANGES[name]
    first = load_index(repo)
    change(repo)
    second = load_index(repo)
    assert second is not first and (file in second.files) == indexed
    if name == "edit":
        assert _symbols(repo, file) == ["refund_order"]


def test_an_edit_made_while_the_index_is_built_is_seen_at_the_next_query(
    repo: Path, mode: str, monkeypatch: pytest.MonkeyPatch
):
    real = index_module.build

    def build_then_edit(root: Path) -> index_module.RepoIndex:
        built = real(root)
        if not (root / "pkg/late.py").exists():  # the tree was read; then an agent writes to it
            (root / "pkg/orders.py").write_text("def late_edit(order):\n    return order\n")
            (root / "pkg/late.py").write_text("LATE = 1\n")
        return built

    monkeypatch.setattr(index_module, "build", build_then_edit)
    first = load_index(repo)
    assert "pkg/late.py" not in first.files
    assert "pkg/late.py" in load_index(repo).files
    assert _symbols(repo, "pkg/orders.py") == ["late_edit"]


def test_a_tree_put_in_place_of_the_root_is_indexed_anew(repo: Path, mode: str, tmp_path: Path):
    first = load_index(repo)
    repo.rename(tmp_path / "moved")
    write_tree(repo, {"other.py": "y = 2\n"})
    assert load_index(repo).files == ["other.py"] and load_index(tmp_path / "moved").files == first.files


def test_a_root_named_through_a_link_follows_the_link(tmp_path: Path, mode: str):
    first = write_tree(tmp_path / "first", FILES)
    second = write_tree(tmp_path / "second", {"other.py": "y = 2\n"})
    link = tmp_path / "current"
    link.symlink_to(first)
    assert load_index(link) is load_index(first)
    link.unlink()
    link.symlink_to(second)
    assert load_index(link).files == ["other.py"]


def test_a_directory_that_cannot_be_watched_falls_back_to_stat(repo: Path, mode: str, monkeypatch: pytest.MonkeyPatch):
    if mode != "inotify":
        pytest.skip("only inotify has a watch to refuse")
    real = watching._Instance.add
    monkeypatch.setattr(
        watching._Instance, "add", lambda self, w, path: -1 if path.endswith("pkg") else real(self, w, path)
    )
    first = load_index(repo)
    loaded = index_module._MEMO.get(str(repo.resolve()))
    assert loaded is not None and loaded.watch is None and loaded.paths
    (repo / "pkg/extra.py").write_text("z = 3\n")
    assert load_index(repo) is not first


def test_skipped_directories_appearing_do_not_invalidate(repo: Path, mode: str):
    if mode != "inotify":
        pytest.skip("a new directory changes its parent's mtime: the stat check rebuilds")
    first = load_index(repo)
    (repo / "pkg/__pycache__").mkdir()
    (repo / "pkg/__pycache__/orders.cpython-311.pyc").write_bytes(b"\0")
    assert load_index(repo) is first


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors in /proc")
def test_watches_leave_with_their_indexes_and_no_descriptor_leaks(
    tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("WORKBENCH_LOADED_INDEXES", "3")
    load_index(write_tree(tmp_path / "warmup", FILES))  # the process's one inotify descriptor, if any
    before = _open_fds()
    for i in range(12):
        root = write_tree(tmp_path / f"r{i}", FILES)
        load_index(root)
        load_index(root)
    assert _open_fds() <= before and len(index_module._MEMO) == 3
    if mode == "inotify":
        assert watching._INSTANCE is not None
        assert len(watching._INSTANCE.owners) == 3 * 2  # three trees of two directories each
    index_module._MEMO.clear()
    if mode == "inotify":
        assert watching._INSTANCE is not None and not watching._INSTANCE.owners


def test_a_queue_overflow_marks_every_tree_changed(tmp_path: Path):
    instance = watching._instance()
    if instance is None or not watching.enabled():
        pytest.skip("inotify is not available here")
    watches = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        w = watching.Watch(instance)
        w.add(str(tmp_path / name))
        watches.append(w)
    assert not any(w.changed() for w in watches)
    instance._dispatch(struct.pack("iIII", -1, watching.IN_Q_OVERFLOW, 0, 0))
    assert all(w.changed() for w in watches)
    for w in watches:
        w.close()


def test_memo_hands_every_dropped_value_to_on_drop():
    dropped: list[int] = []
    memo: BoundedMemo[int] = BoundedMemo(limit=2, on_drop=dropped.append)
    for i in range(4):
        memo[f"k{i}"] = i
    memo["k3"] = 30  # replaced
    memo["k3"] = 30  # the same value again: nothing leaves
    memo.clear()
    assert dropped == [0, 1, 3, 2, 30]
