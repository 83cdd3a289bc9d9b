"""Issue 23, part 3: ``--budget-usd`` and ``--budget-seconds`` stop a run; ``--resume`` finishes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.corpus import load_corpus
from workbench.options import RunOptions
from workbench.run.budget import RunBudget, budget_line
from workbench.run.runner import run
from workbench.suites import Outcome

from ..targets.test_usage import NAME, SPEC, usage_corpus


def _rows(run_dir: Path) -> dict[str, dict]:
    return {r["case"]: r for r in map(json.loads, (run_dir / "cases.jsonl").read_text().splitlines())}


def _strip(summary: dict) -> dict:
    return {key: value for key, value in summary.items() if key != "run_dir"}


def test_budget_usd_stops_after_the_hand_computed_case_and_resume_finishes_like_an_unbudgeted_run(
    tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # 10 cases at $0.01 each (paced 5 ms), budget $0.035: after 3 cases $0.03 < $0.035, so the 4th
    # starts; after it $0.04 >= $0.035, so none starts again: 4 run, 6 not reached.
    monkeypatch.setenv("PACE_MS", "5")
    path = usage_corpus(tmp_path, 10)
    out = tmp_path / "runs"
    code = main(["run", "--corpus", str(path), "--target", SPEC, "--out", str(out), "--budget-usd", "0.035"])
    captured = capsys.readouterr()
    assert code == 1
    last = captured.out.strip().splitlines()[-1]
    assert last.startswith("BUDGET: the run stopped at its budget ($0.04 of $0.035 spent): 6 case(s) not reached")
    assert "Overall: BUDGET (exit 1)" in captured.out
    run_dir = next(p for p in out.iterdir() if not p.name.startswith("."))
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["budget"] == {
        "usd": 0.035,
        "seconds": None,
        "spent_usd": 0.04,
        "spent_seconds": summary["budget"]["spent_seconds"],
        "stopped": True,
        "unreached": 6,
    }
    assert summary["passed"] is False and summary["verdict"] == "BUDGET"
    rows = _rows(run_dir)
    assert [name for name, row in rows.items() if row["passed"]] == ["c0", "c1", "c2", "c3"]
    assert {rows[f"c{i}"]["error"] for i in range(4, 10)} == {"not run: the run's --budget-usd 0.035 was spent"}
    assert (out / f".{run_dir.name}.journal").is_dir()
    assert main(["run", "--resume", run_dir.name, "--out", str(out), "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert not (out / f".{run_dir.name}.journal").exists()
    assert main(["run", "--corpus", str(path), "--target", SPEC, "--out", str(tmp_path / "whole"), "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert _strip(resumed) == _strip(whole)
    assert whole["suites"]["retrieval"][NAME]["usage"]["cost_usd"] == pytest.approx(0.1)
    assert "budget" not in whole and whole["verdict"] != "BUDGET"


def test_budget_seconds_counts_engine_time(tmp_path: Path, monkeypatch) -> None:
    # Each case takes 300 ms of engine time (more with the pipe, more still on a busy machine): after
    # 2 cases ~0.6 s < 0.75 s, after 3 ~0.9 s >= 0.75 s: 3 run, 2 not reached.
    monkeypatch.setenv("PACE_MS", "300")
    corpus = load_corpus(usage_corpus(tmp_path, 5))
    result = run(corpus, RunOptions(targets=[SPEC], out_dir=tmp_path / "runs", progress=False, budget_seconds=0.75))
    assert result.summary["budget"]["stopped"] is True and result.summary["budget"]["unreached"] == 2
    assert result.summary["budget"]["spent_seconds"] >= 0.9
    assert list(result.cases["passed"]) == [True, True, True, False, False]
    assert result.cases["error"].iloc[-1] == "not run: the run's --budget-seconds 0.75 was spent"


def test_a_budget_not_reached_is_judged_as_usual_and_says_what_was_spent(tmp_path: Path) -> None:
    corpus = load_corpus(usage_corpus(tmp_path, 3))
    result = run(corpus, RunOptions(targets=[SPEC], out_dir=tmp_path / "runs", progress=False, budget_usd=1.0))
    assert result.summary["passed"] is None and result.summary["verdict"] == "NO FLOORS"  # the corpus has no floors
    assert result.summary["budget"]["stopped"] is False and result.summary["budget"]["spent_usd"] == 0.03
    assert budget_line(result.summary, result.run_id) is None
    assert not list((tmp_path / "runs").glob(".*.journal"))


def test_with_jobs_the_cases_running_at_the_budget_finish_and_are_kept(tmp_path: Path, monkeypatch) -> None:
    # Two threads start c0 and c1. The first outcome counted ($0.01 < $0.015) lets a third case
    # start; the second ($0.02) spends the budget: the third, already running, finishes and is kept.
    monkeypatch.setenv("PACE_MS", "20")
    corpus = load_corpus(usage_corpus(tmp_path, 12))
    options = RunOptions(targets=[SPEC], out_dir=tmp_path / "runs", progress=False, jobs=2, budget_usd=0.015)
    result = run(corpus, options)
    reached = result.cases[result.cases["error"].isna()]
    left = result.cases[result.cases["error"].notna()]
    assert reached["passed"].all() and len(reached) == 3
    assert set(left["error"]) == {"not run: the run's --budget-usd 0.015 was spent"}
    assert result.summary["budget"]["unreached"] == len(left) > 0
    assert result.summary["budget"]["spent_usd"] == pytest.approx(0.01 * len(reached))


def test_a_cached_outcome_costs_nothing() -> None:
    budget = RunBudget(usd=0.5)
    budget.spend(Outcome({}, {}, None, 3.0, {"cost_usd": 0.4, "cached": True}))
    assert budget.spent_usd == 0 and not budget.spent()
    budget.spend(Outcome({}, {}, None, 3.0, {"cost_usd": 0.5}))
    assert budget.spent() and budget.what() == "--budget-usd 0.5"
