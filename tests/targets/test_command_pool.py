"""``cmd:`` targets with ``--jobs N``: up to N engine processes answer at once, never more."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from workbench.errors import TargetError
from workbench.targets import resolve_target
from workbench.targets.command import CommandTransport

SLOW_ENGINE = """
import json, os, sys, time
for line in sys.stdin:
    request = json.loads(line)
    time.sleep(float(request.get("sleep", 0)))
    print("engine", os.getpid(), file=sys.stderr, flush=True)
    print(json.dumps({"id": request["id"], "pid": os.getpid()}), flush=True)
"""


@pytest.fixture
def slow_engine(tmp_path: Path) -> list[str]:
    script = tmp_path / "slow_engine.py"
    script.write_text(SLOW_ENGINE)
    return [sys.executable, str(script)]


def _at_once(transport: CommandTransport, requests: int, sleep: float) -> list[object]:
    """Send ``requests`` requests from as many threads at once; their answers' pids (or errors)."""
    answers: list[object] = [None] * requests

    def ask(i: int) -> None:
        try:
            answers[i] = transport("context_pack", {"sleep": sleep})["pid"]
        except TargetError as exc:
            answers[i] = exc

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_concurrent_requests_go_to_as_many_processes_as_allowed(slow_engine: list[str]) -> None:
    transport = CommandTransport(slow_engine, timeout=20, processes=2)
    try:
        pids = _at_once(transport, 3, sleep=1.0)
        assert all(isinstance(pid, int) for pid in pids)
        assert len(set(pids)) == 2  # two answered at once, the third waited for one of them
        assert {transport("context_pack", {})["pid"] for _ in range(4)} <= set(pids)  # kept warm
    finally:
        transport.close()


def test_one_process_answers_everything_by_default(slow_engine: list[str]) -> None:
    transport = CommandTransport(slow_engine, timeout=20)
    try:
        assert len(set(_at_once(transport, 3, sleep=0.2))) == 1
    finally:
        transport.close()


def test_each_thread_reads_the_stderr_of_the_engine_that_answered_it(slow_engine: list[str]) -> None:
    transport = CommandTransport(slow_engine, timeout=20, processes=2)
    tails: dict[int, str] = {}

    def ask() -> None:
        pid = transport("context_pack", {"sleep": 0.5})["pid"]
        end = time.monotonic() + 10  # stderr is pumped by a reader thread: it may land just after
        while f"engine {pid}" not in transport.stderr_tail() and time.monotonic() < end:
            time.sleep(0.02)
        tails[pid] = transport.stderr_tail()

    threads = [threading.Thread(target=ask) for _ in range(2)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(tails) == 2
        for pid, tail in tails.items():
            assert f"engine {pid}" in tail
    finally:
        transport.close()


def test_a_timed_out_engine_is_replaced_and_the_other_stays_warm(slow_engine: list[str]) -> None:
    transport = CommandTransport(slow_engine, timeout=2.0, processes=2)
    answers: dict[str, object] = {}

    def ask(name: str, sleep: float) -> None:
        try:
            answers[name] = transport("context_pack", {"sleep": sleep})["pid"]
        except TargetError as exc:
            answers[name] = exc

    threads = [threading.Thread(target=ask, args=("hang", 10.0)), threading.Thread(target=ask, args=("quick", 0.1))]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert isinstance(answers["hang"], TargetError) and "no answer within 2s" in str(answers["hang"])
        survivor = answers["quick"]
        assert isinstance(survivor, int)
        later = _at_once(transport, 2, sleep=0.5)
        assert survivor in later and len(set(later)) == 2  # the hung one was killed, a new one started
    finally:
        transport.close()


def test_jobs_reach_the_cmd_target(slow_engine: list[str]) -> None:
    target = resolve_target("cmd:" + " ".join(slow_engine), jobs=3)
    try:
        assert target._send.processes == 3
    finally:
        target.close()
