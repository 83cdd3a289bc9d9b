"""The display helpers behind the report notebooks: tables, notes, breakdowns, baseline diffs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import workbench as wb
from workbench.columns import CASE, ERROR, METRIC, PASSED, SUITE, TARGET, VALUE
from workbench.report.text import verdict_text
from workbench.report.views import Note
from workbench.store.runs import write_run

from ..report_runs import build_run


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> wb.Run:
    return wb.views.open_run(build_run(tmp_path_factory.mktemp("runs")))


def tiny_run(
    root: Path,
    rows: list[dict],
    scores: list[dict],
    run_id: str = "tiny",
    k: int = 5,
    targets: tuple[str, ...] = ("builtin",),
    suites: dict | None = None,
) -> Path:
    """A hand-made run whose every value a test can predict."""
    summary = {
        "passed": False,
        "suites": suites
        or {
            "retrieval": {
                t: {
                    "cases": 2,
                    "passed_cases": 1,
                    "metrics": {"mrr": 0.5},
                    "thresholds": {"mrr": 0.9},
                    "passed": False,
                    "failures": ["mrr 0.500 < 0.9"],
                    "skipped": None,
                }
                for t in targets
            }
        },
    }
    manifest = {
        "run_id": run_id,
        "created": "2026-11-30T00:00:00Z",
        "corpus": {"path": "c.json", "k": k},
        "targets": [{"name": t} for t in targets],
    }
    return write_run(root, run_id, manifest, summary, rows, pd.DataFrame(scores))


def retrieval_row(case: str, passed: bool, ranks: dict, target: str = "builtin", **extra) -> dict:
    return {
        SUITE: "retrieval",
        TARGET: target,
        CASE: case,
        PASSED: passed,
        ERROR: None,
        "seconds": 0.1,
        "query": extra.pop("query", "list orders"),
        "fixtures": extra.pop("fixtures", ["api"]),
        "fallback": not ranks,
        "expected": list(ranks),
        "expectedAnyOf": [],
        "returned": extra.pop("returned", []),
        "related": [],
        "expected_ranks": ranks,
        "any_of_hit": None,
        "reasons": {},
        **extra,
    }


def test_absent_suite_is_one_note_not_an_error(synthetic: wb.Run) -> None:
    for shown in (
        wb.views.harness_commands(synthetic),
        wb.views.gate_matrix(synthetic),
        wb.views.group_metrics(synthetic, "gate", "verdict"),
    ):
        assert isinstance(shown, Note)
        assert "not run" in shown.text and shown._repr_html_().count("<p") == 1


def test_skipped_suite_note_gives_the_reason(tmp_path: Path) -> None:
    suites = {"risk": {"builtin": {"cases": 0, "skipped": "target lacks capability 'risk_concepts'", "metrics": {}}}}
    run = wb.views.open_run(tiny_run(tmp_path, [retrieval_row("a", True, {"x.ts": 1})], [], suites=suites))
    note = wb.views.risk_cases(run)
    assert isinstance(note, Note) and "lacks capability 'risk_concepts'" in note.text


def test_verdicts_cover_every_suite_and_target_including_recorded_agents(synthetic: wb.Run) -> None:
    frame = wb.views.verdicts(synthetic).data
    assert list(frame["suite"]) == list(synthetic.summary["suites"])
    assert {"builtin", "bm25 (control)", "random (control)", "reviewer-a", "reviewer-b"} <= set(frame.columns)
    findings = frame.set_index("suite").loc["findings"]
    assert findings["builtin"] == "-"
    assert findings["reviewer-a"] == verdict_text(synthetic.summary["suites"]["findings"]["reviewer-a"])


def test_floors_table_matches_the_summary(synthetic: wb.Run) -> None:
    frame = wb.views.floors(synthetic).data.set_index(["suite", "metric"])
    summary = synthetic.summary["suites"]["retrieval"]["builtin"]
    assert frame.loc[("retrieval", "mrr"), "builtin"] == pytest.approx(summary["metrics"]["mrr"])
    assert frame.loc[("retrieval", "mrr"), "floor"] == summary["thresholds"]["mrr"]
    assert pd.isna(frame.loc[("retrieval", "ndcgAtK"), "floor"])


def test_leaderboard_counts_cases_and_ranks_by_pass_rate(synthetic: wb.Run) -> None:
    frame = wb.views.leaderboard(synthetic).data.set_index(TARGET)
    cases = synthetic.cases
    mine = cases[cases[TARGET] == "builtin"]
    assert frame.loc["builtin", "cases"] == len(mine)
    assert frame.loc["builtin", "passed"] == int(mine[PASSED].sum())
    assert frame.loc["bm25", "role"] == "control" and frame.loc["builtin", "role"] == "candidate"
    assert list(frame["pass rate"]) == sorted(frame["pass rate"], reverse=True)


def test_failures_explain_why(tmp_path: Path) -> None:
    rows = [
        retrieval_row("far", False, {"src/a.ts": 7}, returned=["x.ts"] * 7),
        retrieval_row("gone", False, {"src/b.ts": None}),
        retrieval_row("ok", True, {"src/c.ts": 1}),
        {**retrieval_row("boom", False, {"src/d.ts": None}), ERROR: "TargetError: engine crashed"},
    ]
    run = wb.views.open_run(tiny_run(tmp_path, rows, []))
    why = wb.views.failures(run).data.set_index(CASE)["why"]
    assert why["far"] == "outside top 5: src/a.ts at rank 7"
    assert why["gone"] == "outside top 5: src/b.ts not returned"
    assert why["boom"] == "error: TargetError: engine crashed"
    assert "ok" not in why.index


def test_failures_note_when_everything_passed(tmp_path: Path) -> None:
    run = wb.views.open_run(tiny_run(tmp_path, [retrieval_row("ok", True, {"a.ts": 1})], []))
    assert wb.views.failures(run).text == "Every case of builtin passed."


def test_retrieval_cases_show_ranks_marks_and_failures_first(tmp_path: Path) -> None:
    rows = [
        retrieval_row("a-pass", True, {"src/a.ts": 1}, returned=["src/a.ts", "src/z.ts"]),
        retrieval_row("b-fail", False, {"src/b.ts": 7}, returned=["src/z.ts"]),
    ]
    run = wb.views.open_run(tiny_run(tmp_path, rows, []))
    frame = wb.views.retrieval_cases(run).data
    assert list(frame[CASE]) == ["b-fail", "a-pass"]
    first = frame.set_index(CASE).loc["a-pass"]
    assert first["returned (top 5)"] == "1. src/a.ts  ✓\n2. src/z.ts"
    assert first["expected (rank)"] == "src/a.ts  #1"
    assert frame.set_index(CASE).loc["b-fail", "expected (rank)"] == "src/b.ts  #7  (outside top 5)"


@pytest.mark.parametrize(
    "query, shape",
    [
        ("GET /api/orders/:id", "route"),
        ("fix the /users/{id} handler", "route"),
        ("TypeError: cannot read property 'id' of undefined", "error message"),
        ("where is checkout.service.ts", "file name"),
        ("usersService", "identifier"),
        ("users_service", "identifier"),
        ("refund a payment", "short"),
        ("how does the refund flow reach the ledger", "sentence"),
        (None, "short"),
    ],
)
def test_query_shape(query: str, shape: str) -> None:
    assert wb.views.query_shape(query) == shape


def test_group_and_rank_breakdowns(tmp_path: Path) -> None:
    rows = [
        retrieval_row("a", True, {"x.ts": 1}, fixtures=["api"]),
        retrieval_row("b", False, {"y.ts": 6, "z.ts": None}, fixtures=["api", "web"]),
    ]
    scores = [
        {SUITE: "retrieval", TARGET: "builtin", CASE: c, METRIC: "mrr", VALUE: v} for c, v in (("a", 1.0), ("b", 0.0))
    ]
    run = wb.views.open_run(tiny_run(tmp_path, rows, scores))
    by_fixture = wb.views.retrieval_by_fixture(run).data.set_index("fixture")
    assert by_fixture.loc["api", "mrr"] == 1.0 and by_fixture.loc["api+web", "pass rate"] == 0.0
    counts = wb.views.rank_counts(run).loc["builtin"]
    assert (counts["1"], counts[">5"], counts["not returned"], counts["2"]) == (1, 1, 1, 0)
    # a list-valued field counts the case once per element
    per_repo = wb.views.group_metrics(run, "retrieval", "fixtures").data.set_index("fixtures")
    assert per_repo.loc["api", "cases"] == 2 and per_repo.loc["web", "cases"] == 1
    assert isinstance(wb.views.group_metrics(run, "retrieval", "language"), Note)


def test_risk_confusion_counts_labels(synthetic: wb.Run) -> None:
    counts = wb.views.concept_counts(synthetic)
    rows = synthetic.cases[(synthetic.cases[SUITE] == "risk") & (synthetic.cases[TARGET] == "builtin")]
    labels = [label for case in rows["labels"] for label in case]
    assert counts[["tp", "fn", "fp", "tn"]].to_numpy().sum() == len(labels)
    expected_hits = sum(1 for label in labels if label["expected"] and label["returned"])
    assert counts["tp"].sum() == expected_hits
    assert ((counts["precision"] >= 0) | counts["precision"].isna()).all()


def test_findings_per_rule_counts_matched_extra_missed(synthetic: wb.Run) -> None:
    frame = wb.views.findings_by_rule(synthetic).data
    rows = synthetic.cases[synthetic.cases[SUITE] == "findings"]
    assert frame["tp"].sum() == sum(len(m) for m in rows["matched"])
    assert frame["fn"].sum() == sum(len(m) for m in rows["missed"])
    assert set(frame["agent"]) == {"reviewer-a", "reviewer-b"}


def test_gate_matrix_and_harness_commands_read_item_lists(tmp_path: Path) -> None:
    gate = {
        SUITE: "gate",
        TARGET: "builtin",
        CASE: "secret",
        PASSED: False,
        ERROR: None,
        "seconds": 1.0,
        "expectedVerdict": "FAIL",
        "verdict": "PASS",
        "checks": [{"name": "Secret safety", "status": "PASS"}, {"name": "Changelog", "status": "WARN"}],
    }
    harness = {
        SUITE: "harness",
        TARGET: "builtin",
        CASE: "node",
        PASSED: True,
        ERROR: None,
        "seconds": 2.0,
        "commands": [{"command": "npm test", "group": "validate", "passed": True, "exitCode": 0}],
    }
    suites = {"gate": {"builtin": {"cases": 1}}, "harness": {"builtin": {"cases": 1}}}
    run = wb.views.open_run(tiny_run(tmp_path, [gate, harness], [], suites=suites))
    matrix = wb.views.gate_matrix(run).data.set_index(CASE)
    assert matrix.loc["secret", ["Secret safety", "Changelog", "expectedVerdict", "verdict"]].tolist() == [
        "PASS",
        "WARN",
        "FAIL",
        "PASS",
    ]
    commands = wb.views.harness_commands(run).data
    assert commands.loc[0, "command"] == "npm test" and commands.loc[0, "exitCode"] == "0"


def test_latency_quantiles(tmp_path: Path) -> None:
    rows = [{**retrieval_row(f"c{i}", True, {"a.ts": 1}), "seconds": float(i)} for i in range(1, 11)]
    run = wb.views.open_run(tiny_run(tmp_path, rows, []))
    frame = wb.views.latency(run, "retrieval").data.iloc[0]
    assert (frame["cases"], frame["mean"], frame["p50"], frame["max"]) == (10, 5.5, 5.5, 10.0)


def test_open_run_defaults_to_the_latest_and_finds_runs_from_notebooks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "reports" / "runs"
    tiny_run(runs, [retrieval_row("a", True, {"a.ts": 1})], [], run_id="older")
    newest = tiny_run(runs, [retrieval_row("a", True, {"a.ts": 1})], [], run_id="newer")
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    assert wb.views.open_run().path == newest.resolve()
    assert wb.views.open_run("reports/runs/older").run_id == "older"
    assert wb.views.open_run(None) is wb.views.open_run(None)


def test_open_baseline_without_spec_or_with_a_bad_one_is_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert "No baseline given" in wb.views.open_baseline(None).text
    assert "unavailable" in wb.views.open_baseline("no-such-baseline").text
    run = wb.views.open_run(tiny_run(tmp_path, [retrieval_row("a", True, {"a.ts": 1})], []))
    assert isinstance(wb.views.compare_runs(run, wb.views.open_baseline(None)), Note)
    assert "no 'bm25' target" in wb.views.compare_runs(run, None, against="bm25").text


def test_case_changes_against_a_baseline(tmp_path: Path) -> None:
    def side(run_id: str, passed: dict[str, bool]) -> wb.Run:
        rows = [retrieval_row(c, p, {"a.ts": 1 if p else None}) for c, p in passed.items()]
        scores = [
            {SUITE: "retrieval", TARGET: "builtin", CASE: c, METRIC: "mrr", VALUE: float(p)} for c, p in passed.items()
        ]
        return wb.views.open_run(tiny_run(tmp_path, rows, scores, run_id=run_id))

    base = side("base", {"kept": True, "broken": True, "fixed": False, "dropped": True})
    run = side("cand", {"kept": True, "broken": False, "fixed": True, "added": True})
    comparison = wb.views.compare_runs(run, base)
    status = wb.views.case_status(comparison).set_index(CASE)["status"]
    assert status.to_dict() == {
        "kept": "unchanged",
        "broken": "regressed",
        "fixed": "improved",
        "dropped": "missing",
        "added": "new",
    }
    regressed = wb.views.changed_cases(comparison, "regressed").data.set_index(CASE)
    assert regressed.loc["broken", "changes"] == "mrr 1.000 -> 0.000; PASS -> FAIL"
    assert wb.views.changed_cases(comparison, "mixed").text == "No mixed cases."
    counts = wb.views.change_counts(comparison).data.set_index(SUITE).loc["retrieval"]
    assert (counts["regressed"], counts["improved"], counts["new"], counts["missing"]) == (1, 1, 1, 1)
    assert wb.views.compare_runs(run, base) is comparison
    cases_only = wb.views.diff_runs(run, base)
    assert not hasattr(cases_only, "comparisons") and cases_only.cases.equals(comparison.cases)
    assert wb.views.case_status(cases_only).equals(wb.views.case_status(comparison))
    assert wb.views.case_status(comparison) is wb.views.case_status(comparison)  # one per comparison
    assert wb.views.diff_runs(run, base) is cases_only
    assert "No target 'nope'" in wb.views.diff_runs(run, base, "nope").text
    assert "No baseline given" in wb.views.diff_runs(run, wb.views.open_baseline(None)).text


def test_case_listings_need_no_statistics(tmp_path: Path) -> None:
    """diff_runs never imports scipy: only the significance and baseline-diff pages pay for it."""
    run = build_run(tmp_path, suites=("retrieval", "risk"))
    code = (
        f"import sys, workbench as wb; run = wb.views.open_run({str(run)!r}); "
        f"base = wb.views.open_baseline({str(run) + '#bm25'!r}); d = wb.views.diff_runs(run, base); "
        f"wb.views.change_counts(d).to_html(); wb.views.changed_cases(d, 'regressed'); "
        f"print(len(d.cases) > 0, 'scipy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.split() == ["True", "False"]


def test_significance_tables_from_a_comparison(synthetic: wb.Run) -> None:
    comparison = wb.views.compare_runs(synthetic, None, against="bm25")
    assert comparison.a.endswith("#bm25") and comparison.b.endswith("#builtin")
    p = wb.views.p_values(comparison).data
    assert {"p_t", "p_wilcoxon", "p_randomization", "p_holm", "after Holm"} <= set(p.columns)
    assert set(p["after Holm"]) <= {"yes", "no", "-"}
    mde = wb.views.detectable_effect(comparison).data
    assert (mde[METRIC] != PASSED).all() and (mde["MDE (SD units)"] > 0).all()
    verdict = wb.views.gate_verdict(comparison)
    assert comparison.verdict in verdict


def test_styled_tables_render_identically(synthetic: wb.Run) -> None:
    first = wb.views.verdicts(synthetic).to_html()
    assert first == wb.views.verdicts(synthetic).to_html()
    assert 'id="T_verdicts' in first


@pytest.mark.parametrize(
    "row, why",
    [
        (
            {
                SUITE: "gate",
                "verdict": "PASS",
                "expectedVerdict": "FAIL",
                "missing": ["Secret safety: expected FAIL, got PASS"],
                "unexpectedFails": ["Changelog"],
            },
            "verdict PASS (expected FAIL); Secret safety: expected FAIL, got PASS; unexpected FAIL: Changelog",
        ),
        (
            {
                SUITE: "harness",
                "commands": [
                    {"command": "npm test", "passed": False, "reason": "exit 1"},
                    {"command": "npm install", "passed": True},
                ],
            },
            "npm test: exit 1",
        ),
        (
            {
                SUITE: "findings",
                "missed": [["sql-injection", "a.go"]],
                "extra": [],
                "verdict": "WARN",
                "expected_verdict": "BLOCK",
            },
            "missed sql-injection in a.go; verdict WARN (expected BLOCK)",
        ),
        (
            {SUITE: "ranking", "expected": [["a.go", "Run"], ["b.go", None]], "expected_ranks": [3, None]},
            "not in the top 20: b.go",
        ),
        ({SUITE: "risk", "missing": ["secret"], "unexpected": []}, "missing secret"),
        (
            {SUITE: "tokens", "savings": -0.5, "recallAtK": 1.0, "primary": ["a.ts"]},
            "pack not smaller than the dump (savings -0.50)",
        ),
        ({SUITE: "unknown"}, "did not pass"),
    ],
)
def test_explain_names_the_reason(row: dict, why: str) -> None:
    assert wb.views.explain(row, 5) == why
