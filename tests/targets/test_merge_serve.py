"""Merging shard runs, and serving a target over HTTP so an http:// target scores the same."""

from __future__ import annotations

import threading

import pandas as pd
import pytest

from workbench.corpus import load_corpus
from workbench.errors import StoreError
from workbench.run.merge import merge_runs
from workbench.run.runner import RunOptions, run
from workbench.targets import resolve_target
from workbench.targets.serve import Dispatcher, make_server

from ..conftest import engine_spec
from ..run.test_runner import ANSWERS


def test_merged_shards_equal_the_whole_run(tiny_corpus, tmp_path, monkeypatch) -> None:
    spec = engine_spec(ANSWERS, monkeypatch)
    corpus = load_corpus(tiny_corpus)
    options = dict(targets=[spec], out_dir=tmp_path / "runs", progress=False)
    whole = run(corpus, RunOptions(**options))
    shards = [run(corpus, RunOptions(shard=(i, 2), **options)).path for i in range(2)]
    merged = merge_runs(shards, tmp_path / "merged")
    target = whole.targets[0]
    assert merged.summary["suites"]["retrieval"][target]["metrics"] == pytest.approx(
        whole.summary["suites"]["retrieval"][target]["metrics"]
    )
    assert merged.summary["passed"] == whole.summary["passed"]
    key = ["case", "metric"]
    pd.testing.assert_frame_equal(
        merged.scores.sort_values(key).reset_index(drop=True), whole.scores.sort_values(key).reset_index(drop=True)
    )
    with pytest.raises(StoreError, match="given twice"):
        merge_runs([shards[0], shards[0]], tmp_path / "again")


def test_served_target_scores_like_the_original(tiny_corpus, tmp_path, monkeypatch) -> None:
    spec = engine_spec(ANSWERS, monkeypatch)
    corpus = load_corpus(tiny_corpus)
    server = make_server(Dispatcher(resolve_target(spec, timeout=5), dict(corpus.fixtures)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        direct = run(corpus, RunOptions(targets=[spec], out_dir=tmp_path / "a", progress=False))
        served = run(corpus, RunOptions(targets=[url], out_dir=tmp_path / "b", progress=False))
    finally:
        server.shutdown()
    pick = lambda r: next(iter(r.summary["suites"]["retrieval"].values()))["metrics"]  # noqa: E731
    assert pick(served) == pytest.approx(pick(direct))


def test_dispatcher_answers_errors_as_protocol_errors() -> None:
    class OnlyRisk:
        name, version = "r", "0"

        def risk_concepts(self, mode, text):
            raise ValueError("boom")

    dispatcher = Dispatcher(OnlyRisk(), {})
    assert dispatcher.answer("/v1/risk_concepts", {"mode": "query", "text": "x"}) == (
        200,
        {"error": "ValueError: boom"},
    )
    assert dispatcher.answer("/v1/context_pack", {"query": "x"})[1]["error"].startswith("this engine does not")
    assert dispatcher.answer("/v1/nope", {})[0] == 404
    assert dispatcher.answer("/v1/risk_concepts", [1])[0] == 400
