"""The smaller defects of issue 19, each pinned: counts that agree, advice that exists, tables that
neither break words nor cut columns."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import write_corpus
from workbench.cli import main
from workbench.corpus import load_corpus, validate_corpus
from workbench.errors import CorpusError, StoreError
from workbench.report.views.common import table
from workbench.store import record_baseline
from workbench.store.runs import Run


def test_run_counts_the_problems_validate_lists(tmp_path: Path, capsys) -> None:
    (tmp_path / "fixtures" / "api").mkdir(parents=True)
    corpus = write_corpus(
        tmp_path,
        {
            "fixtureRoots": {"api": "fixtures/api"},
            "retrieval": [
                {"name": "a", "query": "q", "repoFixture": "api", "expectedPrimary": "src/a.ts"},
                {"name": "b", "query": 3, "repoFixture": "api", "expectedPrimary": []},
                {"name": "c", "query": "q", "repoFixture": "api", "expectedPrimary": ["src/missing.ts"]},
            ],
        },
    )
    listed = validate_corpus(corpus)
    assert len(listed) >= 3  # two schema problems and a missing expected file
    with pytest.raises(CorpusError, match=rf"\(\+{len(listed) - 1} more; run `workbench validate`\)"):
        load_corpus(corpus)
    assert main(["validate", "--corpus", str(corpus)]) == 3
    assert f"{len(listed)} problem(s)" in capsys.readouterr().err


def test_baseline_record_of_a_multi_target_run_names_the_option_that_exists(tmp_path: Path) -> None:
    cases = pd.DataFrame(
        [{"suite": "retrieval", "target": t, "case": "c", "passed": True, "error": None} for t in ("builtin", "bm25")]
    )
    scores = pd.DataFrame(columns=["suite", "target", "case", "metric", "value"])
    run = Run(tmp_path, {"run_id": "r1", "corpus": {}}, {"suites": {}}, cases, scores)
    with pytest.raises(StoreError) as caught:
        record_baseline(run, "x", tmp_path / "corpus.json")
    assert "r1#<target>" in str(caught.value) and "--target" not in str(caught.value)


def test_tables_wrap_between_words_and_scroll_instead_of_cutting_columns() -> None:
    frame = pd.DataFrame([{"suite": "retrieval", **{f"target-{i}": "PASS (21/22 cases pass)" for i in range(3)}}])
    css = table(frame, "verdicts").to_html().replace(": ", ":")
    assert "overflow-wrap:anywhere" not in css and "overflow-wrap:break-word" in css
    assert "max-width:1400px" not in css and "overflow-x:auto" in css


def test_the_floors_chart_says_when_there_are_no_floors(tmp_path: Path) -> None:
    import workbench as wb

    summary = {
        "suites": {
            "retrieval": {
                "builtin": {"metrics": {"mrr": 0.5, "recallAtK": 1.0}, "thresholds": {}, "skipped": None},
            }
        }
    }
    cases = pd.DataFrame([{"suite": "retrieval", "target": "builtin", "case": "c", "passed": True, "error": None}])
    scores = pd.DataFrame(columns=["suite", "target", "case", "metric", "value"])
    run = Run(tmp_path, {"run_id": "r", "targets": [{"name": "builtin"}]}, summary, cases, scores)
    fig = wb.plots.floors(run)
    heading = fig._suptitle.get_text()  # type: ignore[union-attr]
    assert heading.startswith("Metrics (NO FLOORS") and fig.axes[0].get_title() == "retrieval (no floors)"
