"""`workbench lab`: --allow-root as root, extra flags passed on, and stopping it stops the server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.report.lab import lab_argv

CHILD = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, lambda *a: (open(sys.argv[1] + ".stopped", "w").write("clean"), sys.exit(0)))
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(60)
"""
# A foreground process: Ctrl-C raises KeyboardInterrupt even when the test runner was started in the
# background (a shell starts background jobs with SIGINT ignored, and Python keeps it ignored).
PARENT = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from workbench.report.lab import serve_lab; "
    "sys.exit(serve_lab([sys.executable, '-c', sys.argv[1], sys.argv[2]]))"
)


def test_allow_root_is_added_only_as_root_and_once() -> None:
    as_root = lab_argv(["--no-browser", "--port", "8890"], Path("nb"), as_root=True)
    assert as_root[1:] == ["-m", "jupyterlab", "--notebook-dir=nb", "--allow-root", "--no-browser", "--port", "8890"]
    assert "--allow-root" not in lab_argv(["--no-browser"], Path("nb"), as_root=False)
    assert lab_argv(["--allow-root"], Path("nb"), as_root=True).count("--allow-root") == 1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_stopping_lab_stops_its_server(tmp_path: Path, how: signal.Signals) -> None:
    pid_file = tmp_path / "server.pid"
    parent = subprocess.Popen([sys.executable, "-c", PARENT, CHILD, str(pid_file)])
    deadline = time.monotonic() + 20
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline and parent.poll() is None, "the server never started"
        time.sleep(0.05)
    server = int(pid_file.read_text())
    parent.send_signal(how)
    assert parent.wait(60) == 130  # generous: CI machines are loaded
    deadline = time.monotonic() + 10
    while _alive(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(server)
    assert (tmp_path / "server.pid.stopped").read_text() == "clean"  # asked to shut down, not killed
