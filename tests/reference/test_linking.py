"""Linking a revision from parts kept across revisions gives the index a cold link gives."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from workbench.code.outline import Import
from workbench.reference import blobparts, cache
from workbench.reference import index as index_module
from workbench.reference.imports import Resolutions, Resolver

from ..conftest import write_tree

PYTHON = ["a.py", "pkg/__init__.py", "pkg/a.py", "pkg/b.py", "pkg/sub/__init__.py", "pkg/sub/c.py", "other/a.py"]
SCRIPTS = ["web/src/x.ts", "web/src/y/index.ts", "web/src/z.js", "web/lib/x.ts", "pkgs/ui/src/index.ts"]
GO = ["cmd/main.go", "internal/p/p.go", "internal/p/p_test.go", "internal/q/q.go"]
PY_IMPORTS = [
    Import("pkg", 0, ("a",)),
    Import("pkg.sub", 0, ("c", "missing")),
    Import("", 1, ("a", "b")),
    Import("sub.c", 1, ()),
    Import("a", 0, ()),
    Import("", 2, ("other",)),
]
TS_IMPORTS = [Import("./z.js"), Import("@/x"), Import("../lib/x"), Import("./y"), Import("@ws/ui"), Import("~/y")]
GO_IMPORTS = [Import("ex.com/m/internal/p"), Import("ex.com/m/internal/q"), Import("fmt")]


def _revision(rnd: random.Random, before: dict[str, str] | None) -> dict[str, str]:
    """Paths -> a blob label (what the file imports); mostly the revision before, a few changes."""
    every = PYTHON + SCRIPTS + GO
    if before is None:
        return {rel: rnd.choice("abc") for rel in rnd.sample(every, len(every) * 2 // 3)}
    after = dict(before)
    for rel in rnd.sample(every, rnd.randint(0, 3)):
        if rel in after and rnd.random() < 0.5:
            del after[rel]
        else:
            after[rel] = rnd.choice("abc")
    return after


def _imports(rel: str, label: str) -> list[Import]:
    pool = PY_IMPORTS if rel.endswith(".py") else TS_IMPORTS if rel.endswith((".ts", ".js")) else GO_IMPORTS
    return [imp for i, imp in enumerate(pool) if (i + ord(label)) % 3]


def _configs(rnd: random.Random) -> dict[str, str]:
    paths = rnd.choice([{"@/*": ["web/src/*"]}, {"@/*": ["web/lib/*"]}, {}])
    return {
        "tsconfig.json": json.dumps({"compilerOptions": {"paths": paths}}),
        "pkgs/ui/package.json": json.dumps({"name": rnd.choice(["@ws/ui", "@ws/other"])}),
        "go.mod": "module ex.com/m\n",
    }


@pytest.mark.parametrize("seed", range(6))
def test_resolutions_kept_across_revisions_equal_a_fresh_resolver(tmp_path: Path, seed: int) -> None:
    """Files added, removed and edited, configurations changed, two branches taken in turn:
    each revision's resolutions equal a fresh ``Resolver``'s."""
    rnd = random.Random(seed)
    kept = Resolutions()
    branches = [_revision(rnd, None)]
    branches.append(_revision(rnd, branches[0]))
    configs = _configs(rnd)
    for step in range(25):
        which = rnd.randrange(2)
        branches[which] = files_of = _revision(rnd, branches[which])
        if rnd.random() < 0.15:
            configs = _configs(rnd)
        root = write_tree(tmp_path / f"r{step}", configs)
        present = {**files_of, **{rel: text for rel, text in configs.items() if rnd.random() < 0.9}}
        files = sorted(present)
        imports = [_imports(rel, present[rel][:1]) if rel not in configs else [] for rel in files]
        blobs = [f"{rel}:{present[rel]}" for rel in files]
        digests = [cache.digest(present[rel].encode()) for rel in files]
        got = kept.resolve(root, files, blobs, imports, digests)
        fresh = Resolver(root, files)
        expected = [tuple(files[j] for j in sorted(fresh.resolve(rel, imp))) for rel, imp in zip(files, imports)]
        assert got == expected, step


def _tree(rnd: random.Random, step: int) -> dict[str, str]:
    """A small Python tree whose files change a little each step."""
    files = {}
    for i in range(12):
        if rnd.random() < 0.85:
            other = f"mod{(i + 1) % 12}"
            body = f'"""Module {i} about {rnd.choice(["orders", "carts", "users"])}."""\nfrom . import {other}\n'
            body += f"def handle_{i}_{rnd.randint(0, 3)}():\n    raise ValueError('order {i} was not found here')\n"
            files[f"app/mod{i}.py"] = body * rnd.randint(1, 3)
    files["app/__init__.py"] = ""
    files["README.md"] = f"# Shop\nstep {step % 3}\n"
    return files


def _same(a: index_module.RepoIndex, b: index_module.RepoIndex) -> None:
    assert (a.files, a.kinds, a.imports, a.importers, a.symbols, a.routes) == (
        b.files,
        b.kinds,
        b.imports,
        b.importers,
        b.symbols,
        b.routes,
    )
    assert (a.entries, a.key_users, a.words, a.facts, a.messages.entries) == (
        b.entries,
        b.key_users,
        b.words,
        b.facts,
        b.messages.entries,
    )
    assert sorted(a.ranker.vocab) == sorted(b.ranker.vocab)
    ids = [a.ranker.vocab[t] for t in sorted(a.ranker.vocab)]
    other = [b.ranker.vocab[t] for t in sorted(b.ranker.vocab)]
    weights = np.ones(len(ids), dtype=np.float32)
    for x, y in zip(a.ranker.score(ids, weights), b.ranker.score(other, weights), strict=True):
        assert x.tobytes() == y.tobytes()
    assert a.ranker.idf[ids].tobytes() == b.ranker.idf[other].tobytes()


def test_a_revision_linked_from_held_parts_equals_a_cold_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Revision after revision, the index linked from what the revisions before left in memory
    (a tight bound on it, and the numbering started afresh midway) equals one built from nothing."""
    rnd = random.Random(7)
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    warm = blobparts.Linking(memory=20_000, max_terms=30)
    for step in range(8):
        root = write_tree(tmp_path / f"rev{step}", _tree(rnd, step))
        monkeypatch.setattr(index_module, "LINKING", warm)
        held = index_module.build(root)
        monkeypatch.setattr(index_module, "LINKING", blobparts.Linking())
        shutil.rmtree(tmp_path / "cache", ignore_errors=True)
        cold = index_module.build(root)
        _same(held, cold)
    assert warm.interner.generation > 0  # the bound on terms was passed at least once
    assert len(warm.blobs) < 12 * 8  # and the bound on bytes held


def test_digests_of_fixed_files_are_known_by_inode(tmp_path: Path) -> None:
    """A snapshot's files are hard links of immutable blobs: a digest is remembered per inode, and a
    file put in place of another (a new inode) is read afresh."""
    root = write_tree(tmp_path / "snap", {"a.py": "x = 1\n", "b.py": "y = 2\n"})
    files = ["a.py", "b.py"]
    read = cache.file_digests(root, files)
    assert cache.file_digests(root, files, fixed=True) == read
    assert cache.file_digests(root, files, fixed=True) == read  # from memory
    (tmp_path / "new").write_text("x = 10\n")
    (tmp_path / "new").replace(root / "a.py")
    sizes, digests = cache.file_digests(root, files, fixed=True)
    assert digests[0] == cache.digest(b"x = 10\n", ".py") and digests[1] == read[1][1] and sizes[0] == 7
