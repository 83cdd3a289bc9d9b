"""A corpus's goldScope reaches the engine: it ranks and packs only the files that can be gold (issue 39)."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.contract import GoldScope, Repo
from workbench.corpus.scope import MINED_SCOPE
from workbench.reference import build_pack
from workbench.reference.pack import rank_files
from workbench.targets.builtin import BuiltinTarget

from ..conftest import write_tree

FILES = {
    "pkg/retry.py": "from pkg import clock\n\ndef backoff(attempt):\n    '''Delay before a retry.'''\n"
    "    return clock.wait(2 ** attempt)\n",
    "pkg/clock.py": "def wait(seconds):\n    return seconds\n",
    "pkg/render.py": "def render(page):\n    return page\n",
    "tests/test_retry.py": "from pkg.retry import backoff\n\n"
    + "\n".join(f"def test_retry_backoff_{i}():\n    assert backoff({i}) >= 1  # retry backoff\n" for i in range(6)),
    "docs/retry.md": "# Retry backoff\n\nEvery retry waits a backoff: the retry backoff doubles.\n",
    "examples/retry_demo.py": "from pkg.retry import backoff\n\nprint(backoff(3))  # retry backoff demo\n",
}
QUERY = "test the retry backoff docs"


@pytest.fixture(autouse=True)
def cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "scope-cache"))


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo("r", write_tree(tmp_path / "repo", FILES))


def _excluded(path: str) -> bool:
    return path.startswith(("tests/", "docs/", "examples/"))


def test_without_a_scope_tests_and_docs_compete(repo: Repo) -> None:
    ranked = [path for _, path in rank_files(QUERY, [repo], 20)]
    assert any(_excluded(path) for path in ranked[:3])
    assert rank_files(QUERY, [repo], 20, GoldScope(())) == rank_files(QUERY, [repo], 20)  # excludes nothing


def test_a_scope_ranks_only_the_files_that_can_be_gold_in_the_same_order(repo: Repo) -> None:
    every = [path for _, path in rank_files(QUERY, [repo], 20)]
    scoped = [path for _, path in rank_files(QUERY, [repo], 20, MINED_SCOPE)]
    assert scoped and scoped[0] == "pkg/retry.py"
    assert scoped == [path for path in every if not _excluded(path)]


def test_the_pack_and_the_builtin_target_keep_to_the_scope(repo: Repo) -> None:
    pack = build_pack(QUERY, [repo], 8, MINED_SCOPE)
    files = [ref.path for ref in [*pack.primary, *pack.related]]
    assert files and files[0] == "pkg/retry.py" and not any(_excluded(path) for path in files)
    assert "pkg/clock.py" in files  # a neighbour still fills
    unscoped = build_pack(QUERY, [repo], 8)
    assert any(_excluded(ref.path) for ref in [*unscoped.primary, *unscoped.related])
    target = BuiltinTarget().context_pack(QUERY, [repo], 8, gold_scope=MINED_SCOPE)
    assert [ref.path for ref in target.primary] == [ref.path for ref in pack.primary]
    assert all(not _excluded(symbol.path) for symbol in target.symbols or [])


def test_a_scoped_pack_with_nothing_matched_fills_its_room_with_core_files_it_allows(tmp_path: Path) -> None:
    """A task that matches nothing gets the repository's core files. With a scope, the core files it rules
    out (here a generated module every other one imports, the most central) are passed over before the
    pack's room is counted, not after: the pack still holds as many core files."""
    body = "\n".join(f"def step_{i}(value):\n    return value + {i}\n" for i in range(40))
    modules = {
        f"pkg/{name}.py": f"from gen import api_pb2\nfrom pkg import {other}\n\n{body}\n"
        for name, other in (("ledger", "journal"), ("journal", "ledger"), ("audit", "ledger"))
    }
    tree = {**modules, "gen/api_pb2.py": "\n".join(f"FIELD_{i} = {i}" for i in range(400)) + "\n"}
    repo = Repo("r", write_tree(tmp_path / "repo", tree))
    query = "zebra quokka marmalade"
    unscoped = [ref.path for ref in build_pack(query, [repo], 8).primary]
    scoped = [ref.path for ref in build_pack(query, [repo], 8, MINED_SCOPE).primary]
    assert "gen/api_pb2.py" in unscoped  # the generated module is a core file without a scope
    assert "gen/api_pb2.py" not in scoped and len(scoped) == len(unscoped) >= 2
