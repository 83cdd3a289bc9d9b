"""The retrieval page for big corpora: shapes from mined cases, worst first, one searchable table offline."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

import workbench as wb
from tests.report_runs import build_run


def test_case_shapes_prefer_the_cases_own_shape() -> None:
    rows = pd.DataFrame(
        {"query": ["GET /api/users", "fix the parser", "GET /x"], "shape": ["words-only", None, float("nan")]}
    )
    assert list(wb.views.case_shapes(rows)) == ["words-only", "short", "route"]


def test_case_table_has_every_case_worst_first_and_loads_nothing_from_the_network(tmp_path: Path) -> None:
    run = wb.views.open_run(build_run(tmp_path / "runs", suites=("retrieval",), scale=3))
    frame = wb.views.case_frame(run)
    rows = run.cases[(run.cases.suite == "retrieval") & (run.cases.target == "builtin")]
    assert sorted(frame["case"]) == sorted(rows["case"])
    assert {"pass builtin", "RR bm25", "nDCG random", "repository", "shape"} <= set(frame.columns)
    verdicts = list(frame["pass builtin"])
    assert verdicts == sorted(verdicts, key=lambda v: v != "FAIL")  # every failure before any pass
    failing = frame[frame["pass builtin"] == "FAIL"]
    assert list(failing["nDCG builtin"].fillna(-1)) == sorted(failing["nDCG builtin"].fillna(-1))
    page = str(wb.views.retrieval_table(run))
    assert "retrieval-cases-all" in page and not re.search(r"<script[^>]*\bsrc=", page)
    assert not re.search(r"import[^;]*https?://", page)
    assert all(name in page for name in frame["case"])  # all rows embedded, none downsampled away


def test_worst_cases_view_is_capped(tmp_path: Path) -> None:
    run = wb.views.open_run(build_run(tmp_path / "runs", suites=("retrieval",), scale=3))
    styler = wb.views.retrieval_cases(run, "builtin", limit=5)
    assert len(styler.data) == 5 and "worst shown" in styler.caption
    builtin = run.cases[(run.cases.suite == "retrieval") & (run.cases.target == "builtin")]
    assert (styler.data["result"] == "FAIL").sum() == min(5, int((~builtin.passed.astype(bool)).sum()))
