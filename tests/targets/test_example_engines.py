"""README's "Targets" examples, line by line: the `cmd:` engines (Python, Node), the `http://` one
and the `python:` one each run the shipped corpus's retrieval suite and give a real summary."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import REPO_ROOT

pytestmark = pytest.mark.slow

BLOCK = re.compile(r"<!-- target-examples -->\n```sh\n(.*?)```\n<!-- /target-examples -->", re.S)
README_PORT = "8765"


def _lines() -> list[str]:
    found = BLOCK.search((REPO_ROOT / "README.md").read_text())
    assert found, "README: the targets' example block between its markers"
    return [line.split("  #")[0].strip() for line in found.group(1).splitlines() if line.strip()]


def _free_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return str(sock.getsockname()[1])


def test_every_kind_of_target_in_the_readme_runs(tmp_path: Path) -> None:
    lines = _lines()
    kinds = {line.split("--target ")[-1].strip('"').split(":")[0] for line in lines if "--target" in line}
    assert kinds == {"cmd", "http", "python"}
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    port, servers, summaries = _free_port(), [], {}
    try:
        for number, line in enumerate(lines):
            line = line.replace(README_PORT, port)
            if "grep_engine.js" in line and shutil.which("node") is None:
                continue  # Node is optional here (.ci/run's machine has it)
            if line.endswith("&"):
                server = subprocess.Popen(
                    shlex.split(line[:-1]), cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, text=True
                )
                servers.append(server)
                assert server.stdout is not None and "listening" in server.stdout.readline()
                continue
            out = tmp_path / str(number)
            done = subprocess.run(
                ["bash", "-c", f"{line} --out {out} --json"], cwd=REPO_ROOT, env=env, capture_output=True, text=True
            )
            assert done.returncode in (0, 1), line + "\n" + done.stderr[-2000:]  # a verdict, never an error
            (summaries[line],) = json.loads(done.stdout)["suites"]["retrieval"].values()
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=10)
    assert len(summaries) >= 3
    for line, summary in summaries.items():
        assert summary["errors"] == 0 and summary["scored"] > 0 and summary["skipped"] is None, line
        assert summary["metrics"]["recallAtK"] > 0.5 and summary["passed_cases"] > 0, line
    grep = [s["metrics"] for line, s in summaries.items() if "grep_engine" in line or "http://" in line]
    assert all(metrics == grep[0] for metrics in grep)  # one engine, whichever way it is reached
