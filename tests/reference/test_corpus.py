"""The shipped retrieval corpus: the reference engine beats both controls on every aggregate.

This runs the real retrieval suite (the lead's scoring rules) over every case of
``corpus/corpus.json`` against ``builtin``, ``bm25`` and ``random``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.run.runner import run_eval

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "corpus.json"
METRICS = ("precisionAtK", "recallAtK", "mrr", "ndcgAtK")
MIN_PASS_RATE = 0.95


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("corpus-run")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WORKBENCH_CACHE_DIR", str(base / "cache"))
        result = run_eval(
            CORPUS, suites=["retrieval"], targets=["builtin", "bm25", "random"], out_dir=base / "runs", progress=False
        )
    return result.summary["suites"]["retrieval"]


def test_corpus_is_big_enough(summary: dict):
    assert summary["builtin"]["cases"] >= 35


@pytest.mark.parametrize("metric", METRICS)
def test_builtin_beats_both_controls(summary: dict, metric: str):
    ours = summary["builtin"]["metrics"][metric]
    assert ours > summary["bm25"]["metrics"][metric], metric
    assert ours > summary["random"]["metrics"][metric], metric


def test_builtin_passes_nearly_every_case(summary: dict):
    builtin = summary["builtin"]
    assert builtin["passed_cases"] / builtin["cases"] >= MIN_PASS_RATE
