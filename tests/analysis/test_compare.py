"""compare(): pairing by case, per-case labels, scipy agreement, gate verdicts, renderings, resolving sides."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from workbench.analysis import stats
from workbench.analysis.comparison import COMPARISON_COLUMNS, compare, resolve_side
from workbench.errors import CompareError, StoreError
from workbench.paths import Locations
from workbench.store.runs import Run, write_run


def make_run(
    run_id: str,
    values: dict[str, dict[str, dict[str, float]]],
    target: str = "builtin",
    passed: dict[tuple[str, str], bool] | None = None,
) -> Run:
    """A Run from {suite: {case: {metric: value}}}; a case passes when its first metric is >= 0.5."""
    scores, cases = [], []
    for suite, per_case in values.items():
        for case, metrics in per_case.items():
            scores += [
                {"suite": suite, "target": target, "case": case, "metric": m, "value": v} for m, v in metrics.items()
            ]
            ok = (passed or {}).get((suite, case), next(iter(metrics.values())) >= 0.5)
            cases.append({"suite": suite, "target": target, "case": case, "passed": ok, "error": None})
    manifest = {
        "run_id": run_id,
        "targets": [{"name": target, "spec": target, "version": "1"}],
        "corpus": {"path": "corpus/corpus.json", "sha256": "x"},
    }
    return Run(Path(run_id), manifest, {"suites": {}}, pd.DataFrame(cases), pd.DataFrame(scores))


def _ranking(seed: int, n: int, shift: float) -> tuple[Run, Run]:
    rng = np.random.default_rng(seed)
    ndcg = rng.random(n)
    recall = rng.random(n)
    a = {"ranking": {f"q{i}": {"ndcg@10": ndcg[i], "recall@20": recall[i]} for i in range(n)}}
    b = {
        "ranking": {
            f"q{i}": {"ndcg@10": min(1.0, ndcg[i] + shift + rng.normal(0, 0.05)), "recall@20": recall[i]}
            for i in range(n)
        }
    }
    return make_run("A", a), make_run("B", b)


def test_delta_is_b_minus_a_and_p_values_equal_scipy() -> None:
    a, b = _ranking(0, 22, 0.1)
    result = compare(a, b)
    row = result.comparisons.set_index("metric").loc["ndcg@10"]
    va = a.scores.query("metric == 'ndcg@10'")["value"].to_numpy()
    vb = b.scores.query("metric == 'ndcg@10'")["value"].to_numpy()
    assert row["delta"] == pytest.approx(np.mean(vb - va))
    assert row["p_t"] == pytest.approx(sps.ttest_rel(vb, va).pvalue, abs=1e-9)
    assert row["p_wilcoxon"] == pytest.approx(sps.wilcoxon(vb, va).pvalue, abs=1e-9)
    assert list(result.comparisons.columns) == COMPARISON_COLUMNS
    assert result.verdict == "PASS" and str(result.gate).startswith("primary=ndcg@10")


def test_case_labels_and_unscored_pairs() -> None:
    a = make_run(
        "A",
        {
            "retrieval": {
                "same": {"mrr": 1.0},
                "up": {"mrr": 0.5},
                "down": {"mrr": 1.0},
                "gone": {"mrr": 1.0},
                "fallback": {"mrr": np.nan},
            }
        },
    )
    b = make_run(
        "B",
        {
            "retrieval": {
                "same": {"mrr": 1.0},
                "up": {"mrr": 1.0},
                "down": {"mrr": 0.25},
                "added": {"mrr": 0.5},
                "fallback": {"mrr": np.nan},
            }
        },
    )
    result = compare(a, b)
    labels = result.cases.query("metric == 'mrr'").set_index("case")["status"].to_dict()
    assert labels == {
        "same": "unchanged",
        "up": "improved",
        "down": "regressed",
        "gone": "missing",
        "added": "new",
    }  # "fallback" is unscored on both sides: no value to compare, so not counted as unchanged
    assert "fallback" in set(result.cases.query("metric == 'passed'")["case"])
    row = result.comparisons.set_index("metric").loc["mrr"]
    assert row["n"] == 3 and row["delta"] == pytest.approx((0 + 0.5 - 0.75) / 3)
    assert (row["wins"], row["ties"], row["losses"]) == (1, 1, 1)
    assert result.verdict == "NO_GATE"  # no recallAtK: the retrieval preset does not apply


def test_pass_fail_row_uses_mcnemar_and_holm_covers_the_family() -> None:
    n = 20
    a_pass = [True] * 1 + [False] * 6 + [True] * 10 + [False] * 3
    b_pass = [False] * 1 + [True] * 6 + [True] * 10 + [False] * 3
    values_a = {"risk": {f"c{i}": {"accuracy": float(a_pass[i])} for i in range(n)}}
    values_b = {"risk": {f"c{i}": {"accuracy": float(b_pass[i])} for i in range(n)}}
    result = compare(make_run("A", values_a), make_run("B", values_b))
    rows = result.comparisons.set_index("metric")
    assert rows.loc["passed", "p_mcnemar"] == pytest.approx(16 / 128)
    assert np.isnan(rows.loc["accuracy", "p_mcnemar"])
    expected = stats.holm([rows.loc["accuracy", "p_t"], rows.loc["passed", "p_mcnemar"]])
    np.testing.assert_allclose(rows["p_holm"].to_numpy(), expected)


def test_reproducible_for_a_seed() -> None:
    a, b = _ranking(1, 40, 0.02)
    first, again, other = compare(a, b, seed=3), compare(a, b, seed=3), compare(a, b, seed=4)
    pd.testing.assert_frame_equal(first.comparisons, again.comparisons)
    assert not first.comparisons["ci_low"].equals(other.comparisons["ci_low"])


def test_gate_string_and_no_gate() -> None:
    a, b = _ranking(2, 30, 0.0)
    assert compare(a, b).verdict == "FAIL"
    assert compare(a, b, gate="none").verdict == "NO_GATE"
    assert compare(a, b, gate="go-code,noninferior=none,alpha=0.5").gate.alpha == 0.5
    with pytest.raises(CompareError, match="not compared"):
        compare(a, b, gate="primary=mrr")
    tiny_a, tiny_b = _ranking(3, 1, 0.3)
    assert compare(tiny_a, tiny_b).verdict == "INSUFFICIENT_DATA"


def test_multi_target_run_must_be_narrowed() -> None:
    a, b = _ranking(4, 10, 0.1)
    both = Run(
        Path("AB"),
        {"run_id": "AB", "targets": [{"name": "x"}, {"name": "y"}]},
        {"suites": {}},
        pd.concat([a.cases.assign(target="x"), b.cases.assign(target="y")], ignore_index=True),
        pd.concat([a.scores.assign(target="x"), b.scores.assign(target="y")], ignore_index=True),
    )
    with pytest.raises(CompareError, match="AB#<target>"):
        compare(both, a)
    result = compare(both.select("x"), both.select("y"))
    assert result.a == "AB#x" and result.b == "AB#y"


def test_json_object_is_strict_json_and_markdown_tells_the_story() -> None:
    a, b = _ranking(5, 22, 0.1)
    result = compare(a, b)
    payload = result.to_dict()
    text = json.dumps(payload, allow_nan=False)
    assert set(payload) >= {"verdict", "comparisons", "cases"} and "NaN" not in text
    first = payload["comparisons"][0]
    assert set(COMPARISON_COLUMNS) <= set(first) and first["p_mcnemar"] is None
    assert {c["status"] for c in payload["cases"]} <= {"improved", "regressed", "unchanged", "new", "missing"}
    md = str(result)
    assert "| ndcg@10" in md and "Gate [primary=ndcg@10" in md and ": PASS" in md
    assert "with 22 paired cases, a change smaller than" in md


def test_resolve_side_run_dir_run_id_target_and_baseline(tmp_path: Path) -> None:
    a, _ = _ranking(6, 5, 0.1)
    rows = a.cases.to_dict("records")
    path = write_run(tmp_path / "runs", "R1", dict(a.manifest), {"suites": {}}, rows, a.scores)
    assert resolve_side(str(path)).run_id == "R1"
    where = Locations(tmp_path / "runs", tmp_path / "baselines")
    assert resolve_side("R1", where).run_id == "R1"
    assert resolve_side("R1#builtin", where).targets == ["builtin"]
    with pytest.raises(StoreError, match="no target 'nope'"):
        resolve_side("R1#nope", where)
    with pytest.raises(StoreError, match="not a run directory"):
        resolve_side("missing", where)


def test_cli_compare_exit_codes_and_json(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from workbench.cli import main

    a, b = _ranking(7, 25, 0.1)
    for run in (a, b):
        write_run(
            tmp_path / "runs", run.run_id, dict(run.manifest), {"suites": {}}, run.cases.to_dict("records"), run.scores
        )
    common = ["--runs-dir", str(tmp_path / "runs")]
    assert main(["compare", "A", "B#builtin", *common]) == 0
    assert "Gate [primary=ndcg@10" in capsys.readouterr().out
    assert main(["compare", "B", "A", "--json", *common]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "FAIL"
    assert main(["compare", "B", "A", "--gate", "none", *common]) == 0
    assert main(["compare", "A", "nowhere", *common]) == 3
    assert main(["compare", "A", "B", "--gate", "primary=ndcg@10,wrong=1", *common]) == 3
    assert "unknown key 'wrong'" in capsys.readouterr().err


def test_workbench_compare_is_the_compare_function() -> None:
    import workbench

    a, b = _ranking(8, 6, 0.1)
    assert workbench.compare is compare and workbench.compare(a, b).verdict == compare(a, b).verdict
