"""The local executor and what every executor shares: streaming outcomes, dispatch order, specs."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from workbench.cli import main
from workbench.corpus import load_corpus
from workbench.errors import UsageError
from workbench.options import RunOptions
from workbench.run.executors import LocalExecutor, parse_executor
from workbench.run.runner import run
from workbench.run.work import GROUP_ABOVE, WorkItem, by_fixture
from workbench.suites import RunContext, get_suite

from ..conftest import write_corpus, write_tree
from ..scale_corpus import scale_corpus


class _Slow:
    """Answers the query's last word as a path after a delay set by the query's first word."""

    name, version = "slow", "1"

    def __init__(self) -> None:
        self.threads: set[int] = set()

    def context_pack(self, query: str, repos: list[Any], limit: int = 8):
        from workbench.contract import FileRef, Pack

        self.threads.add(threading.get_ident())
        time.sleep(float(query.split()[0]))
        return Pack(primary=[FileRef(repos[0].name, query.split()[-1])])


def test_parse_executor() -> None:
    assert parse_executor("local") == ("local", None)
    assert parse_executor("ray") == ("ray", None)
    assert parse_executor("ray:10.0.0.1:6379") == ("ray", "10.0.0.1:6379")
    for bad in ("spark", "local:x", ""):
        with pytest.raises(UsageError, match="expected local, ray or ray:ADDRESS"):
            parse_executor(bad)


def test_threads_stream_outcomes_as_they_finish(tmp_path) -> None:
    write_tree(tmp_path / "fixtures" / "app", {"a.ts": "a", "b.ts": "b"})
    corpus = load_corpus(
        write_corpus(
            tmp_path,
            {
                "fixtureRoots": {"app": "fixtures/app"},
                "retrieval": [
                    {"name": "slow", "query": "0.3 a.ts", "repoFixture": "app", "expectedPrimary": ["a.ts"]},
                    {"name": "fast", "query": "0.0 b.ts", "repoFixture": "app", "expectedPrimary": ["b.ts"]},
                ],
            },
        )
    )
    cases = corpus.cases("retrieval")
    target = _Slow()
    items = [WorkItem(n, case) for n, case in enumerate(cases)]
    got = list(LocalExecutor(jobs=2).run(get_suite("retrieval"), target, items, RunContext(corpus=corpus)))
    assert [item.case["name"] for item, _ in got] == ["fast", "slow"], "the fast case is not held back"
    assert all(o.error is None and o.observation["primary"] for _, o in got) and len(target.threads) == 2
    serial = list(LocalExecutor(jobs=1).run(get_suite("retrieval"), target, items, RunContext(corpus=corpus)))
    assert [item.case["name"] for item, _ in serial] == ["slow", "fast"]


def test_many_fixtures_are_dispatched_fixture_by_fixture_and_rows_stay_in_corpus_order(tmp_path) -> None:
    count = GROUP_ABOVE + 2
    items = [WorkItem(n, {"name": f"c{n}", "repoFixture": f"f{n % count}"}) for n in range(3 * count)]
    grouped = by_fixture(items)
    assert [i.case["repoFixture"] for i in grouped] == [f"f{j}" for j in range(count) for _ in range(3)]
    assert [i.index for i in grouped if i.case["repoFixture"] == "f1"] == [1, 1 + count, 1 + 2 * count]
    few = items[: 2 * GROUP_ABOVE]
    assert by_fixture([i for i in few if int(i.case["repoFixture"][1:]) < GROUP_ABOVE]) == [
        i for i in few if int(i.case["repoFixture"][1:]) < GROUP_ABOVE
    ], "few fixtures: order kept"
    roots = {f"f{j}": f"fixtures/f{j}" for j in range(count)}
    for j in range(count):
        write_tree(tmp_path / "fixtures" / f"f{j}", {f"src/m{j}.ts": f"export const m{j} = {j};\n"})
    corpus = write_corpus(
        tmp_path,
        {
            "fixtureRoots": roots,
            "retrieval": [
                {
                    "name": f"c{n}",
                    "query": f"m{n % count} src/m{n % count}.ts",
                    "repoFixture": f"f{n % count}",
                    "expectedPrimary": [f"src/m{n % count}.ts"],
                }
                for n in range(2 * count)
            ],
        },
    )
    result = run(load_corpus(corpus), RunOptions(targets=["bm25"], out_dir=tmp_path / "runs", progress=False))
    assert list(result.cases["case"]) == [f"c{n}" for n in range(2 * count)]


def test_a_bad_executor_is_a_usage_error_before_any_target_starts(tmp_path, capsys, monkeypatch) -> None:
    corpus = scale_corpus(tmp_path, cases=2)
    started: list[str] = []
    monkeypatch.setattr("workbench.run.plan.resolve_target", lambda spec, *a: started.append(spec))
    code = main(["run", "--corpus", str(corpus), "--out", str(tmp_path / "runs"), "--executor", "spark"])
    assert code == 2 and "--executor 'spark'" in capsys.readouterr().err
    assert started == [], "no target was resolved (started) before the option was rejected"
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())
