"""Facts by content across revisions and repositories (issue 40 item 1): a new tree parses only the
blobs never seen, from any root, in any process; the store is bounded and keys what the path adds."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from workbench import paths
from workbench.reference import blobstore, parallel
from workbench.reference import index as index_module
from workbench.reference.extract import facts_key
from workbench.reference.index import build

from ..conftest import write_tree

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def run(x):\n    return helper(x)\n\ndef helper(x):\n    return x\n",
    "pkg/cli.py": "from .core import run\n\ndef main():\n    run(1)\n",
    "README.md": "core cli\n",
}


@pytest.fixture(autouse=True)
def cache_dir(fresh_cache: Path) -> Path:
    return fresh_cache


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []

    def spy(root, rels, sizes):
        seen.extend(rels)
        return parallel.extract_batches(root, rels, sizes)

    monkeypatch.setattr(index_module, "extract_batches", spy)
    return seen


def test_a_new_revision_elsewhere_parses_only_its_new_blob(tmp_path: Path, monkeypatch) -> None:
    first = build(write_tree(tmp_path / "rev1", FILES))
    seen = _spy(monkeypatch)
    changed = dict(FILES, **{"pkg/cli.py": FILES["pkg/cli.py"] + "\ndef extra():\n    pass\n"})
    index_module.FACTS.forget()  # from the store on disk, as another process would read it
    second = build(write_tree(tmp_path / "rev2", changed))
    assert seen == ["pkg/cli.py"]
    assert (
        second.tree != first.tree
        and ("extra", "function", 6) in second.facts[second.files.index("pkg/cli.py")].outline.symbols
    )
    fresh = build(write_tree(tmp_path / "cold", changed))  # same tree: the shared index entry
    assert fresh.imports == second.imports and fresh.facts == second.facts


def test_facts_from_the_store_equal_a_cold_parse(tmp_path: Path, monkeypatch) -> None:
    warm_root = write_tree(tmp_path / "a", FILES)
    build(warm_root)
    renamed = {("other/" + k if k.endswith(".md") else k): v for k, v in FILES.items()}
    shutil.rmtree(tmp_path / "cache")
    paths._CHOSEN.clear()
    blobstore.close()
    index_module.FACTS.forget()
    cold = build(write_tree(tmp_path / "cold", renamed))
    index_module.FACTS.forget()
    blobstore.close()
    build(write_tree(tmp_path / "b", FILES))
    warm = build(write_tree(tmp_path / "c", renamed))
    assert warm.files == cold.files and warm.facts == cold.facts and warm.imports == cold.imports


def test_the_key_holds_what_the_path_adds() -> None:
    digest = "0" * 32
    assert facts_key("src/a.json", digest) != facts_key("locales/en.json", digest)  # a catalog is parsed apart
    assert facts_key("pages/api/users.ts", digest) != facts_key("pages/api/orders.ts", digest)  # a page's route
    assert facts_key("src/a.py", digest) == facts_key("lib/a.py", digest)  # moved code shares its facts


def test_the_store_prunes_least_recently_used_rows(tmp_path: Path) -> None:
    part: blobstore.Part[bytes] = blobstore.Part("test", "v", memory=1)
    for i in range(4):
        part.put_many({f"k{i}": bytes(1000)}, tmp_path / "repo")
    db = blobstore._connection()
    assert db is not None
    with db:
        db.executemany("UPDATE blobs SET used = ? WHERE key = ?", [(i, f"k{i}") for i in range(4)])
    assert blobstore.prune(max_bytes=2500) == 2
    part.forget()
    assert sorted(part.get_many([f"k{i}" for i in range(4)])) == ["k2", "k3"]


def test_no_store_is_written_inside_the_indexed_tree(tmp_path: Path, monkeypatch) -> None:
    root = write_tree(tmp_path / "repo", FILES)
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(root / "cache"))
    paths._CHOSEN.clear()
    blobstore.close()
    build(root)
    assert not (root / "cache").exists()


def test_values_stored_as_pickles_are_held_and_read_back_without_the_store(tmp_path: Path, monkeypatch) -> None:
    """``put_pickled`` holds the pickles too: the next read unpickles them in memory, the values equal
    to the store's; a damaged one is a miss there, read from the store instead."""
    part: blobstore.Part[list[tuple[dict[str, int], int]]] = blobstore.Part("held-pickles", "1")
    values = {"a": [({"run": 2}, 3)], "b": [({"helper": 1}, 1)]}
    part.put_pickled({k: pickle.dumps(v) for k, v in values.items()}, tmp_path / "tree")
    stored = blobstore._load
    monkeypatch.setattr(blobstore, "_load", lambda *args: pytest.fail("read from the store"))
    assert part.get_many(["a", "b"]) == values
    part.put_pickled({"c": b"not a pickle"}, tmp_path / "tree")
    monkeypatch.setattr(blobstore, "_load", stored)
    assert part.get_many(["a", "c"]) == {"a": values["a"]}  # the store holds the same bad bytes
    part.forget()
    assert part.get_many(["a", "b"]) == values  # from the store, as another process reads them


def test_a_store_an_older_version_made_without_rowids_is_read_and_written_alike(
    tmp_path: Path, cache_dir: Path
) -> None:
    """New stores are rowid tables (half the insert CPU); a store whose table is WITHOUT ROWID (as
    earlier versions made it) keeps working: its rows read, new rows written, pruned alike."""
    import sqlite3

    path = blobstore.store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    old = sqlite3.connect(path)
    old.execute(blobstore._SCHEMA.rstrip().removesuffix(")") + ") WITHOUT ROWID")
    old.commit()
    old.close()
    part: blobstore.Part[list[int]] = blobstore.Part("test", "v1")
    part.put_many({"a": [1, 2]}, tmp_path / "src")
    part.forget()
    blobstore.close()
    assert part.get_many(["a", "b"]) == {"a": [1, 2]}
    schema = sqlite3.connect(path).execute("SELECT sql FROM sqlite_master WHERE name = 'blobs'").fetchone()[0]
    assert "WITHOUT ROWID" in schema
    assert blobstore.prune(max_bytes=0) == 1


def test_a_new_store_is_a_rowid_table(tmp_path: Path, cache_dir: Path) -> None:
    import sqlite3

    part: blobstore.Part[list[int]] = blobstore.Part("test", "v1")
    part.put_many({"a": [1]}, tmp_path / "src")
    schema = sqlite3.connect(blobstore.store_path()).execute("SELECT sql FROM sqlite_master").fetchone()[0]
    assert "PRIMARY KEY (part, key)" in schema and "WITHOUT ROWID" not in schema
