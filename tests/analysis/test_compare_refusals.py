"""Comparisons refuse what they cannot judge: other corpora or k, no p-value without pairs, a gate
that cannot decide fails, regressions worded as regressions, one count for unchanged values."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import workbench as wb
from workbench.analysis import compare
from workbench.analysis.markdown import comparison_github, fit
from workbench.cli import main
from workbench.errors import CompareError
from workbench.store.runs import Run, write_run


def _run(run_id: str, values: dict[str, float], sha: str = "a" * 64, k: int = 5, metric: str = "mrr") -> Run:
    """A one-target retrieval run: case -> value of ``metric``; a case passes at >= 0.5."""
    scores = [
        {"suite": "retrieval", "target": "builtin", "case": c, "metric": metric, "value": v} for c, v in values.items()
    ]
    cases = [
        {"suite": "retrieval", "target": "builtin", "case": c, "passed": bool(v >= 0.5), "error": None}
        for c, v in values.items()
    ]
    manifest = {
        "run_id": run_id,
        "targets": [{"name": "builtin", "spec": "builtin", "version": "1"}],
        "corpus": {"path": "corpus.json", "sha256": sha, "k": k},
    }
    return Run(Path(run_id), manifest, {"suites": {}}, pd.DataFrame(cases), pd.DataFrame(scores))


def test_runs_of_different_corpora_are_refused() -> None:
    a, b = _run("A", {"x": 1.0, "y": 0.5}), _run("B", {"x": 1.0, "z": 0.5}, sha="b" * 64)
    with pytest.raises(CompareError, match="ran different corpora .*--on-shared-cases"):
        compare(a, b)


def test_on_shared_cases_compares_the_shared_names_and_says_how_many() -> None:
    a = _run("A", {"x": 1.0, "y": 0.5, "only-a": 0.0})
    b = _run("B", {"x": 0.5, "y": 0.5, "only-b": 1.0}, sha="b" * 64)
    result = compare(a, b, on_shared_cases=True)
    assert set(result.cases["case"]) == {"x", "y"}
    assert "compared on the 2 case(s) both share (A has 3, B has 3" in result.notes[0]
    assert result.notes[0] in result.to_markdown()


def test_different_k_is_refused_even_on_shared_cases() -> None:
    a, b = _run("A", {"x": 1.0}), _run("B", {"x": 1.0}, k=10)
    with pytest.raises(CompareError, match="k=5 .* k=10"):
        compare(a, b, on_shared_cases=True)


def test_a_row_without_pairs_prints_no_p_value() -> None:
    a = _run("A", {"x": 1.0, "y": np.nan})
    b = _run("B", {"x": np.nan, "y": 0.5})
    result = compare(a, b, gate="none")
    row = result.comparisons.set_index("metric").loc["mrr"]
    assert row["n"] == 0 and np.isnan(row["p_t"]) and np.isnan(row["p_wilcoxon"]) and np.isnan(row["p_randomization"])
    cells = next(line for line in result.to_markdown().splitlines() if line.startswith("| retrieval | mrr"))
    assert "| 1 |" not in cells and cells.count(" - ") >= 4
    mrr = next(r for r in result.to_dict()["comparisons"] if r["metric"] == "mrr")
    assert mrr["p_t"] is None and mrr["p_holm"] is None


def test_insufficient_data_under_a_gate_fails_and_says_how_many_pairs(tmp_path: Path, capsys) -> None:
    a = _run("A", {"x": 0.5}, metric="ndcg@10")
    b = _run("B", {"x": 1.0}, metric="ndcg@10")
    result = compare(a, b, gate="primary=ndcg@10,noninferior=none")
    assert result.verdict == "INSUFFICIENT_DATA" and result.failed
    assert "1 pair(s), need 2" in result.reason


def test_a_significant_regression_is_worded_as_a_regression() -> None:
    rng = np.random.default_rng(3)
    high = {f"c{i}": 1.0 for i in range(40)}
    low = {f"c{i}": float(v) for i, v in enumerate(rng.uniform(0.0, 0.2, 40))}
    result = compare(_run("A", high), _run("B", low), gate="primary=mrr,noninferior=none")
    assert result.verdict == "FAIL"
    assert result.reason.startswith("mrr regressed significantly (delta -0.")
    assert "did not improve" not in result.reason


def test_unchanged_values_are_counted_once() -> None:
    values = {"x": 1.0, "y": 0.5, "fallback": np.nan}
    result = compare(_run("A", values), _run("B", values))
    text = result.to_markdown()
    paired = int(result.cases[["value_a", "value_b"]].notna().all(axis=1).sum())
    assert f"{paired} unchanged" in text and f"all {paired} shared case-metric values" in text


def test_wb_compare_takes_the_specs_the_cli_takes(tmp_path: Path) -> None:
    paths = []
    for name, v in (("A", 0.5), ("B", 1.0)):
        run = _run(name, {"x": v, "y": v})
        rows = run.cases.to_dict("records")
        paths.append(write_run(tmp_path, f"2026-{name}", run.manifest, {"suites": {}}, rows, run.scores))
    result = wb.compare(str(paths[0]), f"{paths[1]}#builtin", gate="none")
    assert result.comparisons.set_index("metric").loc["mrr", "delta"] == pytest.approx(0.5)


def test_cli_compare_of_different_corpora_exits_3_and_markdown_fits(tmp_path: Path, capsys) -> None:
    paths = []
    for name, sha in (("A", "a" * 64), ("B", "b" * 64)):
        run = _run(name, {"x": 1.0, "y": 0.5}, sha=sha)
        paths.append(write_run(tmp_path, name, run.manifest, {"suites": {}}, run.cases.to_dict("records"), run.scores))
    assert main(["compare", str(paths[0]), str(paths[1]), "--runs-dir", str(tmp_path)]) == 3
    assert "ran different corpora" in capsys.readouterr().err
    code = main(
        ["compare", str(paths[0]), str(paths[1]), "--on-shared-cases", "--format", "markdown", "--gate", "none"]
    )
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("### workbench compare: UNCHANGED") and "| retrieval | mrr |" in out
    assert main(["compare", str(paths[0]), str(paths[1]), "--on-shared-cases", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "UNCHANGED"


def test_markdown_is_cut_to_the_limit_keeping_the_verdict() -> None:
    rows = [f"| row {i} | {'x' * 50} |" for i in range(3000)]
    text = fit(["### heading", "| a | b |", "| --- | --- |"], rows, ["", "**Overall: FAIL (exit 1)**"], where="see x")
    assert len(text) <= 65_000 and text.startswith("### heading") and text.endswith("**Overall: FAIL (exit 1)**")
    shown = sum(line.startswith("| row") for line in text.splitlines())
    assert f"_Table truncated: {shown} of 3000 rows shown; see x._" in text and 0 < shown < 3000
    big = compare(_run("A", {f"c{i}": 1.0 for i in range(5)}), _run("B", {f"c{i}": 0.0 for i in range(5)}))
    assert len(comparison_github(big, limit=400)) <= 400
