"""Metric direction and unchanged comparisons: a smaller pack is an improvement; A vs A is UNCHANGED."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.analysis.comparison import compare
from workbench.analysis.gates import GateRule
from workbench.analysis.regressions import regressed_metrics
from workbench.cli import main
from workbench.report.views.diff import describe, gate_verdict

from .test_compare import make_run


def _packs(n: int = 12) -> tuple:
    """Tokens suite: B packs far fewer tokens than A at the same recall."""
    rng = np.random.default_rng(3)
    big = rng.integers(1500, 2500, n).astype(float)
    a = {"tokens": {f"c{i}": {"recallAtK": 1.0, "pack_tokens": big[i], "savings": 0.5} for i in range(n)}}
    b = {"tokens": {f"c{i}": {"recallAtK": 1.0, "pack_tokens": 148.0 + i, "savings": 0.9} for i in range(n)}}
    return make_run("A", a), make_run("B", b)


def test_a_smaller_pack_is_an_improvement() -> None:
    a, b = _packs()
    result = compare(a, b, gate="none")
    rows = result.comparisons.set_index("metric")
    assert rows.loc["pack_tokens", "delta"] < 0 and not rows.loc["pack_tokens", "higher_is_better"]
    assert (rows.loc["pack_tokens", "wins"], rows.loc["pack_tokens", "losses"]) == (12, 0)
    assert rows.loc["savings", "higher_is_better"] and rows.loc["savings", "wins"] == 12
    status = result.cases[result.cases["metric"] == "pack_tokens"]["status"]
    assert set(status) == {"improved"}
    payload = result.to_dict()
    assert all("higher_is_better" in row for row in payload["comparisons"] + payload["cases"])
    assert "regressed" not in result.to_markdown().split("Per-case values:")[1].split("\n")[1]


def test_the_gate_reads_direction() -> None:
    a, b = _packs()
    rule = GateRule(primary="pack_tokens", noninferior="recallAtK", suite="tokens")
    forward, backward = compare(a, b, gate=rule), compare(b, a, gate=rule)
    assert forward.verdict == "PASS" and "pack_tokens improved significantly" in forward.reason
    assert backward.verdict == "FAIL" and backward.reason.startswith(
        "pack_tokens regressed significantly (delta +1733.333"
    )


def test_baseline_regressions_follow_direction() -> None:
    a, b = _packs()
    smaller = compare(a, b, gate="none").to_dict()["comparisons"]
    assert regressed_metrics(smaller) == []  # the pack shrank and savings rose: nothing regressed
    larger = compare(b, a, gate="none").to_dict()["comparisons"]
    assert sorted(r["metric"] for r in regressed_metrics(larger)) == ["pack_tokens", "savings"]


def test_identical_sides_are_unchanged_with_a_sentence() -> None:
    a = make_run("A", {"ranking": {f"q{i}": {"ndcg@10": i / 10, "recall@20": 1.0} for i in range(8)}})
    result = compare(a, a)
    assert result.verdict == "UNCHANGED" and not result.failed
    assert result.reason.startswith("Every paired difference is zero") and result.reason.endswith("nothing changed.")
    page = str(gate_verdict(result))
    assert "UNCHANGED" in page and "nothing changed" in page
    assert "Nothing changed" in str(describe(result))
    b = make_run(
        "B", {"ranking": {f"q{i}": {"ndcg@10": i / 10 + (0.1 if i == 3 else 0), "recall@20": 1.0} for i in range(8)}}
    )
    assert compare(a, b).verdict == "FAIL"  # one case moved: the gate decides, with its own sentence
    assert compare(a, b).reason.startswith("ndcg@10 did not improve significantly")


@pytest.mark.parametrize("verdict_input", ["go-code", "none"])
def test_every_verdict_has_one_sentence(verdict_input) -> None:
    a, b = (
        make_run("A", {"ranking": {"q0": {"ndcg@10": 0.1, "recall@20": 1.0}}}),
        make_run("B", {"ranking": {"q0": {"ndcg@10": 0.5, "recall@20": 1.0}}}),
    )
    result = compare(a, b, gate=verdict_input)
    assert result.reason.endswith(".") and result.reason.count(". ") == 0
    assert result.verdict == ("INSUFFICIENT_DATA" if verdict_input == "go-code" else "NO_GATE")


def test_compare_run_with_itself_exits_0(tmp_path) -> None:
    from workbench.store.runs import write_run

    a = make_run("A", {"ranking": {f"q{i}": {"ndcg@10": i / 10, "recall@20": 1.0} for i in range(8)}})
    path = write_run(
        tmp_path, "run-a", a.manifest, {"suites": {}, "passed": True}, a.cases.to_dict("records"), a.scores
    )
    assert main(["compare", str(path), str(path)]) == 0
