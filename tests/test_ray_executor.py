"""``--executor ray``: the same summary as a local run, as merged shards and as a resumed Ray run;
a lost worker's cases are retried and the retries recorded. Runs a local Ray instance."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workbench.corpus import load_corpus
from workbench.errors import RunStopped
from workbench.run.merge import merge_runs
from workbench.run.options import RunOptions
from workbench.run.resume import read_outcomes
from workbench.run.runner import run, run_eval

from .scale_corpus import scale_corpus

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.ray
TARGETS = ["builtin", "bm25"]


@pytest.fixture(scope="module", autouse=True)
def _ray_instance():
    from workbench.run.ray_executor import start_local_ray

    if not ray.is_initialized():
        start_local_ray(ray)
    yield
    ray.shutdown()


def _options(out: Path, **extra: Any) -> RunOptions:
    return RunOptions(targets=extra.pop("targets", TARGETS), out_dir=out, progress=False, **extra)


def _verdicts(summary: dict) -> dict:
    """Metrics, pass counts and verdicts: what must not depend on where cases ran."""
    keep = ("cases", "scored", "passed_cases", "errors", "metrics", "passed", "failures", "skipped")
    return {
        "passed": summary["passed"],
        "suites": {s: {t: {k: v.get(k) for k in keep} for t, v in per.items()} for s, per in summary["suites"].items()},
    }


@pytest.fixture
def corpus(tmp_path) -> Path:
    return scale_corpus(tmp_path, cases=16, floor=0.9)


def test_ray_local_shards_and_a_resumed_ray_run_give_one_summary(corpus, tmp_path) -> None:
    local = run(load_corpus(corpus), _options(tmp_path / "local"))
    on_ray = run(load_corpus(corpus), _options(tmp_path / "ray", executor="ray"))
    assert on_ray.manifest["executor"]["kind"] == "ray" and on_ray.manifest["executor"]["retries"] == 0
    assert _verdicts(on_ray.summary) == _verdicts(local.summary)
    drop = ["seconds"]
    assert on_ray.cases.drop(columns=drop).equals(local.cases.drop(columns=drop))
    assert on_ray.scores.equals(local.scores)

    shards = [run(load_corpus(corpus), _options(tmp_path / "shards", shard=(i, 4))) for i in range(4)]
    merged = merge_runs([s.path for s in shards], tmp_path / "merged")
    assert _verdicts(merged.summary) == _verdicts(local.summary)

    seen = {"n": 0}

    def kill() -> None:  # the run dies in the middle: after 11 of its 32 cases reached the journal
        seen["n"] += 1
        if seen["n"] == 11:
            raise KeyboardInterrupt

    with pytest.raises(RunStopped) as stopped:
        run(load_corpus(corpus), _options(tmp_path / "killed", executor="ray"), on_case=kill)
    journal = Path(stopped.value.journal)
    assert len(read_outcomes(journal)) == 11
    resumed = run_eval(resume=journal, executor="ray", progress=False)
    assert resumed.manifest["resumed"]["reused_cases"] == 11
    assert _verdicts(resumed.summary) == _verdicts(local.summary)


def test_a_lost_worker_is_retried_and_the_retry_recorded(tmp_path) -> None:
    extra = [
        {
            "name": "dies-once",
            "query": "die handler src/orders.ts",
            "repoFixture": "app",
            "expectedPrimary": ["src/orders.ts"],
        }
    ]
    corpus = scale_corpus(tmp_path, cases=5, extra=extra)
    result = run(
        load_corpus(corpus),
        _options(tmp_path / "runs", executor="ray", targets=["python:tests.engines.flaky_engine:dying"]),
    )
    rows = result.cases.set_index("case")
    assert rows.loc["dies-once", "retries"] >= 1 and bool(rows.loc["dies-once", "passed"])
    assert result.manifest["executor"]["retries"] >= 1 and result.manifest["executor"]["lost_cases"] == 0
    assert result.summary["suites"]["retrieval"]["dying"]["passed_cases"] == 6


def test_repeats_on_ray_find_the_same_flaky_cases(tmp_path) -> None:
    corpus = scale_corpus(tmp_path, cases=8)
    options = {"targets": ["python:tests.engines.flaky_engine:flaky"], "repeat": 3}
    local = run(load_corpus(corpus), _options(tmp_path / "local", **options))
    on_ray = run(load_corpus(corpus), _options(tmp_path / "ray", executor="ray", **options))
    assert (
        on_ray.summary["suites"]["retrieval"]["flaky"]["repeats"]
        == local.summary["suites"]["retrieval"]["flaky"]["repeats"]
    )
