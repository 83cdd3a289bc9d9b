"""Indexing a repository: the import graph, mount prefixes, the disk cache and the in-process memo."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from workbench.errors import TargetError
from workbench.reference import index as index_module
from workbench.reference import parallel
from workbench.reference.index import build, load_index

from .conftest import write_tree

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
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "cache"
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(target))
    index_module._MEMO.clear()
    return target


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


def test_second_build_reads_the_cache_and_never_writes_into_the_repo(repo: Path, cache_dir: Path,
                                                                    monkeypatch: pytest.MonkeyPatch):
    before = sorted(p.relative_to(repo) for p in repo.rglob("*"))
    first = build(repo)
    assert any(cache_dir.iterdir())
    monkeypatch.setattr(index_module, "extract_all", lambda *args: pytest.fail("re-parsed an unchanged repo"))
    second = build(repo)
    assert second.files == first.files and second.imports == first.imports
    assert sorted(p.relative_to(repo) for p in repo.rglob("*")) == before


def test_an_edit_reparses_only_the_changed_file(repo: Path, monkeypatch: pytest.MonkeyPatch):
    build(repo)
    (repo / "app/db.py").write_text("session = None\nengine = None\n")
    seen: list[str] = []

    def spy(root, rels, sizes):
        seen.extend(rels)
        return parallel.extract_all(root, rels, sizes)
    monkeypatch.setattr(index_module, "extract_all", spy)
    ix = build(repo)
    assert seen == ["app/db.py"]
    assert ("engine", "variable", 2) in ix.facts[ix.files.index("app/db.py")].outline.symbols


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


def test_pool_and_serial_extraction_agree(repo: Path, monkeypatch: pytest.MonkeyPatch):
    rels = [rel for rel in FILES if not rel.startswith("ignored")]
    sizes = [len(FILES[rel]) for rel in rels]
    serial = parallel.extract_all(repo, rels, sizes)
    monkeypatch.setattr(parallel, "POOL_MIN_BYTES", 0)
    monkeypatch.setattr(parallel, "workers", lambda: 2)
    assert parallel.extract_all(repo, rels, sizes) == serial


def test_concurrent_loads_build_once(repo: Path, monkeypatch: pytest.MonkeyPatch):
    from concurrent.futures import ThreadPoolExecutor
    calls: list[int] = []

    def counting(root, rels, sizes):
        calls.append(len(rels))
        return parallel.extract_all(root, rels, sizes)
    monkeypatch.setattr(index_module, "extract_all", counting)
    with ThreadPoolExecutor(4) as pool:
        loaded = list(pool.map(lambda _: load_index(repo), range(8)))
    assert len(calls) == 1 and all(ix is loaded[0] for ix in loaded)
