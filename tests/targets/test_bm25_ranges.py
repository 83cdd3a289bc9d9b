"""Each Python blob is parsed once per run (issue 40): the engine keeps the definition ranges of the
blobs it parses (``reference.extract.RANGES``), the ``bm25`` control reads them instead of parsing the
blob again, and the ranges and counts are the ones the control gets when it parses on its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from workbench import paths
from workbench.code.enclosing import definition_ranges
from workbench.reference import cache
from workbench.reference import index as index_module
from workbench.reference.extract import RANGES, extract_parsed
from workbench.targets import controls
from workbench.targets.bm25_blobs import BlobTerms, blob_terms

from ..conftest import write_tree

SOURCES = {
    "pkg/nested.py": (
        "import functools\n\n"
        "@functools.total_ordering\n"
        "@dataclass(frozen=True)\n"
        "class Outer:\n"
        "    class Inner:\n"
        "        class Deepest:\n"
        "            def leaf(self):\n"
        "                return 1\n\n"
        "    @property\n"
        "    def value(self):\n"
        "        def helper():\n"
        "            class Local:\n"
        "                pass\n"
        "            return Local\n"
        "        return helper()\n\n"
        "async def fetch(url):\n"
        "    return url\n\n"
        "if True:\n"
        "    def conditional():\n"
        "        pass\n"
        "try:\n"
        "    import fast\n"
        "except ImportError:\n"
        "    def fast():\n"
        "        pass\n"
    ),
    "pkg/broken.py": "def broken(:\n    return 1\n",
    "pkg/stubs.pyi": "class Stub:\n    def method(self) -> int: ...\n",
    "pkg/empty.py": "",
    "README.md": "# readme\n\ndef not_python():\n",
}


@pytest.fixture(autouse=True)
def cache_dir(fresh_cache: Path) -> Path:
    return fresh_cache


def _tree(tmp_path: Path, name: str) -> Path:
    """The sources, each made a blob no other test has parsed (the engine holds parts in memory)."""
    marker = f"# {tmp_path.name} {name}\n"
    return write_tree(tmp_path / name, {rel: text + marker for rel, text in SOURCES.items()})


def _digests(root: Path) -> dict[str, str]:
    return {rel: cache.digest((root / rel).read_bytes(), rel[rel.rfind(".") :]) for rel in SOURCES}


def _plain(terms: BlobTerms) -> tuple:
    """A blob's counts as comparable values (bags hold arrays), their dtypes included."""
    bags = (terms.chunks, terms.definitions)
    return terms.names, [(a.dtype.str, a.tolist()) for bag in bags for a in (bag.ptr, bag.ids, bag.tf)]


def _counts(root: Path, revision: controls._Revision | None = None) -> dict[str, tuple]:
    """Each file's counts: the revision's, else ``blob_terms`` parsing on its own."""
    if revision is not None:
        return {rel: _plain(terms) for rel, terms in zip(revision.files, revision.terms, strict=True)}
    return {rel: _plain(blob_terms(rel, (root / rel).read_bytes())) for rel in SOURCES}


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    real = ast.parse

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(ast, "parse", counted)
    return calls


def test_the_engine_and_the_control_agree_on_ranges() -> None:
    for rel, text in SOURCES.items():
        data = text.encode()
        _, ranges = extract_parsed(rel, data)
        expected = definition_ranges(rel, data)
        assert (ranges if rel.endswith((".py", ".pyi")) else expected) == expected, rel
        assert rel.endswith(".md") or ranges is not None
    _, nested = extract_parsed("pkg/nested.py", SOURCES["pkg/nested.py"].encode())
    assert sorted(nested or []) == [
        ("Outer", 3, 17),
        ("Outer.Inner", 6, 9),
        ("Outer.Inner.Deepest", 7, 9),
        ("Outer.Inner.Deepest.leaf", 8, 9),
        ("Outer.value", 11, 17),
        ("conditional", 23, 24),
        ("fast", 28, 29),
        ("fetch", 19, 20),
    ]


def test_the_control_after_the_engine_parses_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path, "rev")
    index_module.build(root)
    digests = _digests(root)
    RANGES.forget()  # from the store on disk, as the control would find it in another process
    kept = RANGES.get_many(digests.values())
    for rel in ("pkg/nested.py", "pkg/broken.py", "pkg/stubs.pyi", "pkg/empty.py"):
        assert kept[digests[rel]] == definition_ranges(rel, (root / rel).read_bytes()), rel
    assert kept[digests["pkg/broken.py"]] == [] and digests["README.md"] not in kept
    expected = _counts(root)
    RANGES.forget()
    calls = _count_parses(monkeypatch)
    revision = controls._read_revision(root.resolve())
    assert calls[0] == 0
    assert _counts(root, revision) == expected


def test_the_control_first_parses_once_and_keeps_the_ranges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path, "rev")
    calls = _count_parses(monkeypatch)
    revision = controls._read_revision(root.resolve())
    assert calls[0] == 4  # the four Python files, each once (none is CRLF or invalid UTF-8)
    assert _counts(root, revision) == _counts(root)
    RANGES.forget()
    digests = _digests(root)
    kept = RANGES.get_many(digests.values())
    assert digests["README.md"] not in kept
    for rel, digest in digests.items():
        if rel != "README.md":
            assert kept[digest] == definition_ranges(rel, (root / rel).read_bytes()), rel


def test_a_snapshot_is_digested_by_inode_and_only_its_new_blobs_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A revision snapshot's files are digested as the engine digests them (once per inode) and
    read only when their blob is new: the counts are a work tree's, file for file."""
    work = _tree(tmp_path, "work")
    expected = _counts(work, controls._read_revision(work.resolve()))
    snap = write_tree(paths.snapshots_dir() / ("a" * 40), {rel: (work / rel).read_text() for rel in SOURCES})
    assert paths.is_snapshot(snap.resolve())
    read: list[str] = []
    real = Path.read_bytes

    def counted(self: Path) -> bytes:
        read.append(self.name)
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    revision = controls._read_revision(snap.resolve())
    assert read == [] and revision.stamp is None  # every blob counted already, in the work tree
    assert _counts(snap, revision) == expected
    files = {rel: (work / rel).read_text() for rel in SOURCES} | {"pkg/new.py": "def fresh():\n    return 2\n"}
    revision = controls._read_revision(write_tree(paths.snapshots_dir() / ("b" * 40), files).resolve())
    assert read == ["new.py"] and "pkg/new.py" in revision.files
