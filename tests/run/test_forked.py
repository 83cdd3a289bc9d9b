"""``--jobs N`` for in-process targets: cases in forked worker processes, results as with one job."""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from workbench.contract import FileRef, Pack
from workbench.corpus import load_corpus
from workbench.errors import RunStopped
from workbench.mining import mine
from workbench.options import RunOptions
from workbench.run.executors import LocalExecutor
from workbench.run.forked import ranges
from workbench.run.runner import run
from workbench.run.work import WorkItem
from workbench.suites import RunContext, get_suite
from workbench.targets import NAMED

from ..conftest import write_corpus, write_tree
from ..git_history import fast_import_history

TEST_PROCESS = os.getpid()


class _Scripted:
    """Answers the query's last word as a path; the first word says what to do first: ``sleep:S``,
    ``die`` (a worker process exits at once; the test's own process raises instead) or ``fail``
    (an error), anything else nothing."""

    name, version = "scripted", "1"

    def context_pack(self, query: str, repos: list[Any], limit: int = 8) -> Pack:
        verb = query.split()[0]
        if verb.startswith("sleep:"):
            time.sleep(float(verb.split(":")[1]))
        elif verb == "die" and os.getpid() == TEST_PROCESS:
            raise RuntimeError("asked to die in the test's own process: the case was not forked")
        elif verb == "die":
            os._exit(3)
        elif verb == "fail":
            raise ValueError("asked to fail")
        return Pack(primary=[FileRef(repos[0].name, query.split()[-1], str(os.getpid()))])


_BEFORE: set[Any] = set()


def _new_children() -> set[Any]:
    """Child processes started since the test began (an earlier test's may outlive it: not ours)."""
    return set(multiprocessing.active_children()) - _BEFORE


@pytest.fixture(autouse=True)
def _forking_allowed(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fork here, whatever thread an earlier test of this process left behind (each is idle), unless
    the test is about the rule itself."""
    _BEFORE.clear()
    _BEFORE.update(multiprocessing.active_children())
    if "not_safe" not in request.node.name:
        monkeypatch.setattr("workbench.run.local.fork_is_safe", lambda: True)
        monkeypatch.setattr("workbench.code.forking.fork_is_safe", lambda: True)


def _corpus(tmp_path: Path, verbs: list[str]) -> Path:
    write_tree(tmp_path / "fixtures" / "app", {"a.py": "a = 1\n"})
    cases = [
        {"name": f"c{n}", "query": f"{verb} a.py", "repoFixture": "app", "expectedPrimary": ["a.py"]}
        for n, verb in enumerate(verbs)
    ]
    return write_corpus(tmp_path, {"fixtureRoots": {"app": "fixtures/app"}, "retrieval": cases})


def _run_items(tmp_path: Path, verbs: list[str], jobs: int = 2, stop_at: float | None = None, feed: bool = False):
    corpus = load_corpus(_corpus(tmp_path, verbs))
    items = [WorkItem(n, case) for n, case in enumerate(corpus.cases("retrieval"))]
    executor = LocalExecutor(jobs, {"scripted"}, stop_at)
    given = iter(items) if feed else items
    got = list(executor.run(get_suite("retrieval"), _Scripted(), given, RunContext(corpus=corpus)))
    return executor, {item.case["name"]: outcome for item, outcome in got}


def test_ranges_are_contiguous_and_differ_by_at_most_one() -> None:
    assert ranges(7, 2) == [range(0, 4), range(4, 7)]
    assert ranges(2, 3) == [range(0, 1), range(1, 2), range(2, 2)]
    assert [len(r) for r in ranges(200, 3)] == [67, 67, 66]


def test_each_worker_takes_a_contiguous_range_and_an_idle_one_steals_the_back_half(tmp_path: Path) -> None:
    verbs = ["sleep:0.4"] * 4 + ["quick"] * 4  # the first range is slow: the second worker helps with it
    executor, outcomes = _run_items(tmp_path, verbs)
    assert all(o.error is None for o in outcomes.values()) and len(outcomes) == 8
    assert executor.describe()["processes"] == ["scripted"]
    pids = {name: o.observation["reasons"]["a.py"] for name, o in outcomes.items()}
    assert os.getpid() not in {int(p) for p in pids.values()} and len(set(pids.values())) == 2
    first, second = pids["c0"], pids["c4"]
    assert {pids[f"c{n}"] for n in range(4, 8)} == {second}, "the second range ran in one worker"
    assert pids["c3"] == second and pids["c1"] == first, "the idle worker took the back of the slow range"
    assert not _new_children()


def test_a_worker_that_dies_fails_its_case_only_and_a_fresh_one_runs_the_rest(tmp_path: Path) -> None:
    executor, outcomes = _run_items(tmp_path, ["quick", "die", "quick", "quick", "quick", "die", "quick"])
    errors = {name: o.error for name, o in outcomes.items() if o.error}
    assert errors == {"c1": "its worker process died (exit code 3)", "c5": "its worker process died (exit code 3)"}
    assert len(outcomes) == 7 and all(o.observation["primary"] for n, o in outcomes.items() if n not in errors)
    assert not _new_children()


def test_a_feed_is_taken_in_order_and_every_item_comes_back(tmp_path: Path) -> None:
    _, outcomes = _run_items(tmp_path, ["quick", "fail", "die", "quick", "quick"], feed=True)
    assert sorted(outcomes) == ["c0", "c1", "c2", "c3", "c4"]
    assert outcomes["c1"].error == "ValueError: asked to fail" and outcomes["c2"].error.startswith("its worker")
    assert all(outcomes[n].error is None for n in ("c0", "c3", "c4"))


def test_the_deadline_ends_a_worker_in_flight(tmp_path: Path) -> None:
    started = time.monotonic()
    _, outcomes = _run_items(tmp_path, ["sleep:60", "quick", "sleep:60", "quick"], stop_at=started + 0.5)
    assert time.monotonic() - started < 10
    assert outcomes["c0"].error == "its worker process died (ended at the run's deadline)"
    assert not _new_children()


def test_closing_early_ends_the_workers(tmp_path: Path) -> None:
    corpus = load_corpus(_corpus(tmp_path, ["quick", "sleep:60", "sleep:60", "quick"]))
    items = [WorkItem(n, case) for n, case in enumerate(corpus.cases("retrieval"))]
    stream = LocalExecutor(2, {"scripted"}).run(get_suite("retrieval"), _Scripted(), items, RunContext(corpus=corpus))
    started = time.monotonic()
    first, _ = next(stream)
    assert first.case["name"] in ("c0", "c3")
    stream.close()  # what --strict and Ctrl-C do
    assert time.monotonic() - started < 10 and not _new_children()


def test_another_target_and_one_job_keep_threads(tmp_path: Path) -> None:
    corpus = load_corpus(_corpus(tmp_path, ["quick", "quick"]))
    items = [WorkItem(n, case) for n, case in enumerate(corpus.cases("retrieval"))]
    for executor in (LocalExecutor(2, {"other"}), LocalExecutor(1, {"scripted"})):
        got = list(executor.run(get_suite("retrieval"), _Scripted(), items, RunContext(corpus=corpus)))
        assert {o.observation["reasons"]["a.py"] for _, o in got} == {str(os.getpid())}
        assert "processes" not in executor.describe()


def test_threads_run_the_cases_where_forking_is_not_safe_or_fails(tmp_path: Path, monkeypatch) -> None:
    corpus = load_corpus(_corpus(tmp_path, ["quick", "quick", "quick"]))
    items = [WorkItem(n, case) for n, case in enumerate(corpus.cases("retrieval"))]
    suite, ctx = get_suite("retrieval"), RunContext(corpus=corpus)
    release = threading.Event()
    other = threading.Thread(target=release.wait)  # another thread runs: a fork could deadlock
    other.start()
    try:
        beside = LocalExecutor(2, {"scripted"})
        got = list(beside.run(suite, _Scripted(), items, ctx))
    finally:
        release.set()
        other.join()
    monkeypatch.setattr("workbench.run.forked.ForkedCases._start", _no_fork)
    failing = LocalExecutor(2, {"scripted"})
    again = list(failing.run(suite, _Scripted(), iter(items), ctx))
    for executor, outcomes in ((beside, got), (failing, again)):
        assert sorted(item.index for item, _ in outcomes) == [0, 1, 2] and "processes" not in executor.describe()
        assert {o.observation["reasons"]["a.py"] for _, o in outcomes} == {str(os.getpid())}


def _no_fork(self: Any, queue: Any) -> Any:
    raise OSError(11, "Resource temporarily unavailable")


@pytest.fixture
def scripted(monkeypatch) -> str:
    """``scripted`` as a built-in target name, so a run forks for it."""
    monkeypatch.setitem(NAMED, "scripted", lambda seed, timeout: _Scripted())
    return "scripted"


def test_a_run_under_its_deadline_records_the_case_cut_short(tmp_path: Path, scripted: str) -> None:
    path = _corpus(tmp_path, ["sleep:60", "quick", "quick", "quick"])  # c0 and c1 go to one worker
    started = time.monotonic()
    options = RunOptions(targets=[scripted], jobs=2, deadline=1.0, out_dir=tmp_path / "runs", progress=False)
    result = run(load_corpus(path), options)
    assert time.monotonic() - started < 15
    errors = result.cases.set_index("case")["error"]
    assert errors["c0"].startswith("stopped: the run's --deadline of 1s passed during this case")
    assert errors["c1"] == "not run: the run's --deadline of 1s passed"
    assert result.summary["deadline"]["not_run"] >= 2 and result.manifest["executor"]["processes"] == [scripted]


def test_strict_stops_at_the_first_error_and_no_worker_outlives_it(tmp_path: Path, scripted: str) -> None:
    path = _corpus(tmp_path, ["quick", "fail", "sleep:60", "quick"])
    options = RunOptions(targets=[scripted], jobs=2, strict=True, out_dir=tmp_path / "runs", progress=False)
    started = time.monotonic()
    with pytest.raises(RunStopped, match=r"asked to fail \(--strict\)"):
        run(load_corpus(path), options)
    assert time.monotonic() - started < 15 and not _new_children()


@pytest.mark.slow
def test_builtin_and_bm25_over_history_give_the_same_rows_with_two_jobs(tmp_path: Path) -> None:
    repo = fast_import_history(tmp_path / "gen", 120, files=24, seed=3)
    cases = mine(repo, max_cases=16, seed=1, fixture="gen", progress=False).cases
    assert len({c["revision"] for c in cases}) > 8  # enough revisions to be dealt by fixture
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps({"fixtureRoots": {"gen": str(repo)}, "retrieval": cases}))
    rows = {}
    for jobs in (1, 2):
        options = RunOptions(targets=["builtin", "bm25"], jobs=jobs, out_dir=tmp_path / f"runs{jobs}", progress=False)
        result = run(load_corpus(path), options)
        run_dir = Path(result.summary["run_dir"])
        rows[jobs] = [
            {k: v for k, v in json.loads(line).items() if k != "seconds"}
            for line in (run_dir / "cases.jsonl").read_text().splitlines()
        ]
        assert result.manifest["executor"].get("processes") == (["bm25", "builtin"] if jobs == 2 else None)
    assert len(rows[1]) == 32 and not any(row["error"] for row in rows[1])
    assert rows[1] == rows[2]
