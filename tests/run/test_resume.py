"""Journals and ``workbench run --resume``: an interrupted run finishes where it stopped, and
scores exactly as if it had never stopped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from workbench.cli import main
from workbench.contract import FileRef, Pack
from workbench.corpus import load_corpus
from workbench.errors import CorpusError, RunStopped, StoreError, UsageError
from workbench.run.merge import merge_runs
from workbench.run.resume import HEADER, OUTCOMES, read_outcomes
from workbench.run.runner import RunOptions, run, run_eval
from workbench.store.headers import latest_run, read_header

TARGET = "python:tests.run.test_resume:counting"
# Module state the counting target reads: the queries it answered, and when to stop.
STATE: dict[str, Any] = {"calls": [], "stop_after": None, "raise": KeyboardInterrupt}


class _Counting:
    """Answers every query with src/orders.ts (api/src/orders.ts for multi-repo requests),
    counting calls; from call ``stop_after`` on it raises ``STATE["raise"]``."""

    name, version = "counting", "1"

    def context_pack(self, query: str, repos: list[Any], limit: int) -> Pack:
        if STATE["stop_after"] is not None and len(STATE["calls"]) >= STATE["stop_after"]:
            raise STATE["raise"]("stopped on purpose")
        STATE["calls"].append(query)
        if "users" in query:
            return Pack(primary=[FileRef(repos[0].name, "src/users.ts")])
        return Pack(primary=[FileRef(repos[0].name, "src/orders.ts"), FileRef(repos[0].name, "src/index.ts")])


def counting() -> _Counting:
    return _Counting()


@pytest.fixture(autouse=True)
def _fresh_state() -> None:
    STATE.update(calls=[], stop_after=None, **{"raise": KeyboardInterrupt})


@pytest.fixture
def corpus12(tiny_corpus: Path) -> Path:
    """The tiny corpus with eight more retrieval cases (12 in all)."""
    data = json.loads(tiny_corpus.read_text())
    data["retrieval"] += [
        {
            "name": f"extra-{i}",
            "query": f"{'find users' if i % 2 else 'list orders'} {i}",
            "repoFixture": "api",
            "expectedPrimary": ["src/orders.ts"],
        }
        for i in range(8)
    ]
    tiny_corpus.write_text(json.dumps(data, indent=2))
    return tiny_corpus


def _options(out: Path, **extra: Any) -> RunOptions:
    return RunOptions(targets=[TARGET, "random"], out_dir=out, progress=False, timeout=5, **extra)


def _interrupt(corpus: Path, out: Path, after: int, **extra: Any) -> Path:
    """Run until the counting target has answered ``after`` queries; return the journal left."""
    STATE.update(calls=[], stop_after=after)
    with pytest.raises(RunStopped) as stopped:
        run(load_corpus(corpus), _options(out, **extra))
    STATE.update(calls=[], stop_after=None)
    [journal] = out.glob(".*.journal")
    assert isinstance(stopped.value.cause, KeyboardInterrupt)
    assert stopped.value.journal == str(journal) and f"--resume {journal.name[1:-8]}" in stopped.value.hint()
    return journal


def _without_timing(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k != "seconds"} for row in rows]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_an_interrupted_run_journals_exactly_the_finished_cases(corpus12, tmp_path) -> None:
    journal = _interrupt(corpus12, tmp_path / "runs", after=5)
    records = read_outcomes(journal)
    assert [r["case"] for r in records] == ["orders", "users", "fallback", "pair", "extra-0"]
    assert {r["target"] for r in records} == {"counting"} and all(r["error"] is None for r in records)
    header = json.loads((journal / HEADER).read_text())["manifest"]
    assert journal.name == f".{header['run_id']}.journal"
    assert header["corpus"]["sha256"] and [t["spec"] for t in header["targets"]] == [TARGET, "random"]
    assert not [p for p in (tmp_path / "runs").iterdir() if not p.name.startswith(".")], "no run directory"


def test_resume_runs_only_the_rest_and_scores_like_an_uninterrupted_run(corpus12, tmp_path) -> None:
    whole = run(load_corpus(corpus12), _options(tmp_path / "whole"))
    assert len(STATE["calls"]) == 12
    journal = _interrupt(corpus12, tmp_path / "runs", after=7)
    run_id = json.loads((journal / HEADER).read_text())["manifest"]["run_id"]
    resumed = run_eval(resume=run_id, out_dir=tmp_path / "runs", progress=False)
    assert len(STATE["calls"]) == 5, "only the five cases the journal lacks are asked again"
    assert resumed.path == tmp_path / "runs" / run_id and not journal.exists()
    assert resumed.manifest["resumed"]["reused_cases"] == 7
    assert _without_timing(_lines(resumed.path / "cases.jsonl")) == _without_timing(_lines(whole.path / "cases.jsonl"))
    pd.testing.assert_frame_equal(
        pd.read_parquet(resumed.path / "scores.parquet"), pd.read_parquet(whole.path / "scores.parquet")
    )
    strip = lambda s: {k: v for k, v in s.items() if k != "run_dir"}  # noqa: E731
    assert strip(resumed.summary) == strip(whole.summary)


def test_resume_with_jobs_keeps_every_line_whole(corpus12, tmp_path) -> None:
    journal = _interrupt(corpus12, tmp_path / "runs", after=9, jobs=4)
    records = read_outcomes(journal)  # raises on an interleaved line
    assert len(records) == 9 and len({r["case"] for r in records}) == 9
    resumed = run_eval(resume=journal, jobs=4, progress=False)
    assert len(STATE["calls"]) == 3 and len(resumed.cases) == 24


def test_a_torn_last_line_is_ignored_and_its_case_runs_again(corpus12, tmp_path) -> None:
    journal = _interrupt(corpus12, tmp_path / "runs", after=4)
    with open(journal / OUTCOMES, "a") as handle:
        handle.write('{"suite": "retrieval", "target": "counting", "case": "extra-0", "obs')
    assert len(read_outcomes(journal)) == 4
    resumed = run_eval(resume=journal, progress=False)
    assert len(STATE["calls"]) == 8 and len(resumed.cases) == 24


def test_a_changed_corpus_is_refused(corpus12, tmp_path) -> None:
    journal = _interrupt(corpus12, tmp_path / "runs", after=4)
    data = json.loads(corpus12.read_text())
    data["retrieval"][0]["expectedPrimary"] = ["src/index.ts"]
    corpus12.write_text(json.dumps(data, indent=2))
    with pytest.raises(CorpusError, match=r"corpus\.json: changed since run .* started \(SHA-256 "):
        run_eval(resume=journal, progress=False)


def test_an_outcome_whose_case_hash_differs_is_not_reused(corpus12, tmp_path) -> None:
    journal = _interrupt(corpus12, tmp_path / "runs", after=4)
    lines = (journal / OUTCOMES).read_text().splitlines(keepends=True)
    record = json.loads(lines[1])
    lines[1] = json.dumps(dict(record, hash="0" * 16)) + "\n"  # as if case 'users' had been redefined
    (journal / OUTCOMES).write_text("".join(lines))
    run_eval(resume=journal, progress=False)
    assert STATE["calls"][0] == "find users" and len(STATE["calls"]) == 9


def test_contradicting_options_are_refused(corpus12, tmp_path) -> None:
    journal = _interrupt(corpus12, tmp_path / "runs", after=2)
    with pytest.raises(UsageError, match=r"--seed 3 \(the run has 0\).*resume takes these from the journal"):
        run_eval(resume=journal, seed=3, progress=False)
    with pytest.raises(UsageError, match=r"--target bm25 \(the run has python:tests"):
        run_eval(resume=journal, targets=["bm25"], progress=False)
    with pytest.raises(UsageError, match=r"--shard 0/2 \(the run has the default\)"):
        run_eval(resume=journal, shard=(0, 2), progress=False)
    assert run_eval(resume=journal, seed=0, targets=[TARGET, "random"], progress=False).summary


def test_a_complete_run_or_no_journal_is_refused(corpus12, tmp_path) -> None:
    done = run(load_corpus(corpus12), _options(tmp_path / "runs"))
    with pytest.raises(StoreError, match="already complete, nothing to resume"):
        run_eval(resume=done.run_id, out_dir=tmp_path / "runs", progress=False)
    with pytest.raises(StoreError, match=r"no run journal to resume \(looked for .*\.nope\.journal/header\.json\)"):
        run_eval(resume="nope", out_dir=tmp_path / "runs", progress=False)


def test_journals_are_not_runs(corpus12, tmp_path) -> None:
    done = run(load_corpus(corpus12), _options(tmp_path / "runs"))
    journal = _interrupt(corpus12, tmp_path / "runs", after=3)
    assert latest_run(tmp_path / "runs") == done.path
    with pytest.raises(StoreError, match="not a complete run directory"):
        read_header(journal)
    with pytest.raises(StoreError, match="not a complete run directory"):
        merge_runs([done.path, journal], tmp_path / "merged")
    _interrupt(corpus12, tmp_path / "only-journal", after=1)
    with pytest.raises(StoreError, match="no runs yet"):
        latest_run(tmp_path / "only-journal")


def test_cli_prints_the_resume_command_and_resumes(corpus12, tmp_path, capsys) -> None:
    out = tmp_path / "runs"
    STATE["stop_after"] = 6
    args = ["run", "--corpus", str(corpus12), "--target", TARGET, "--out", str(out), "--json"]
    code = main(args)
    err = capsys.readouterr().err
    [journal] = out.glob(".*.journal")
    run_id = journal.name[1 : -len(".journal")]
    assert code == 130 and "interrupted" in err  # Ctrl-C is not "thresholds not met" (exit 1)
    assert f"6 case(s) saved in {journal}; resume with: workbench run --resume {run_id} --out {out}" in err
    STATE.update(stop_after=None, calls=[])
    assert main(["run", "--resume", run_id, "--out", str(out), "--seed", "1"]) == 2  # a usage error
    assert "--seed 1 (the run has 0)" in capsys.readouterr().err
    code = main(["run", "--resume", run_id, "--out", str(out), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 1 and summary["run_dir"] == str(out / run_id) and len(STATE["calls"]) == 6  # 1: floors
    assert main(["run", "--resume", run_id, "--out", str(out)]) == 3
    assert "already complete" in capsys.readouterr().err


def test_cli_strict_stop_is_resumable(corpus12, tmp_path, capsys) -> None:
    out = tmp_path / "runs"
    STATE.update(stop_after=3, **{"raise": RuntimeError})
    code = main(["run", "--corpus", str(corpus12), "--target", TARGET, "--out", str(out), "--strict", "--json"])
    err = capsys.readouterr().err
    assert code == 3 and "(--strict)" in err and "3 case(s) saved" in err
    STATE.update(stop_after=None, calls=[])
    [journal] = out.glob(".*.journal")
    assert main(["run", "--resume", str(journal)]) == 1  # floors not met; no errors
    captured = capsys.readouterr()
    assert f"resuming {journal.name[1:-8]}: 3 case(s) reused from {journal}, 9 to run" in captured.err
    assert "(6/12 cases pass)" in captured.out and "error" not in captured.out.lower()
    assert STATE["calls"][0] == "orders client" and len(STATE["calls"]) == 9, "the failed case runs again"


def test_a_new_id_skips_the_journal_of_a_run_in_progress(tmp_path) -> None:
    """``merge`` and ``import`` name their runs with ``free_run_id``: an id that a running run has
    reserved (its journal exists, its directory not yet) is not handed out again."""
    from workbench.paths import journal_path
    from workbench.run.resume import Journal
    from workbench.store.runs import free_run_id

    first = Journal.create(tmp_path, {"run_id": "20261201T000000Z-merged"})
    assert first.run_id == "20261201T000000Z-merged" and journal_path(tmp_path, first.run_id).is_dir()
    assert free_run_id(tmp_path, "20261201T000000Z-merged") == "20261201T000000Z-merged-2"
    (tmp_path / "20261201T000000Z-merged-2").mkdir()
    second = Journal.create(tmp_path, {"run_id": "20261201T000000Z-merged"})
    assert second.run_id == "20261201T000000Z-merged-3"
    first.close()
    second.close()
