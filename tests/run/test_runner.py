"""End to end: corpus -> runner -> run directory -> load_run, with a protocol engine."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from workbench.cli import main
from workbench.columns import SCORE_COLUMNS
from workbench.corpus import load_corpus
from workbench.errors import RunError, RunStopped
from workbench.run.runner import RunOptions, run
from workbench.run.summary import overall
from workbench.store.runs import Run, load_run

from ..conftest import engine_spec

ANSWERS = {
    "list orders": ["src/users.ts", "src/orders.ts"],  # hit at rank 2 of 2 returned
    "find users": ["src/users.ts"],  # perfect, but expectedAnyOf missing
    "zzz": ["src/index.ts"],  # fallback: non-empty pack passes
    "orders client": ["api/src/orders.ts", "web/src/client.ts", "api/src/orders.ts"],
}


def _run(tiny_corpus: Path, tmp_path: Path, monkeypatch, **options) -> Run:
    spec = engine_spec(ANSWERS, monkeypatch)
    opts = RunOptions(targets=[spec], out_dir=tmp_path / "runs", progress=False, timeout=5, **options)
    return run(load_corpus(tiny_corpus), opts)


def test_retrieval_scores_follow_the_seed_rules(tiny_corpus, tmp_path, monkeypatch) -> None:
    result = _run(tiny_corpus, tmp_path, monkeypatch)
    scores = result.scores.pivot_table(index="case", columns="metric", values="value", dropna=False)
    assert scores.loc["orders", "precisionAtK"] == pytest.approx(0.5)  # 1 relevant of 2 returned
    assert scores.loc["orders", "mrr"] == pytest.approx(0.5)
    assert scores.loc["users", "precisionAtK"] == 1.0
    assert scores.loc["pair", "precisionAtK"] == pytest.approx(0.5)  # duplicate counted once
    assert scores.loc["fallback"].isna().all()  # excluded from means
    metrics = result.summary["suites"]["retrieval"][result.targets[0]]["metrics"]
    assert metrics["precisionAtK"] == pytest.approx((0.5 + 1 + 0.5) / 3)
    assert metrics["mrr"] == pytest.approx((0.5 + 1 + 1) / 3)
    passed = result.cases.set_index("case")["passed"].to_dict()
    assert passed == {"orders": True, "users": False, "fallback": True, "pair": True}


def test_run_directory_contract(tiny_corpus, tmp_path, monkeypatch) -> None:
    result = _run(tiny_corpus, tmp_path, monkeypatch)
    names = sorted(p.name for p in result.path.iterdir())
    assert names == ["cases.jsonl", "manifest.json", "scores.parquet", "summary.json"]
    manifest = json.loads((result.path / "manifest.json").read_text())
    assert manifest["corpus"]["sha256"] and manifest["targets"][0]["spec"].startswith("cmd:")
    assert {"run_id", "created", "workbench_version", "git_commit", "python", "packages", "seed"} <= set(manifest)
    summary = json.loads((result.path / "summary.json").read_text())
    assert summary["run_dir"] == str(result.path)
    reloaded = load_run(result.path)
    assert list(reloaded.scores.columns) == SCORE_COLUMNS
    assert len(reloaded.cases) == 4 and set(reloaded.cases["suite"]) == {"retrieval"}
    pd.testing.assert_frame_equal(reloaded.scores, result.scores)
    assert not list((tmp_path / "runs").glob(".*")), "no temp dirs left behind"


def test_engine_failures_fail_only_their_cases(tiny_corpus, tmp_path, monkeypatch) -> None:
    data = json.loads(tiny_corpus.read_text())
    data["retrieval"][0]["query"] = "crash please"
    data["retrieval"][1]["query"] = "garbage please"
    tiny_corpus.write_text(json.dumps(data))
    result = _run(tiny_corpus, tmp_path, monkeypatch)
    errors = result.cases.set_index("case")["error"]
    assert "exited with code 7" in errors["orders"] and "garbage" in errors["users"]
    assert errors[["fallback", "pair"]].isna().all()
    summary = next(iter(result.summary["suites"]["retrieval"].values()))
    assert summary["errors"] == 2 and summary["passed"] is False and result.summary["passed"] is False
    assert result.scores.set_index(["case", "metric"]).loc[("orders", "recallAtK"), "value"] == 0.0


def test_strict_stops_at_the_first_error(tiny_corpus, tmp_path, monkeypatch) -> None:
    data = json.loads(tiny_corpus.read_text())
    data["retrieval"][0]["query"] = "error please"
    tiny_corpus.write_text(json.dumps(data))
    with pytest.raises(
        RunStopped, match=r"retrieval\[orders\].*--strict.*resume with: workbench run --resume"
    ) as stopped:
        _run(tiny_corpus, tmp_path, monkeypatch, strict=True)
    assert isinstance(stopped.value.cause, RunError)


def test_capability_missing_is_skipped_with_a_reason(tiny_corpus, tmp_path) -> None:
    opts = RunOptions(targets=["python:tests.run.test_runner:risk_only"], out_dir=tmp_path / "runs", progress=False)
    result = run(load_corpus(tiny_corpus), opts)
    assert result.summary["suites"]["retrieval"]["risk-only"]["skipped"] == "target lacks capability 'context_pack'"


class _RiskOnly:
    name, version = "risk-only", "0"

    def risk_concepts(self, mode, text):
        return set()


def risk_only() -> _RiskOnly:
    return _RiskOnly()


def test_controls_do_not_gate_when_another_target_runs() -> None:
    ok, bad = {"verdict": "PASS", "skipped": None}, {"verdict": "FAIL", "skipped": None}
    assert overall({"retrieval": {"builtin": ok, "random": bad}}) == {"passed": True, "verdict": "PASS"}
    assert overall({"retrieval": {"builtin": bad, "random": ok}}) == {"passed": False, "verdict": "FAIL"}
    assert overall({"retrieval": {"random": bad}})["verdict"] == "FAIL"


def test_nothing_gated_is_no_floors_never_pass() -> None:
    unjudged = {"verdict": "NO FLOORS", "skipped": None}
    skipped = {"verdict": "SKIPPED", "skipped": "no capability"}
    assert overall({"retrieval": {"builtin": unjudged}, "risk": {"builtin": skipped}}) == {
        "passed": None,
        "verdict": "NO FLOORS",
    }


def test_cli_run_json_and_exit_code(tiny_corpus, tmp_path, monkeypatch, capsys) -> None:
    spec = engine_spec(ANSWERS, monkeypatch)
    code = main(["run", "--corpus", str(tiny_corpus), "--target", spec, "--out", str(tmp_path / "r"), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0  # 'users' misses expectedAnyOf, but the floors are met: p=0.667, r=1, mrr=0.833
    target = next(iter(summary["suites"]["retrieval"]))
    assert summary["passed"] is True and summary["suites"]["retrieval"][target]["passed_cases"] == 3
    data = json.loads(tiny_corpus.read_text())
    data["thresholds"]["retrieval"]["precisionAtK"] = 0.7
    tiny_corpus.write_text(json.dumps(data))
    code = main(["run", "--corpus", str(tiny_corpus), "--target", spec, "--out", str(tmp_path / "r"), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 1 and summary["suites"]["retrieval"][target]["failures"] == ["precisionAtK 0.667 < 0.7"]


def test_cli_scoreboard(tiny_corpus, tmp_path, monkeypatch, capsys) -> None:
    spec = engine_spec(ANSWERS, monkeypatch)
    main(["run", "--corpus", str(tiny_corpus), "--target", spec, "--out", str(tmp_path / "r")])
    out = capsys.readouterr().out
    assert "| Group" in out and "precisionAtK | 0.667 |" in out and "(3/4 cases pass)" in out


def test_shard_selects_the_cases_its_hash_names(tiny_corpus, tmp_path, monkeypatch) -> None:
    result = _run(tiny_corpus, tmp_path, monkeypatch, shard=(1, 2))
    # sha256("retrieval\0<name>") mod 2: orders, users and pair are shard 1, fallback shard 0
    assert sorted(result.cases["case"]) == ["orders", "pair", "users"]
