"""Shared fixtures: a tiny corpus written into a temp dir, and a scripted protocol engine."""

from __future__ import annotations

import gc
import json
import os
import sys
from pathlib import Path

import pytest

# Before any test module imports nbformat: without the IRI grammar that jsonschema's optional format
# checker compiles at import (about 2 s per test process; the notebook machinery skips it the same way).
import workbench.report._kernels  # noqa: F401  # isort: skip
from workbench.contract import Repo

ENGINE = Path(__file__).parent / "engines" / "scripted_engine.py"
REPO_ROOT = Path(__file__).resolve().parent.parent


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Create ``files`` (relative path -> text) under ``root`` and return ``root``."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def write_repo(root: Path, files: dict[str, str]) -> Repo:
    """``write_tree``, as the repository ``repo`` an engine is asked about."""
    return Repo("repo", str(write_tree(root, files)))


def write_corpus(root: Path, data: dict) -> Path:
    """Write ``data`` as ``root/corpus/corpus.json`` and return its path."""
    path = root / "corpus" / "corpus.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))
    return path


@pytest.fixture(autouse=True, scope="session")
def _own_cache_dir(tmp_path_factory: pytest.TempPathFactory):
    """Caches (indexes, snapshots, results, schema verdicts) go to a directory of this session,
    never the user's own, unless a test or the caller names one."""
    before = os.environ.get("WORKBENCH_CACHE_DIR")
    if before is None:
        os.environ["WORKBENCH_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if before is None:
        os.environ.pop("WORKBENCH_CACHE_DIR", None)


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of this test's own (``tmp_path/cache``), with what this process holds for the
    one before forgotten: the chosen folder, the blob store's open file, the per-blob parts (facts,
    definition ranges, the control's terms), the built indexes and symbol tables."""
    from workbench import paths
    from workbench.reference import blobstore, symtable
    from workbench.reference import index as index_module
    from workbench.reference.extract import RANGES
    from workbench.targets.bm25_blobs import BLOB_TERMS

    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    paths._CHOSEN.clear()
    blobstore.close()
    for part in (index_module.FACTS, RANGES, BLOB_TERMS):
        part.forget()
    index_module._MEMO.clear()
    symtable._MEMO.clear()
    return tmp_path / "cache"


@pytest.fixture(autouse=True)
def _collector_unfrozen():
    """What a test's pauses of the collector froze (``code.collector.settle``) goes back to it after the
    test, so the next starts where a fresh process would: ``gc.get_referrers`` misses frozen objects
    (Hypothesis warns that trio's random generator has no referrer when its plugin is set up later)."""
    yield
    gc.unfreeze()


@pytest.fixture(autouse=True)
def _no_table_left_unsaved():
    """A symbol table a test built and did not save (``symtable.save_pending``) is dropped after it:
    never saved later into another test's cache directory, nor at exit into the user's."""
    yield
    symtable = sys.modules.get("workbench.reference.symtable")
    if symtable is not None:
        symtable._UNSAVED.clear()


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> Path:
    """Two single-repo cases, one fallback case, one multi-repo case."""
    for rel in ("api/src/orders.ts", "api/src/users.ts", "api/src/index.ts", "web/src/client.ts"):
        file = tmp_path / "fixtures" / rel
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(f"// {rel}\nexport const x = 1;\n")
    return write_corpus(
        tmp_path,
        {
            "$schema": "./corpus.schema.json",
            "description": "tiny",
            "k": 5,
            "thresholds": {"comment": "floors", "retrieval": {"precisionAtK": 0.5, "recallAtK": 0.5, "mrr": 0.5}},
            "fixtureRoots": {"api": "fixtures/api", "web": "fixtures/web"},
            "retrieval": [
                {"name": "orders", "query": "list orders", "repoFixture": "api", "expectedPrimary": ["src/orders.ts"]},
                {
                    "name": "users",
                    "query": "find users",
                    "repoFixture": "api",
                    "expectedPrimary": ["src/users.ts"],
                    "expectedAnyOf": ["src/index.ts"],
                },
                {"name": "fallback", "query": "zzz", "repoFixture": "api", "expectedPrimary": []},
                {
                    "name": "pair",
                    "query": "orders client",
                    "repoFixtures": ["api", "web"],
                    "expectedPrimary": ["api/src/orders.ts"],
                    "expectedAnyOf": ["web/src/client.ts"],
                },
            ],
        },
    )


def engine_spec(answers: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch) -> str:
    """A ``cmd:`` spec running the scripted engine with the given answers."""
    monkeypatch.setenv("ANSWERS", json.dumps(answers))
    return f"cmd:{sys.executable} {ENGINE}"


def assert_thin_notebook(path: Path, parameter: str) -> None:
    """A page notebook only displays: its first code cell is the ``parameters`` cell setting
    ``parameter``, every other one is one statement of at most one call into ``wb.`` (or an import)."""
    import ast

    import nbformat

    book = nbformat.read(str(path), as_version=4)
    cells = [c for c in book.cells if c.cell_type == "code"]
    assert "parameters" in cells[0].metadata.get("tags", []) and cells[0].source.startswith(f"{parameter} = None")
    for cell in cells[1:]:
        tree = ast.parse(cell.source)
        assert len(tree.body) == 1 and not cell.outputs, cell.source
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
        head = ast.unparse(tree).split("(")[0].split("= ")[-1]
        assert len(calls) <= 1 and head.startswith(("wb.", "import")), cell.source


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: one worker per core, plus one for the Ray file, which mostly waits (Ray starting,
    its actors' processes coming up): about 14 CPU-seconds over a minute. PYTEST_XDIST_AUTO_NUM_WORKERS
    still decides when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return len(os.sched_getaffinity(0)) + 1


# Under pytest-xdist (``make test`` runs ``-n WORKERS --dist loadfile``) each file's tests run on one
# worker, so a module-scoped fixture (an index, a run, a rendered report) is built once and the Ray
# tests keep their one local Ray instance to themselves. The files xdist hands out first are the
# longest: those with Ray tests, then those with notebook tests (kernels), then those with slow tests;
# the rest keep their order. A long file handed out last would end the run alone on one worker.
FIRST = ("ray", "notebooks", "slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return next((i for i, name in enumerate(FIRST) if item.get_closest_marker(name)), len(FIRST))

    files: dict[str, int] = {}
    for item in items:
        file = item.nodeid.split("::", 1)[0]
        files[file] = min(files.get(file, len(FIRST)), rank(item))
    items.sort(key=lambda item: files[item.nodeid.split("::", 1)[0]])  # stable: the order within a rank stays
