"""A corpus written for the JavaScript tools runs through ``cmd:`` against an engine that
speaks the protocol, and workbench's numbers equal what that engine's own harness prints."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from workbench.corpus import load_corpus
from workbench.run.runner import RunOptions, run

from ..conftest import REPO_ROOT

JS = Path(__file__).parents[1] / "engines" / "js"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def _harness_line(corpus: Path) -> dict[str, float]:
    out = subprocess.run(
        ["node", str(JS / "harness.js"), str(corpus)], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    match = re.search(r"p@\d+=([\d.]+), r@\d+=([\d.]+), mrr=([\d.]+) \((\d+)/(\d+) cases pass\)", out)
    assert match, out
    p, r, mrr, passed, total = match.groups()
    return {
        "precisionAtK": float(p),
        "recallAtK": float(r),
        "mrr": float(mrr),
        "passed": int(passed),
        "total": int(total),
    }


def _workbench(corpus: Path, out: Path) -> dict[str, float]:
    opts = RunOptions(
        suites=["retrieval"], targets=[f"cmd:node {JS / 'engine.js'}"], out_dir=out, progress=False, timeout=30
    )
    result = run(load_corpus(corpus), opts)
    summary = next(iter(result.summary["suites"]["retrieval"].values()))
    assert summary["errors"] == 0
    return {
        **{m: round(summary["metrics"][m], 3) for m in ("precisionAtK", "recallAtK", "mrr")},
        "passed": summary["passed_cases"],
        "total": summary["cases"],
    }


def test_tiny_corpus_parity(tiny_corpus: Path, tmp_path: Path) -> None:
    assert _workbench(tiny_corpus, tmp_path) == _harness_line(tiny_corpus)


def test_shipped_corpus_parity(tmp_path: Path) -> None:
    corpus = REPO_ROOT / "corpus" / "corpus.json"
    if not load_corpus(corpus).cases("retrieval"):
        pytest.skip("the shipped corpus has no retrieval cases")
    assert _workbench(corpus, tmp_path) == _harness_line(corpus)
