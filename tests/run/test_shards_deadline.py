"""Issue 13, parts 5 and 2 (--deadline): shards by case identity, merge completeness, run deadlines."""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.corpus import load_corpus
from workbench.errors import StoreError
from workbench.options import RunOptions
from workbench.run.merge import merge_runs
from workbench.run.resume import OUTCOMES
from workbench.run.runner import run
from workbench.run.shards import select_shard, shard_of

from ..conftest import ENGINE, write_corpus


def _cases(names: list[str]) -> list[dict]:
    return [{"name": n, "query": f"find {n}", "repoFixture": "api", "expectedPrimary": ["src/a.ts"]} for n in names]


def _corpus(root: Path, names: list[str]) -> Path:
    src = root / "fixtures" / "api" / "src"
    src.mkdir(parents=True, exist_ok=True)
    (src / "a.ts").write_text("export const a = 1;\n")
    return write_corpus(root, {"fixtureRoots": {"api": "fixtures/api"}, "retrieval": _cases(names)})


def test_adding_a_case_leaves_every_other_case_in_its_shard() -> None:
    before = _cases([f"case-{i}" for i in range(40)])
    after = before[:17] + _cases(["brand-new"]) + before[17:]  # inserted in the middle, not appended
    for count in (2, 3, 4, 7):
        for index in range(count):
            old = {c["name"] for c in select_shard("retrieval", before, (index, count))}
            new = {c["name"] for c in select_shard("retrieval", after, (index, count))}
            assert old <= new and len(new - old) <= 1
    assert {shard_of("retrieval", c["name"], 4) for c in before} == {0, 1, 2, 3}  # every shard gets cases
    assert shard_of("retrieval", "x", 4) == shard_of("retrieval", "x", 4)


def _shard_runs(tmp_path: Path, names: list[str], count: int, out: str = "runs") -> list[Path]:
    corpus = load_corpus(_corpus(tmp_path, names))
    return [
        run(corpus, RunOptions(targets=["random"], shard=(i, count), out_dir=tmp_path / out, progress=False)).path
        for i in range(count)
    ]


def test_merge_of_every_shard_is_complete(tmp_path: Path) -> None:
    names = [f"c{i}" for i in range(12)]
    shards = _shard_runs(tmp_path, names, 3)
    merged = merge_runs(shards, tmp_path / "merged")
    assert sorted(merged.cases["case"]) == sorted(names)
    whole = run(
        load_corpus(tmp_path / "corpus" / "corpus.json"),
        RunOptions(targets=["random"], out_dir=tmp_path / "whole", progress=False),
    )
    assert merged.summary["suites"]["retrieval"]["random"]["metrics"] == pytest.approx(
        whole.summary["suites"]["retrieval"]["random"]["metrics"]
    )


def test_merge_refuses_missing_repeated_mixed_shards(tmp_path: Path) -> None:
    shards = _shard_runs(tmp_path, [f"c{i}" for i in range(12)], 3)
    with pytest.raises(StoreError, match=r"shard\(s\) 2/3 missing"):
        merge_runs(shards[:2], tmp_path / "m")
    twice = Path(shutil.copytree(shards[0], tmp_path / "copy-of-0"))
    with pytest.raises(StoreError, match="more than one run|given twice"):
        merge_runs([shards[0], twice, shards[1], shards[2]], tmp_path / "m")
    other = _shard_runs(tmp_path / "other", [f"d{i}" for i in range(12)], 3)
    with pytest.raises(StoreError, match="different corpora"):
        merge_runs([shards[0], shards[1], other[2]], tmp_path / "m")
    halves = _shard_runs(tmp_path / "halves", [f"c{i}" for i in range(12)], 2)
    with pytest.raises(StoreError, match="different counts|different corpora"):
        merge_runs([shards[0], halves[1]], tmp_path / "m")


def test_merge_refuses_a_shard_that_lost_cases(tmp_path: Path) -> None:
    shards = _shard_runs(tmp_path, [f"c{i}" for i in range(12)], 2)
    lines = (shards[0] / "cases.jsonl").read_text().splitlines()
    assert len(lines) > 1
    (shards[0] / "cases.jsonl").write_text("\n".join(lines[1:]) + "\n")
    with pytest.raises(StoreError, match=r"hold 11 of the plan's 12 cases"):
        merge_runs(shards, tmp_path / "m")


def test_deadline_records_cases_not_reached_and_keeps_the_journal(
    tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANSWERS", json.dumps({"find b": ["src/a.ts"], "find c": ["src/a.ts"]}))
    path = _corpus(tmp_path, ["a", "b", "c"])
    data = json.loads(path.read_text())
    data["retrieval"][0]["query"] = "hang here"  # the first case takes its whole --timeout
    path.write_text(json.dumps(data))
    out = tmp_path / "runs"
    code = main(
        [
            "run",
            "--corpus",
            str(path),
            "--target",
            f"cmd:{sys.executable} {ENGINE}",
            "--timeout",
            "1",
            "--deadline",
            "0.5",
            "--out",
            str(out),
            "--json",
        ]
    )
    assert code == 1
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary["passed"] is False and summary["deadline"] == {"seconds": 0.5, "not_run": 3}
    run_dir = Path(summary["run_dir"])
    rows = [json.loads(line) for line in (run_dir / "cases.jsonl").read_text().splitlines()]
    errors = {r["case"]: r["error"] for r in rows}
    assert errors["a"].startswith("stopped: the run's --deadline of 0.5s passed during this case")
    assert errors["b"] == errors["c"] == "not run: the run's --deadline of 0.5s passed"
    assert (out / f".{run_dir.name}.journal").is_dir()  # kept for --resume
    assert f"--resume {run_dir.name}" in captured.err
    assert main(["run", "--resume", run_dir.name, "--out", str(out), "--json"]) == 1  # 'a' still hangs
    resumed = json.loads(capsys.readouterr().out)
    rows = [json.loads(line) for line in (Path(resumed["run_dir"]) / "cases.jsonl").read_text().splitlines()]
    assert {r["case"]: r["passed"] for r in rows} == {"a": False, "b": True, "c": True}
    assert "deadline" not in resumed and not (out / f".{run_dir.name}.journal").exists()


@pytest.mark.parametrize(
    "line, message",
    [
        (
            '{"suite": "retrieval", "target": "random", "case": "\\ud800", "hash": "x"}',
            r"outcomes\.jsonl:1: case: lone surrogate",
        ),
        ("[" * 3000 + "]" * 3000, r"outcomes\.jsonl:1: nested deeper"),
        ('{"suite": "retrieval", "seconds": 1e999}', r"outcomes\.jsonl:1: number 1e999 overflows"),
    ],
)
def test_a_hostile_journal_line_is_named_on_resume(
    tmp_path: Path, line: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _corpus(tmp_path, ["a", "b"])
    out = tmp_path / "runs"
    assert (
        main(["run", "--corpus", str(path), "--target", "random", "--deadline", "0", "--out", str(out), "--json"]) == 1
    )
    run_id = Path(json.loads(capsys.readouterr().out)["run_dir"]).name
    (out / f".{run_id}.journal" / OUTCOMES).write_text(line + "\n")
    assert main(["run", "--resume", run_id, "--out", str(out)]) == 3
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and re.search(message, err), err


def test_deadline_ends_a_cmd_request_in_flight(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ANSWERS", json.dumps({}))
    path = _corpus(tmp_path, ["a", "b"])
    data = json.loads(path.read_text())
    data["retrieval"][0]["query"] = "hang here"
    path.write_text(json.dumps(data))
    started = time.monotonic()
    result = run(
        load_corpus(path),
        RunOptions(
            targets=[f"cmd:{sys.executable} {ENGINE}"],
            timeout=60,
            deadline=1.0,
            out_dir=tmp_path / "runs",
            progress=False,
        ),
    )
    assert time.monotonic() - started < 15  # not the 60 s request timeout
    errors = result.cases.set_index("case")["error"]
    assert errors["a"].startswith("stopped: the run's --deadline of 1s passed during this case")
    assert errors["b"] == "not run: the run's --deadline of 1s passed"
    assert result.summary["deadline"] == {"seconds": 1.0, "not_run": 2}
