"""A run clones its bundle fixtures on a thread while its suites import, and still reports a bad one."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.conftest import write_corpus
from tests.git_history import commit, git, init
from workbench.corpus import fixtures, load_corpus, sources
from workbench.errors import GitError
from workbench.options import RunOptions
from workbench.run.runner import run


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    sources._bundle_clone.cache_clear()
    fixtures._opened.cache_clear()


def _corpus(tmp_path: Path, bundle: Path, revision: str) -> Path:
    case = {"name": "a", "query": "find src/a.py", "repoFixture": "app", "revision": revision}
    return write_corpus(
        tmp_path, {"fixtureRoots": {"app": str(bundle)}, "retrieval": [{**case, "expectedPrimary": ["src/a.py"]}]}
    )


def _bundle(tmp_path: Path) -> tuple[Path, str]:
    repo = init(tmp_path / "r")
    sha = commit(repo, "one", {"src/a.py": "def a():\n    return 1\n"}, 0)
    bundle = tmp_path / "app.bundle"
    git(repo, "bundle", "create", str(bundle), "main")
    return bundle, sha


def test_a_bundle_fixture_is_cloned_on_the_opening_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bundle, sha = _bundle(tmp_path)
    opened_on: list[str] = []
    real = fixtures.open_repo

    def spy(path: Path, name: str | None = None) -> sources.GitRepo:
        opened_on.append(threading.current_thread().name)
        return real(path, name)

    monkeypatch.setattr(fixtures, "open_repo", spy)
    corpus = load_corpus(_corpus(tmp_path, bundle, sha))
    result = run(corpus, RunOptions(targets=["bm25"], out_dir=tmp_path / "runs", progress=False))
    assert opened_on == ["workbench-fixtures"]  # opened once, there; the run's own call waited for it
    assert result.cases["error"].isna().all()
    assert not any(t.name == "workbench-fixtures" for t in threading.enumerate())  # joined before any fork


def test_a_bundle_that_cannot_be_read_still_fails_the_run_with_its_name(tmp_path: Path) -> None:
    bundle, sha = _bundle(tmp_path)
    corpus = load_corpus(_corpus(tmp_path, bundle, sha))
    bundle.write_bytes(b"not a bundle\n")  # damaged after the corpus was checked
    sources._bundle_clone.cache_clear()
    with pytest.raises(GitError, match="app.bundle"):
        run(corpus, RunOptions(targets=["bm25"], out_dir=tmp_path / "runs", progress=False))
