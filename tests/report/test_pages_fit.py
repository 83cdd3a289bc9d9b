"""Pages that fit what was run: absent suites are one line, no foreign columns, no contradictory headline."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from workbench.analysis.comparison import compare
from workbench.report.pages import split_pages
from workbench.report.render import write_index
from workbench.report.views.common import suite_rows
from workbench.report.views.diff import changed_cases
from workbench.report.views.scoreboard import headline
from workbench.store.runs import Run

from ..analysis.test_compare import make_run


def _summary(**suites: dict) -> dict:
    return {"passed": True, "suites": suites}


def test_pages_whose_suites_did_not_run_are_left_out_with_one_line(tmp_path: Path) -> None:
    sources = [Path(f"{n}.ipynb") for n in ("scoreboard", "retrieval", "classifiers", "ranking", "mine")]
    summary = _summary(retrieval={"builtin": {"skipped": None}}, ranking={"builtin": {"skipped": "lacks search"}})
    keep, left_out = split_pages(sources, summary)
    assert [p.stem for p in keep] == ["scoreboard", "retrieval", "mine"]
    assert left_out == {
        "classifiers": "not rendered: this run has no risk, harness, gate, findings results",
        "ranking": "not rendered: this run has no ranking results",
    }
    run = Run(tmp_path, {"run_id": "r"}, summary, pd.DataFrame(), pd.DataFrame())
    index = write_index(run, [], tmp_path, left_out).read_text()
    assert "ranking: not rendered: this run has no ranking results" in index


def test_a_suite_one_side_did_not_run_is_one_line() -> None:
    base = make_run("base", {"retrieval": {"a": {"mrr": 1.0}}, "risk": {f"r{i}": {"accuracy": 1.0} for i in range(57)}})
    run = make_run("run", {"retrieval": {"a": {"mrr": 1.0}, "b": {"mrr": 0.5}}})
    comparison = compare(base, run, gate="none")
    missing = str(changed_cases(comparison, "missing"))
    assert missing.count("r1") == 0 and "Not in this run: risk (57 case(s))." in missing
    partial = make_run("partial", {"retrieval": {"a": {"mrr": 1.0}}, "risk": {"r0": {"accuracy": 1.0}}})
    shown = changed_cases(compare(base, partial, gate="none"), "missing")
    assert len(shown.data) == 56 and "Not in this run" not in (shown.caption or "")  # risk ran: cases listed


def test_suite_rows_leave_out_other_suites_columns(tmp_path: Path) -> None:
    cases = pd.DataFrame(
        [
            {
                "suite": "gate",
                "target": "builtin",
                "case": "g",
                "passed": True,
                "error": None,
                "expectedVerdict": "PASS",
            },
            {
                "suite": "findings",
                "target": "agent",
                "case": "f",
                "passed": True,
                "error": None,
                "expected_verdict": "BLOCK",
            },
        ]
    )
    run = Run(tmp_path, {"run_id": "r"}, _summary(gate={"builtin": {}}, findings={"agent": {}}), cases, pd.DataFrame())
    rows = suite_rows(run, "gate")
    assert "expectedVerdict" in rows.columns and "expected_verdict" not in rows.columns
    assert "error" in rows.columns  # empty, but every suite's own


def test_headline_never_says_every_suite_passes_beside_failing_cases(tmp_path: Path) -> None:
    cases = pd.DataFrame(
        [{"suite": "gate", "target": "builtin", "case": f"c{i}", "passed": False, "error": None} for i in range(4)]
    )
    summary = _summary(gate={"builtin": {"passed": True, "skipped": None, "thresholds": {"caseAccuracy": 0.5}}})
    text = str(
        headline(Run(tmp_path, {"run_id": "r", "targets": [{"name": "builtin"}]}, summary, cases, pd.DataFrame()))
    )
    assert "passes every suite" not in text
    assert "meets the floors of all 1 suite(s) it ran; 0 of its 4 case(s) pass." in text
    skipped = _summary(gate={"builtin": {"passed": None, "skipped": "lacks gate"}})
    text = str(
        headline(
            Run(tmp_path, {"run_id": "r", "targets": [{"name": "builtin"}]}, skipped, cases.iloc[:0], pd.DataFrame())
        )
    )
    assert "ran no suite" in text


def test_change_counts_leave_one_sided_suites_to_one_line() -> None:
    from workbench.report import plots
    from workbench.report.views.diff import change_counts

    base = make_run("base", {"retrieval": {"a": {"mrr": 1.0}}, "risk": {f"r{i}": {"accuracy": 1.0} for i in range(57)}})
    run = make_run("run", {"retrieval": {"a": {"mrr": 0.5}}})
    counts = change_counts(compare(base, run, gate="none"))
    assert list(counts.data["suite"]) == ["retrieval"] and counts.caption == "risk: not in this run."
    assert len(plots.change_counts(compare(base, run, gate="none")).axes[0].get_yticklabels()) == 1


def test_a_page_lists_only_its_own_suites_regressions() -> None:
    base = make_run(
        "base",
        {"retrieval": {"a": {"mrr": 1.0}}, "risk": {"r": {"accuracy": 1.0}}, "gate": {"g": {"caseAccuracy": 1.0}}},
    )
    run = make_run(
        "run",
        {"retrieval": {"a": {"mrr": 0.0}}, "risk": {"r": {"accuracy": 0.0}}, "gate": {"g": {"caseAccuracy": 1.0}}},
    )
    comparison = compare(base, run, gate="none")
    own = changed_cases(comparison, "regressed", suite=("risk", "harness", "gate", "findings"))
    assert list(own.data["suite"]) == ["risk"] and own.caption == "1 regressed risk/harness/gate/findings case(s)"
    assert list(changed_cases(comparison, "regressed", suite="retrieval").data["case"]) == ["a"]
    assert sorted(changed_cases(comparison, "regressed").data["suite"]) == ["retrieval", "risk"]


def test_a_section_whose_suite_did_not_run_says_so_once(tmp_path: Path) -> None:
    """The classifiers page shows three views of risk: the first says the suite was not run, the
    others (``quiet=True`` in the notebook) show nothing rather than the same line again."""
    import json

    import workbench as wb

    from ..conftest import REPO_ROOT

    cases = pd.DataFrame(columns=["suite", "target", "case", "passed", "error"])
    run = Run(
        tmp_path,
        {"run_id": "r", "targets": [{"name": "builtin"}]},
        _summary(gate={"builtin": {}}),
        cases,
        pd.DataFrame(),
    )
    shown = [
        str(wb.views.risk_confusion(run, "builtin")),
        str(wb.plots.risk_confusion(run, "builtin", quiet=True)),
        str(wb.views.risk_cases(run, "builtin", quiet=True)),
    ]
    assert "No risk results in this run" in shown[0] and shown[1:] == ["", ""]
    assert "No findings results" in str(wb.views.findings_by_agent(run)) and not wb.views.findings_by_rule(
        run, quiet=True
    )
    notebook = json.loads((REPO_ROOT / "notebooks" / "classifiers.ipynb").read_text())
    calls = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    for later in ("wb.plots.risk_confusion(", "wb.views.risk_cases(", "wb.views.findings_by_rule("):
        assert [c for c in calls if c.startswith(later)] == [
            c for c in calls if c.startswith(later) and "quiet=True" in c
        ]
