"""The kernel pool: a report's kernels wait, warm, for the next report this process renders, where a
fresh kernel would behave the same (same directory and ``PYTHON*`` variables, no imported file
changed), given the current environment; at most one per core waits, and not for long."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from workbench.report import _kernel_pool
from workbench.report._kernels import KernelSlot

WARMUP = "import json"  # a cheap warm-up: these tests start several kernels


@pytest.fixture
def pool(monkeypatch: pytest.MonkeyPatch):
    """The pool, empty for this test (kernels other tests left warm wait aside meanwhile)."""
    monkeypatch.setattr(_kernel_pool, "_idle", {})
    yield _kernel_pool
    _kernel_pool.close_all()


def _ask(slot: KernelSlot, expression: str) -> Any:
    reply = slot.run("", {"value": expression})
    return eval(reply["user_expressions"]["value"]["data"]["text/plain"])  # a repr of str, int or bool


def _started(pool: Any, cwd: Path, warmup: str = WARMUP) -> KernelSlot:
    slot = pool.take(cwd, warmup)
    assert slot.km is None, "expected a new kernel"
    return slot.start()


def _gone(pid: int, within: float = 10.0) -> bool:
    stop = time.monotonic() + within
    while time.monotonic() < stop:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                if handle.read().rpartition(b")")[2].split()[0] == b"Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def test_a_kept_kernel_is_handed_out_again_in_its_directory_with_the_current_environment(
    pool: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WB_POOL_CHANGED", "before")
    monkeypatch.setenv("WB_POOL_REMOVED", "x")
    slot = _started(pool, tmp_path)
    pid = _ask(slot, "__import__('os').getpid()")
    slot.run("import os; os.chdir('/')")
    pool.give(slot)
    monkeypatch.setenv("WB_POOL_CHANGED", "after")
    monkeypatch.delenv("WB_POOL_REMOVED")
    again = pool.take(tmp_path, WARMUP)
    assert again is slot and _ask(again, "__import__('os').getpid()") == pid
    assert _ask(again, "__import__('os').environ.get('WB_POOL_CHANGED')") == "after"
    assert _ask(again, "'WB_POOL_REMOVED' in __import__('os').environ") is False
    assert _ask(again, "__import__('os').getcwd()") == str(tmp_path)
    pool.give(again)


def test_no_kernel_is_reused_across_directories_interpreter_settings_or_changed_imports(
    pool: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    for folder in (here, there):
        (folder / "probe_module.py").write_text("VALUE = 1\n")
    kept = _started(pool, here, "import probe_module")
    pool.give(kept)
    _started(pool, there, "import probe_module").shutdown()  # another directory: a new kernel
    monkeypatch.setenv("PYTHONWBPOOLPROBE", "1")
    _started(pool, here, "import probe_module").shutdown()  # another interpreter setting: a new one
    monkeypatch.delenv("PYTHONWBPOOLPROBE")
    pid = _ask(kept, "__import__('os').getpid()")
    later = time.time_ns() + 10**9
    os.utime(here / "probe_module.py", ns=(later, later))  # the module the kernel imported changed
    fresh = pool.take(here, "import probe_module")
    assert fresh is not kept and fresh.km is None and _gone(pid)
    assert not pool._idle


def test_at_most_one_kernel_per_core_waits_and_not_for_long(
    pool: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    first, second = _started(pool, tmp_path.parent, WARMUP), _started(pool, tmp_path, WARMUP)
    pids = [_ask(slot, "__import__('os').getpid()") for slot in (first, second)]
    pool.give(first)
    pool.give(second)  # one core: the older kernel goes
    assert _gone(pids[0]) and list(pool._idle) == [second]
    monkeypatch.setattr(_kernel_pool, "IDLE_SECONDS", 0.2)
    assert pool.take(tmp_path, WARMUP) is second
    pool.give(second)
    assert _gone(pids[1]) and not pool._idle
