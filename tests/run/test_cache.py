"""``--cache``: a cached re-run scores the same, draws no latency from the cache, and reuses only
what is safe (known versions, unchanged case and fixture, passing answers)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from workbench.corpus import load_corpus
from workbench.options import RunOptions
from workbench.run.cache import ResultCache, cacheable_target, tree_digest
from workbench.run.runner import run
from workbench.targets import resolve_target

from ..engines import flaky_engine
from ..scale_corpus import scale_corpus

STEADY = "python:tests.engines.flaky_engine:steady"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    flaky_engine.STEADY_CALLS.clear()


def _run(corpus: Path, out: Path, targets: list[str], **extra):
    return run(load_corpus(corpus), RunOptions(targets=targets, out_dir=out, progress=False, cache=True, **extra))


def _strip(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "run_dir"}


def test_a_cached_rerun_gives_the_same_summary_and_no_latency(tmp_path) -> None:
    corpus = scale_corpus(tmp_path, cases=10)
    targets = ["builtin", "bm25", "random"]
    first = _run(corpus, tmp_path / "runs", targets)
    assert not first.cases["cached"].any() and first.cases["seconds"].notna().all()
    second = _run(corpus, tmp_path / "runs", targets)
    assert _strip(second.summary) == _strip(first.summary)
    pd.testing.assert_frame_equal(second.scores, first.scores)
    cached = second.cases[second.cases["cached"].astype(bool)]
    passed_first = first.cases[first.cases["passed"].astype(bool)]
    assert len(cached) == len(passed_first) > 0, "exactly the passing answers are reused"
    assert cached["seconds"].isna().all(), "a cached case carries no time into latency figures"
    fresh = second.cases[~second.cases["cached"].astype(bool)]
    assert not fresh["passed"].astype(bool).any() and fresh["seconds"].notna().all()
    assert second.manifest["cache"]["hits"] == len(cached)


def test_a_changed_fixture_or_case_is_asked_again(tmp_path) -> None:
    corpus = scale_corpus(tmp_path, cases=4)
    _run(corpus, tmp_path / "runs", [STEADY])
    assert len(flaky_engine.STEADY_CALLS) == 4
    _run(corpus, tmp_path / "runs", [STEADY])
    assert len(flaky_engine.STEADY_CALLS) == 4, "nothing changed: every answer from the cache"
    (tmp_path / "fixtures" / "app" / "src" / "new.ts").write_text("export const n = 1;\n")
    _run(corpus, tmp_path / "runs", [STEADY])
    assert len(flaky_engine.STEADY_CALLS) == 8, "the fixture changed: every case asked again"
    text = corpus.read_text().replace("handler 0 ", "handler zero ")
    corpus.write_text(text)
    _run(corpus, tmp_path / "runs", [STEADY])
    assert len(flaky_engine.STEADY_CALLS) == 9, "one case changed: only it is asked again"


def test_failed_errored_and_unknown_version_answers_are_never_cached(tmp_path) -> None:
    corpus = scale_corpus(tmp_path, cases=8)
    flaky = "python:tests.engines.flaky_engine:flaky"  # version known but not opted in
    assert not cacheable_target(resolve_target(flaky, 0, 5))
    assert cacheable_target(resolve_target("builtin", 0, 5)) and cacheable_target(resolve_target("random", 0, 5))
    first = _run(corpus, tmp_path / "runs", [flaky])
    assert first.manifest["cache"] == {"hits": 0, "stored": 0}
    store = ResultCache(tmp_path / "elsewhere", max_entries=3)
    store.put_many([(f"k{i}", {"i": i}) for i in range(5)])
    assert len(store.get_many([f"k{i}" for i in range(5)])) == 3, "the store stays bounded"
    store.close()


def test_tree_digest_sees_content_not_times(tmp_path) -> None:
    (tmp_path / "a.txt").write_text("one")
    before = tree_digest(tmp_path)
    (tmp_path / "a.txt").write_text("one")
    assert tree_digest(tmp_path) == before
    (tmp_path / "a.txt").write_text("two")
    assert tree_digest(tmp_path) != before


def test_revision_pinned_cases_are_keyed_by_the_tree_they_run_against(tmp_path) -> None:
    import subprocess

    from ..conftest import write_corpus

    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    shas = []
    for n in range(2):
        (repo / "src").mkdir(exist_ok=True)
        (repo / "src" / "a.ts").write_text(f"export const a = {n};\n")
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", f"commit {n}"], check=True)
        shas.append(subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip())

    def corpus_at(sha: str) -> Path:
        return write_corpus(
            tmp_path,
            {
                "fixtureRoots": {"app": str(repo)},
                "retrieval": [
                    {
                        "name": "a",
                        "query": "find src/a.ts",
                        "repoFixture": "app",
                        "revision": sha,
                        "expectedPrimary": ["src/a.ts"],
                    }
                ],
            },
        )

    _run(corpus_at(shas[0]), tmp_path / "runs", [STEADY])
    _run(corpus_at(shas[0]), tmp_path / "runs", [STEADY])
    assert len(flaky_engine.STEADY_CALLS) == 1, "same revision: from the cache"
    result = _run(corpus_at(shas[1]), tmp_path / "runs", [STEADY])
    assert len(flaky_engine.STEADY_CALLS) == 2 and not result.cases["cached"].any(), "another tree: asked again"


def test_suites_whose_result_depends_on_the_machine_or_recorded_data_are_not_cached() -> None:
    from workbench.run.cache import cacheable_suite
    from workbench.suites import get_suite

    assert cacheable_suite(get_suite("retrieval")) and cacheable_suite(get_suite("risk"))
    assert not cacheable_suite(get_suite("harness")) and not cacheable_suite(get_suite("findings"))


def test_a_cached_rerun_neither_materializes_nor_reads_a_revision(tmp_path, monkeypatch) -> None:
    """A revision's content is named by its git tree: a fully cached re-run looks that up and
    never builds (or even needs) the snapshot directory."""
    import shutil

    from workbench.corpus import fixtures as fixtures_module
    from workbench.corpus import snapshots

    from ..conftest import write_corpus
    from ..git_history import commit, init

    repo = init(tmp_path / "repo")
    sha = commit(repo, "one", {"src/a.ts": "export const a = 1;\n"}, 0)
    case = {"query": "find src/a.ts", "repoFixture": "app", "revision": sha, "expectedPrimary": ["src/a.ts"]}
    corpus = write_corpus(
        tmp_path, {"fixtureRoots": {"app": str(repo)}, "retrieval": [dict(case, name=f"c{n}") for n in range(3)]}
    )
    first = _run(corpus, tmp_path / "runs", [STEADY])
    assert len(flaky_engine.STEADY_CALLS) == 3 and first.summary["verdict"] == "NO FLOORS"  # no floors, no failure
    shutil.rmtree(snapshots.snapshots_root())

    def no_materialize(*args: object) -> Path:
        raise AssertionError("a cached case materialized its revision")

    monkeypatch.setattr(fixtures_module, "materialize", no_materialize)
    second = _run(corpus, tmp_path / "runs", [STEADY])
    assert len(flaky_engine.STEADY_CALLS) == 3 and second.cases["cached"].all()
    assert _strip(second.summary) == _strip(first.summary)
    assert not snapshots.snapshots_root().exists()


def test_the_run_returned_reads_the_frames_it_wrote(tmp_path) -> None:
    from workbench.store.runs import load_run

    corpus = scale_corpus(tmp_path, cases=6)
    result = _run(corpus, tmp_path / "runs", ["builtin", "random"])
    again = load_run(result.path)
    assert result.manifest == again.manifest and result.summary == again.summary
    pd.testing.assert_frame_equal(result.cases, again.cases)
    pd.testing.assert_frame_equal(result.scores, again.scores)
