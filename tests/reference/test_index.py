"""Indexing a repository: the import graph, mount prefixes, the disk cache and the in-process memo."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.errors import TargetError
from workbench.reference import cache, parallel
from workbench.reference import index as index_module
from workbench.reference.index import build, load_index

from ..conftest import write_tree

FILES = {
    "app/__init__.py": "",
    "app/services/__init__.py": "",
    "app/services/users_service.py": "from ..models.user import User\nfrom app.db import session\n",
    "app/models/user.py": "class User: ...\n",
    "app/db.py": "session = None\n",
    "web/tsconfig.json": '{ // comment\n "compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"],}}}\n',
    "web/src/api/orders.ts": "import { http } from '../http.js';\nexport const list = () => http.get('/orders');\n",
    "web/src/http.ts": "export const http = { get: (p: string) => fetch(p) };\n",
    "web/src/pages/Orders.tsx": "import { list } from '@/api/orders';\nimport { X } from './missing';\n",
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "cmd/shop/main.go": 'package main\nimport "example.com/shop/internal/cart"\nfunc main() { cart.New() }\n',
    "internal/cart/cart.go": "package cart\nfunc New() {}\n",
    "internal/cart/cart_test.go": "package cart\n",
    "server/app.js": "const notes = require('./routes/notes');\napp.use('/notes', notes);\n",
    "server/routes/notes.js": "router.delete('/:id', remove);\nmodule.exports = router;\n",
    ".gitignore": "ignored/\n",
    "ignored/secret.py": "x = 1\n",
}


@pytest.fixture(autouse=True)
def cache_dir(fresh_cache: Path) -> Path:
    return fresh_cache


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "repo", FILES)


def _edges(ix, rel: str) -> set[str]:
    return {ix.files[j] for j in ix.imports[ix.files.index(rel)]}


def test_import_graph_across_languages(repo: Path):
    ix = build(repo)
    assert "ignored/secret.py" not in ix.files
    assert _edges(ix, "app/services/users_service.py") == {"app/models/user.py", "app/db.py"}
    assert _edges(ix, "web/src/api/orders.ts") == {"web/src/http.ts"}  # './http.js' names http.ts
    assert _edges(ix, "cmd/shop/main.go") == {"internal/cart/cart.go"}  # test files are not the package
    assert _edges(ix, "server/app.js") == {"server/routes/notes.js"}
    user = ix.files.index("app/models/user.py")
    assert {ix.files[j] for j in ix.importers[user]} == {"app/services/users_service.py"}


def test_tsconfig_paths_resolve_from_nested_configs(tmp_path: Path):
    root = tmp_path / "web"
    for rel in ("tsconfig.json", "src/api/orders.ts", "src/pages/Orders.tsx"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(FILES["web/" + rel])
    ix = build(root)
    assert _edges(ix, "src/pages/Orders.tsx") == {"src/api/orders.ts"}


def test_mount_prefix_reaches_the_mounted_router(repo: Path):
    ix = build(repo)
    notes = ix.files.index("server/routes/notes.js")
    assert [r.segments for d, r in ix.routes if d == notes] == [("notes", ":")]


def test_second_build_reads_the_cache_and_never_writes_into_the_repo(
    repo: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
):
    before = sorted(p.relative_to(repo) for p in repo.rglob("*"))
    first = build(repo)
    assert any(cache_dir.iterdir())
    monkeypatch.setattr(index_module, "extract_batches", lambda *args: pytest.fail("re-parsed an unchanged repo"))
    second = build(repo)
    assert second.files == first.files and second.imports == first.imports
    assert sorted(p.relative_to(repo) for p in repo.rglob("*")) == before


def test_an_edit_reparses_only_the_changed_file(repo: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch):
    build(repo)
    (repo / "app/db.py").write_text("session = None\nengine = None\n")
    seen: list[str] = []

    def spy(root, rels, sizes):
        seen.extend(rels)
        return parallel.extract_batches(root, rels, sizes)

    monkeypatch.setattr(index_module, "extract_batches", spy)
    ix = build(repo)
    assert seen == ["app/db.py"]
    assert ("engine", "variable", 2) in ix.facts[ix.files.index("app/db.py")].outline.symbols
    assert len(_entries(cache_dir, "index")) == 1  # the tree before the edit is dropped
    assert build(repo).facts == ix.facts and seen == ["app/db.py"]  # facts and index reload as saved


def test_memo_is_reused_until_a_file_changes(repo: Path):
    first = load_index(repo)
    assert load_index(repo) is first
    target = repo / "app/db.py"
    target.write_text("changed = True\n")
    os.utime(target, ns=(1, 1))  # a different mtime even on coarse-clock filesystems
    assert load_index(repo) is not first


def test_missing_repository_is_a_target_error(tmp_path: Path):
    with pytest.raises(TargetError, match="not found"):
        load_index(tmp_path / "nope")


def test_concurrent_loads_build_once(repo: Path, monkeypatch: pytest.MonkeyPatch):
    from concurrent.futures import ThreadPoolExecutor

    calls: list[int] = []

    def counting(root, rels, sizes):
        calls.append(len(rels))
        return parallel.extract_batches(root, rels, sizes)

    monkeypatch.setattr(index_module, "extract_batches", counting)
    with ThreadPoolExecutor(4) as pool:
        loaded = list(pool.map(lambda _: load_index(repo), range(8)))
    assert len(calls) == 1 and all(ix is loaded[0] for ix in loaded)


# Run in a fresh interpreter: threads other tests leave behind (tqdm's monitor, pipe pumps)
# rightly make extract_all parse serially, and this must exercise the worker pool.
_POOL_CHECK = """
import json, os, sys
from pathlib import Path
from workbench.code import pychunks
from workbench.reference import parallel
root, rels = Path(sys.argv[1]), sys.argv[2:]
sizes = [(root / rel).stat().st_size for rel in rels]
serial = parallel.extract_all(root, rels, sizes)
parallel.POOL_MIN_BYTES, parallel.workers = 0, lambda: 2
pool_used = parallel._pool_pays(sizes)
real_whole = parallel.parse_whole

def marking_whole():  # in a worker: parses whole from now on (its groups would die with it)
    real_whole()
    (root.parent / f"whole-{os.getpid()}").touch()
parallel.parse_whole = marking_whole
pooled = parallel.extract_all(root, rels, sizes)
workers_whole = len(list(root.parent.glob("whole-*"))) >= 1 and pychunks._GROUPED[0]  # this process still groups
parent, real = os.getpid(), parallel._read_and_extract

def crash_in_workers(root, rels):
    if os.getpid() != parent:
        os._exit(1)
    return real(root, rels)
parallel._read_and_extract = crash_in_workers
print(json.dumps([pool_used, workers_whole, pooled == serial, parallel.extract_all(root, rels, sizes) == serial]))
"""


def test_worker_pool_agrees_with_serial_parsing_and_survives_a_crashed_worker(repo: Path):
    rels = [rel for rel in FILES if not rel.startswith("ignored")]
    out = subprocess.run(
        [sys.executable, "-c", _POOL_CHECK, str(repo), *rels],
        cwd=Path(__file__).parents[2],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [True, True, True, True]  # pool, workers whole; same facts; crash -> here


def _entries(cache_dir: Path, part: str) -> list[Path]:
    return sorted(cache_dir.glob(f"*.{part}{cache.SUFFIX}"))


def test_a_copy_of_a_tree_reuses_its_index_entry(repo: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch):
    build(repo)
    copy = shutil.copytree(repo, repo.parent / "copy")
    monkeypatch.setattr(index_module, "extract_batches", lambda *args: pytest.fail("re-parsed an identical copy"))
    ix = build(copy)
    assert ix.root == copy and len(_entries(cache_dir, "index")) == 1


def test_prune_drops_entries_of_deleted_roots_and_old_formats(repo: Path, cache_dir: Path):
    copy = shutil.copytree(repo, repo.parent / "copy")
    (copy / "app/db.py").write_text("engine = None\n")
    build(repo)
    build(copy)
    assert len(_entries(cache_dir, "tree")) == 2  # per repository: the tree its index was built from
    shutil.rmtree(copy)
    (cache_dir / f"{'0' * 24}-1.facts.pkl").write_bytes(b"format 1")
    (cache_dir / f"{'2' * 24}-1.facts.pickle").write_bytes(b"\x80\x05format 2: an unsealed pickle")
    abandoned = cache_dir / f"{'1' * 24}-1.index.pickle9x_k2j3a.tmp"  # as mkstemp names them
    abandoned.write_bytes(b"")
    os.utime(abandoned, (0, 0))
    (cache_dir / "notes.txt").write_text("not ours")
    assert cache.prune() == 4  # the copy's tree, the two old formats, the abandoned temp file
    assert [cache._owner(str(p)) for p in _entries(cache_dir, "tree")] == [str(repo.resolve())]
    assert len(_entries(cache_dir, "index")) == 2 and (cache_dir / "notes.txt").exists()


def test_prune_keeps_the_most_recently_used_entries(tmp_path: Path, cache_dir: Path):
    for i in range(4):
        cache.save_shared(f"tree {i}", "index", "v", list(range(1000)), tmp_path / "repo")
        os.utime(cache._path(cache._key(f"tree {i}"), "index", "v"), (1000 + i, 1000 + i))
    assert cache.load_shared("tree 0", "index", "v") is not None  # used: now the most recent
    assert cache.prune(max_entries=2) == 2
    assert cache.load_shared("tree 0", "index", "v") is not None
    assert cache.load_shared("tree 3", "index", "v") is not None
    assert cache.load_shared("tree 1", "index", "v") is None
    assert cache.prune(max_bytes=1) == 1 and len(_entries(cache_dir, "index")) == 1


def test_no_cache_entry_is_written_inside_the_indexed_repo(repo: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(repo / "cache"))
    build(repo)
    assert not (repo / "cache").exists()


def test_loaded_indexes_are_bounded(tmp_path, monkeypatch) -> None:
    """A run over many snapshots keeps only the most recently used indexes in memory."""
    from workbench.reference.memo import BoundedMemo

    monkeypatch.setenv("WORKBENCH_LOADED_INDEXES", "2")
    memo: BoundedMemo[int] = BoundedMemo()
    for i in range(5):
        memo[f"r{i}"] = i
    assert len(memo) == 2 and memo.get("r4") == 4 and memo.get("r0") is None
    memo.get("r3")
    memo["r5"] = 5  # r3 was used last, r4 is dropped
    assert memo.get("r3") == 3 and memo.get("r4") is None
    index_module._MEMO.clear()
    for i in range(3):
        root = tmp_path / f"snap{i}"
        (root / "src").mkdir(parents=True)
        (root / "src" / "a.ts").write_text(f"export const a{i} = {i};\n")
        index_module.load_index(root)
    assert len(index_module._MEMO) == 2
