"""The recipes of CONTRIBUTING.md ("Where things go"), followed step by step: a new suite, a new
target, a new metric and a new report page each work through the public extension points."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import workbench as wb
from workbench.analysis import registry
from workbench.analysis._kernel import Hits
from workbench.columns import CASE, METRIC, PASSED, VALUE
from workbench.contract import FileRef, Pack, Repo
from workbench.corpus import load_corpus
from workbench.options import RunOptions, option
from workbench.suites import Outcome, RunContext, Scored, Suite, register_suite, unregister_suite
from workbench.suites.base import mean_metrics

from .conftest import write_corpus


class EchoSuite(Suite):
    """Recipe "add a suite": does the engine's pack start with the file the case names?"""

    name = "echo"
    capability = "context_pack"

    def run_case(self, target: Any, case: dict[str, Any], ctx: RunContext) -> dict[str, Any]:
        repo = Repo(case["repoFixture"], ctx.corpus.fixture_dir(case["repoFixture"]))
        pack = target.context_pack(case["query"], [repo], 3)
        return {"first": pack.primary[0].path if pack.primary else None}

    def score(self, outcomes: list[Outcome], ctx: RunContext) -> Scored:
        rows = [
            {CASE: o.name, PASSED: bool(o.observation) and o.observation["first"] == o.case["expect"]} for o in outcomes
        ]
        return Scored(
            rows, pd.DataFrame({CASE: [r[CASE] for r in rows], METRIC: "hit", VALUE: [float(r[PASSED]) for r in rows]})
        )

    def aggregate(self, scores: pd.DataFrame, case_rows: pd.DataFrame) -> dict[str, float | None]:
        return mean_metrics(scores, ["hit"])


class FirstFileEngine:
    """Recipe "add a target": an object with a name and the capabilities it has."""

    name = "first-file"

    def context_pack(self, query: str, repos: list[Repo], limit: int = 8) -> Pack:
        files = sorted(p.name for p in Path(repos[0].path).iterdir())
        return Pack(primary=[FileRef(repos[0].name, f) for f in files[:1]])


def make_engine() -> FirstFileEngine:
    return FirstFileEngine()


@pytest.fixture
def echo_suite() -> Any:
    register_suite("echo", "echoCases", "tests.test_recipes:EchoSuite")
    yield
    unregister_suite("echo")


def test_a_new_suite_and_a_new_target_run_end_to_end(tmp_path: Path, echo_suite: None) -> None:
    for name in ("a.py", "b.py"):
        (tmp_path / "fixtures" / "repo").mkdir(parents=True, exist_ok=True)
        (tmp_path / "fixtures" / "repo" / name).write_text("x = 1\n")
    corpus = write_corpus(
        tmp_path,
        {
            "fixtureRoots": {"repo": "fixtures/repo"},
            "thresholds": {"echo": {"hit": 0.5}},
            "echoCases": [
                {"name": "one", "query": "q", "repoFixture": "repo", "expect": "a.py"},
                {"name": "two", "query": "q", "repoFixture": "repo", "expect": "b.py"},
            ],
        },
    )
    run = wb.run_eval(
        corpus, targets=["python:tests.test_recipes:make_engine"], out_dir=tmp_path / "runs", progress=False
    )
    result = run.summary["suites"]["echo"]["first-file"]
    assert result["metrics"] == {"hit": 0.5} and result["passed"] and result["passed_cases"] == 1
    assert set(run.cases["case"]) == {"one", "two"}


def hits_in_top_two(h: Hits, k: float) -> np.ndarray:
    """Recipe "add a metric": relevant docs in the top two, whatever the cut-off."""
    top = h.pos < 2
    return np.bincount(h.case[top], minlength=h.relevant.size).astype(np.float64)


def test_a_new_metric_is_one_registry_entry() -> None:
    registry.register(
        registry.Measure(
            "TopTwo", "rank", aliases=("toptwo",), per_case=hits_in_top_two, undefined_without_relevant=False
        )
    )
    try:
        frame = wb.evaluate(
            [("q", "a", 1), ("q", "b", 2), ("q", "c", 3)], [("q", "b", 1), ("q", "c", 1)], ["toptwo", "P@3"]
        )
        values = dict(zip(frame[METRIC].astype(str), frame[VALUE]))
        assert values == {"toptwo": 1.0, "P@3": pytest.approx(2 / 3)}
        assert registry.higher_is_better("toptwo") and not registry.higher_is_better("pack_tokens")
        with pytest.raises(ValueError, match="already registered"):
            registry.register(registry.Measure("toptwo", "rank"))
    finally:
        registry.unregister("TopTwo")
    with pytest.raises(wb.WorkbenchError, match="unknown metric"):
        wb.parse_metric("toptwo")


@pytest.mark.notebooks
def test_a_new_report_page_renders(tmp_path: Path) -> None:
    from .report_runs import build_run

    run_dir = build_run(tmp_path / "runs", suites=("retrieval",))
    page = {
        "cells": [
            {
                "id": "params",
                "cell_type": "code",
                "metadata": {"tags": ["parameters"]},
                "source": "run_dir = None\nbaseline = None",
                "outputs": [],
                "execution_count": None,
            },
            {"id": "title", "cell_type": "markdown", "metadata": {}, "source": "# My page"},
            {
                "id": "open",
                "cell_type": "code",
                "metadata": {},
                "source": "import workbench as wb\nrun = wb.views.open_run(run_dir)",
                "outputs": [],
                "execution_count": None,
            },
            {
                "id": "show",
                "cell_type": "code",
                "metadata": {},
                "source": "wb.views.headline(run)",
                "outputs": [],
                "execution_count": None,
            },
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "nb").mkdir()
    (tmp_path / "nb" / "mypage.ipynb").write_text(json.dumps(page))
    report = wb.render_report(
        run_dir, out_dir=tmp_path / "html", notebooks=["mypage"], notebook_dir=tmp_path / "nb", jobs=1
    )
    html = (tmp_path / "html" / run_dir.name / "mypage.html").read_text()
    assert [p.name for p in report.pages] == ["mypage"] and "My page" in html and not report.failed


@dataclass(frozen=True)
class RetryOptions(RunOptions):
    """Recipe "add a run option": one field. ``deciding=True`` records it in the manifest and
    makes a resume take it from the journal (a contradicting value is a usage error)."""

    retries: int = option(0, deciding=True)


def test_a_new_run_option_round_trips_through_the_manifest_and_resume(tiny_corpus: Path, tmp_path, monkeypatch) -> None:
    from workbench.errors import RunStopped, UsageError
    from workbench.run import runner

    seen: list[int] = []  # the option's use: here, what the runner was given
    select = runner.select_suites
    monkeypatch.setattr(runner, "select_suites", lambda corpus, opts: seen.append(opts.retries) or select(corpus, opts))
    corpus, out = load_corpus(tiny_corpus), tmp_path / "runs"

    whole = runner.run(corpus, RetryOptions(targets=["random"], out_dir=tmp_path / "whole", progress=False, retries=1))
    assert whole.manifest["options"]["retries"] == 1 and RetryOptions.from_manifest(whole.manifest).retries == 1

    finished: list[int] = []

    def stop() -> None:  # interrupt the run once two cases are journaled
        finished.append(1)
        if len(finished) == 2:
            raise KeyboardInterrupt

    with pytest.raises(RunStopped) as stopped:
        runner.run(corpus, RetryOptions(targets=["random"], out_dir=out, progress=False, retries=2), on_case=stop)
    journal = Path(stopped.value.journal)
    assert json.loads((journal / "header.json").read_text())["manifest"]["options"]["retries"] == 2
    with pytest.raises(UsageError, match=r"--retries 5 \(the run has 2\)"):
        wb.run_eval(options=RetryOptions(resume=journal, retries=5, progress=False))
    resumed = wb.run_eval(options=RetryOptions(resume=journal, progress=False))  # retries not given: the journal's
    assert resumed.manifest["options"]["retries"] == 2 and seen == [1, 2, 2]
    assert resumed.manifest["resumed"]["reused_cases"] == 2 and not journal.exists()
