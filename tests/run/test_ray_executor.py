"""``--executor ray``: the same summary as a local run, as merged shards and as a resumed Ray run;
a lost worker's cases are retried and the retries recorded. Runs a local Ray instance."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workbench.corpus import load_corpus
from workbench.errors import RunStopped
from workbench.options import RunOptions
from workbench.run.merge import merge_runs
from workbench.run.resume import read_outcomes
from workbench.run.runner import run, run_eval

from ..scale_corpus import scale_corpus

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.ray
TARGETS = ["builtin", "bm25"]


# Ray waits a fixed 30 s for its raylet to register; on a machine busy with other work that can
# expire before the instance is up ("The current node timed out during startup").
STARTUP_TIMED_OUT = "timed out during startup"


@pytest.fixture(scope="module", autouse=True)
def _ray_instance():
    """One local Ray instance for the module, held as a run holds its own: by a thread of its own
    (``RayConnection``), whose processes die with it, so a start that timed out leaves nothing
    running and is tried once more; any other failure stops the module."""
    from workbench.run.ray_connection import RayConnection
    from workbench.run.ray_executor import CaseWorker

    if ray.is_initialized():
        yield
        return
    for attempt in (1, 2):
        connection = RayConnection(None, None, CaseWorker)
        connection.settle()
        if connection.failure is None:
            break
        connection.close()
        if attempt == 2 or STARTUP_TIMED_OUT not in connection.failure:
            raise RuntimeError(f"local Ray did not start: {connection.failure}")
    yield
    connection.close()


def _options(out: Path, **extra: Any) -> RunOptions:
    return RunOptions(targets=extra.pop("targets", TARGETS), out_dir=out, progress=False, **extra)


def _verdicts(summary: dict) -> dict:
    """Metrics, pass counts and verdicts: what must not depend on where cases ran."""
    keep = ("cases", "scored", "passed_cases", "errors", "metrics", "passed", "failures", "skipped")
    return {
        "passed": summary["passed"],
        "suites": {s: {t: {k: v.get(k) for k in keep} for t, v in per.items()} for s, per in summary["suites"].items()},
    }


@pytest.fixture
def corpus(tmp_path) -> Path:
    return scale_corpus(tmp_path, cases=16, floor=0.9)


def test_ray_local_shards_and_a_resumed_ray_run_give_one_summary(corpus, tmp_path) -> None:
    local = run(load_corpus(corpus), _options(tmp_path / "local"))
    on_ray = run(load_corpus(corpus), _options(tmp_path / "ray", executor="ray"))
    assert on_ray.manifest["executor"]["kind"] == "ray" and on_ray.manifest["executor"]["retries"] == 0
    assert _verdicts(on_ray.summary) == _verdicts(local.summary)
    drop = ["seconds"]
    assert on_ray.cases.drop(columns=drop).equals(local.cases.drop(columns=drop))
    assert on_ray.scores.equals(local.scores)

    shards = [run(load_corpus(corpus), _options(tmp_path / "shards", shard=(i, 4))) for i in range(4)]
    merged = merge_runs([s.path for s in shards], tmp_path / "merged")
    assert _verdicts(merged.summary) == _verdicts(local.summary)

    seen = {"n": 0}

    def kill() -> None:  # the run dies in the middle: after 11 of its 32 cases reached the journal
        seen["n"] += 1
        if seen["n"] == 11:
            raise KeyboardInterrupt

    with pytest.raises(RunStopped) as stopped:
        run(load_corpus(corpus), _options(tmp_path / "killed", executor="ray"), on_case=kill)
    journal = Path(stopped.value.journal)
    assert len(read_outcomes(journal)) == 11
    resumed = run_eval(resume=journal, executor="ray", progress=False)
    assert resumed.manifest["resumed"]["reused_cases"] == 11
    assert _verdicts(resumed.summary) == _verdicts(local.summary)


def test_a_lost_worker_is_retried_and_the_retry_recorded(tmp_path) -> None:
    extra = [
        {
            "name": "dies-once",
            "query": "die handler src/orders.ts",
            "repoFixture": "app",
            "expectedPrimary": ["src/orders.ts"],
        }
    ]
    corpus = scale_corpus(tmp_path, cases=5, extra=extra)
    result = run(
        load_corpus(corpus),
        # no warm start: the case that kills its process must run in an actor, never in this one
        _options(
            tmp_path / "runs", executor="ray", warm_start=False, targets=["python:tests.engines.flaky_engine:dying"]
        ),
    )
    rows = result.cases.set_index("case")
    assert rows.loc["dies-once", "retries"] >= 1 and bool(rows.loc["dies-once", "passed"])
    assert result.manifest["executor"]["retries"] >= 1 and result.manifest["executor"]["lost_cases"] == 0
    assert result.summary["suites"]["retrieval"]["dying"]["passed_cases"] == 6


def test_repeats_on_ray_find_the_same_flaky_cases(tmp_path) -> None:
    corpus = scale_corpus(tmp_path, cases=8)
    options = {"targets": ["python:tests.engines.flaky_engine:flaky"], "repeat": 3}
    local = run(load_corpus(corpus), _options(tmp_path / "local", **options))
    # the flaky engine counts askings per process: every repeat of a case must be asked in one
    on_ray = run(load_corpus(corpus), _options(tmp_path / "ray", executor="ray", warm_start=False, **options))
    assert (
        on_ray.summary["suites"]["retrieval"]["flaky"]["repeats"]
        == local.summary["suites"]["retrieval"]["flaky"]["repeats"]
    )


def test_while_ray_starts_the_driver_runs_cases_then_hands_the_rest_to_ray(tmp_path, monkeypatch) -> None:
    """The warm start: the first cases run here while the actors come up (held back for exactly
    three cases here), every later one on Ray; the run is the same as a local one."""
    from workbench.run.ray_executor import RayExecutor

    corpus = scale_corpus(tmp_path, cases=10, floor=0.9)
    real = RayExecutor._ready_slots
    looks = {"n": 0}

    def held_back(self: RayExecutor, target: str) -> set[int]:
        looks["n"] += 1
        if looks["n"] <= 3:
            return set()
        self._ray()
        self._slots(target)
        ray.get(self._pings[target])  # then wait until the actor is really up
        return real(self, target)

    monkeypatch.setattr(RayExecutor, "_ready_slots", held_back)
    local = run(load_corpus(corpus), _options(tmp_path / "local", targets=["builtin"]))
    warm = run(load_corpus(corpus), _options(tmp_path / "warm", targets=["builtin"], executor="ray"))
    executor = warm.manifest["executor"]
    assert executor["warm_start"] and executor["driver_cases"] == 3 and executor["actors"] == {"builtin": 1}
    assert _verdicts(warm.summary) == _verdicts(local.summary)
    assert warm.cases.drop(columns=["seconds"]).equals(local.cases.drop(columns=["seconds"]))


def test_an_actor_that_is_up_takes_cases_while_the_driver_still_runs_some(tmp_path, monkeypatch) -> None:
    """Until every actor is up the driver runs cases, and an actor already up gets chunks meanwhile
    (here the one actor counts as up but the target never as fully up, so both keep working)."""
    from workbench.run.ray_executor import RayExecutor

    corpus = scale_corpus(tmp_path, cases=10, floor=0.9)

    def up_but_not_all(self: RayExecutor, target: str) -> set[int]:
        self._ray()  # waits for the connection: the first look already sees the actor up
        self._slots(target)
        ray.get(self._pings[target])
        return {0}

    monkeypatch.setattr(RayExecutor, "_ready_slots", up_but_not_all)
    local = run(load_corpus(corpus), _options(tmp_path / "local", targets=["builtin"]))
    both = run(load_corpus(corpus), _options(tmp_path / "both", targets=["builtin"], executor="ray"))
    assert 1 <= both.manifest["executor"]["driver_cases"] < 10  # the actor answered the others
    assert both.cases.drop(columns=["seconds"]).equals(local.cases.drop(columns=["seconds"]))


def test_a_ray_run_killed_in_the_middle_resumes_to_the_same_summary(tmp_path) -> None:
    """SIGKILL (no handler runs, the journal's last line may be torn) while cases are on Ray;
    ``--resume`` runs only the cases the journal lacks and gives the uninterrupted summary."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from ..conftest import REPO_ROOT

    target = "python:tests.engines.flaky_engine:paced"
    corpus = scale_corpus(tmp_path, cases=40, floor=0.9)
    local = run(load_corpus(corpus), _options(tmp_path / "local", targets=[target]))
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "workbench", "run", "--corpus", str(corpus), "--target", target]
    command += ["--out", str(out), "--json", "--no-warm-start"]
    command += ["--executor", f"ray:{ray.get_runtime_context().gcs_address}"]
    process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    give_up = time.monotonic() + 120
    journal = None
    while time.monotonic() < give_up and process.poll() is None:
        found = list(out.glob(".*.journal"))
        if found and len(read_outcomes(found[0])) >= 8:
            journal = found[0]
            break
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert journal is not None, "the run reached 8 saved cases before it was killed"
    saved = len(read_outcomes(journal))
    assert 8 <= saved < 40 and not (out / journal.name[1:].removesuffix(".journal")).exists()
    resumed = run_eval(resume=journal, executor="ray", progress=False)
    assert resumed.manifest["resumed"]["reused_cases"] == saved
    assert _verdicts(resumed.summary) == _verdicts(local.summary)
    assert sorted(resumed.cases["case"]) == sorted(local.cases["case"])


def test_the_deadline_ends_the_actors_and_what_they_held_is_left_for_resume(tmp_path) -> None:
    """An engine stuck in a request on an actor: at --deadline the actors are killed (not left
    running, nothing sent again), the run returns, and its cases are recorded as not run."""
    import time

    corpus = scale_corpus(tmp_path, cases=4, floor=0.9)
    options = _options(
        tmp_path / "runs",
        executor="ray",
        warm_start=False,
        deadline=3.0,
        targets=["python:tests.engines.flaky_engine:stuck"],
    )
    began = time.monotonic()
    result = run(load_corpus(corpus), options)
    took = time.monotonic() - began
    assert took < 20, f"the run waited for the stuck engine ({took:.0f} s; it answers after 30 s)"
    assert result.summary["deadline"]["not_run"] == 4 and not result.summary["passed"]
    assert result.manifest["executor"]["retries"] == 0, "a killed actor's cases are not sent again"
    assert result.cases["error"].str.contains("deadline").all()


def test_a_cluster_that_never_answers_is_named_and_the_warm_start_still_finishes(tmp_path, monkeypatch) -> None:
    """``ray.init`` waits for ever on an address nobody answers: with the warm start the run's
    own process runs every case and the manifest says Ray was not reached; without it the run
    stops after ``CONNECT_TIMEOUT`` with a one-line error naming the address."""
    import threading

    from workbench.run import ray_connection

    hung = threading.Event()
    monkeypatch.setattr(ray_connection, "CONNECT_TIMEOUT", 0.5)
    monkeypatch.setattr(ray_connection.RayConnection, "_own", lambda self, corpus: hung.wait())
    corpus = scale_corpus(tmp_path, cases=3, floor=0.9)
    warm = run(load_corpus(corpus), _options(tmp_path / "warm", targets=["builtin"], executor="ray:10.0.0.1:6379"))
    executor = warm.manifest["executor"]
    assert executor["driver_cases"] == 3 and "10.0.0.1:6379 within 0.5 s" in executor["unreachable"]
    assert len(warm.cases) == 3 and warm.cases["error"].isna().all()
    with pytest.raises(RunStopped) as stopped:
        run(load_corpus(corpus), _options(tmp_path / "cold", executor="ray:10.0.0.1:6379", warm_start=False))
    assert "no answer from Ray at 10.0.0.1:6379" in str(stopped.value.cause)
    hung.set()


def test_usage_reported_in_an_actor_reaches_the_case_rows_and_a_budget_stops_the_run(tmp_path) -> None:
    from ..targets.test_usage import NAME, SPEC, usage_corpus

    corpus = load_corpus(usage_corpus(tmp_path, 6))
    whole = run(corpus, _options(tmp_path / "whole", executor="ray", warm_start=False, targets=[SPEC]))
    assert list(whole.cases["cost_usd"]) == [0.01] * 6
    assert whole.summary["suites"]["retrieval"][NAME]["usage"]["cost_usd"] == pytest.approx(0.06)
    # On Ray the chunks are sent at once: the run is cut off once the budget is spent.
    options = _options(tmp_path / "cut", executor="ray", warm_start=False, targets=[SPEC], budget_usd=0.0)
    cut = run(corpus, options)
    assert cut.summary["verdict"] == "BUDGET" and cut.summary["budget"]["unreached"] == 6


def test_the_manifest_counts_the_nodes_a_targets_actors_answered_from(tmp_path) -> None:
    # one local node: one actor, answering from that node (bench/scale.py checks four nodes)
    result = run(
        load_corpus(scale_corpus(tmp_path, cases=4)),
        _options(tmp_path / "runs", executor="ray", warm_start=False, targets=["builtin"]),
    )
    executor = result.manifest["executor"]
    assert executor["nodes"] == 1 and executor["actors"] == {"builtin": 1} and executor["actor_nodes"] == {"builtin": 1}
