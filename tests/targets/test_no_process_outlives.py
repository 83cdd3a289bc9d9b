"""Issue 20, item 3: no process an engine or a fixture command starts outlives its case or run,
``setsid`` and double forks included (checked by the pid the engine reports, never by name)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.contract import Repo
from workbench.sandbox import run_allowlisted
from workbench.targets.command import CommandTransport
from workbench.targets.protocol import ProtocolTarget

from ..conftest import write_corpus

ENGINE = Path(__file__).parents[1] / "engines" / "untrusted_engine.py"
REPO = [Repo("api", Path("/tmp/api"))]


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not: it has ended, only its entry is left)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rpartition(b")")[2].split()[0] != b"Z"
    except FileNotFoundError:
        return False


def _gone(pid: int, within: float = 5.0) -> bool:
    stop = time.monotonic() + within
    while alive(pid) and time.monotonic() < stop:
        time.sleep(0.05)
    return not alive(pid)


@pytest.mark.parametrize("query", ["spawn", "orphan", "envless"])
def test_an_engines_setsid_child_ends_with_it(query: str) -> None:
    target = ProtocolTarget("t", CommandTransport([sys.executable, str(ENGINE)], timeout=20))
    [ref] = target.context_pack(query, REPO, 8).primary
    pid = int(ref.path.split("/")[1])
    assert alive(pid) and os.getsid(pid) != os.getsid(0)  # it did escape into a session of its own
    target.close()
    assert _gone(pid), f"pid {pid} outlived its engine"


def _corpus(tmp_path: Path, query: str) -> Path:
    (tmp_path / "fixtures" / "api").mkdir(parents=True)
    case = {"name": "c", "query": query, "repoFixture": "api", "expectedPrimary": []}
    return write_corpus(tmp_path, {"retrieval": [case]})


@pytest.mark.parametrize("query", ["orphan", "envless"])
def test_no_engine_process_outlives_a_run(tmp_path: Path, query: str) -> None:
    """Issue 41 item 7: ``envless`` (``env -i setsid sh -c 'sleep & ...'``: no reap token, its own
    session, orphaned to workbench) outlived the run; now the engine's own subreaper adopts it."""
    corpus = _corpus(tmp_path, query)
    out = tmp_path / "runs"
    code = main(["run", "--corpus", str(corpus), "--target", f"cmd:{sys.executable} {ENGINE}", "--out", str(out)])
    assert code in (0, 1)
    [row] = [json.loads(line) for line in next(out.iterdir()).joinpath("cases.jsonl").read_text().splitlines()]
    pid = int(row["returned"][0].split("/")[1])
    assert _gone(pid), f"pid {pid} outlived the run"


def test_no_engine_process_outlives_the_deadline(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    corpus = _corpus(tmp_path, f"hang {pid_file}")
    args = ["run", "--corpus", str(corpus), "--target", f"cmd:{sys.executable} {ENGINE}", "--out", str(tmp_path / "r")]
    started = time.monotonic()
    main([*args, "--deadline", "3", "--timeout", "60"])
    assert time.monotonic() - started < 30
    pid = int(pid_file.read_text())
    assert _gone(pid), f"pid {pid} outlived --deadline"


@pytest.mark.parametrize("spawn", [["setsid", "sleep", "300"], ["env", "-i", "setsid", "sleep", "300"]])
def test_a_fixture_commands_setsid_child_ends_with_its_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spawn: list[str]
) -> None:
    monkeypatch.setenv("WORKBENCH_NO_BWRAP", "1")  # sandbox: none, the weaker guarantee
    from workbench.containment import bwrap as containment

    containment._bwrap.cache_clear()
    pid_file = tmp_path / "pid"
    work = tmp_path / "fx"
    work.mkdir()
    (work / "test_spawn.py").write_text(
        "import subprocess\n"
        "def test_spawn():\n"
        f"    child = subprocess.Popen({spawn!r})\n"
        f"    open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
    )
    try:
        done = run_allowlisted("pytest -q", work, 60)
    finally:
        containment._bwrap.cache_clear()
    assert done.ok, done.stdout_tail + done.stderr_tail
    pid = int(pid_file.read_text())
    assert _gone(pid), f"pid {pid} outlived its command"
