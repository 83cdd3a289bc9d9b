"""Issue 20, item 2 ("Done means"): a harness case whose fixture tries to read /etc/shadow, the home
folder and the workbench's own checkout, fork 1,000 processes, write 1 GB and print 1 GB ends
failed, with workbench's memory bounded and none of the host's contents in the run folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from workbench.contract import Command, Repo
from workbench.sandbox import sandbox_kind

from .conftest import REPO_ROOT, write_corpus

needs_bwrap = pytest.mark.skipif(sandbox_kind() != "bwrap", reason="bubblewrap not available here")
CHECKOUT_FILE = REPO_ROOT / "workbench" / "__init__.py"
BOUND_PARTS = {part for prefix in (sys.prefix, sys.base_prefix) for part in Path(prefix).resolve().parts}

# Each test reports what it saw from an atexit hook, after pytest has stopped capturing: straight
# onto the command's real stderr, which is what a run records (``stderrTail``).
READ = f"""
import atexit, os
from pathlib import Path

def test_read_the_host():
    seen = []
    for path in ("/etc/shadow", {str(CHECKOUT_FILE)!r}):
        try:
            seen.append(f"READ {{path}}: " + Path(path).read_text()[:300])
        except OSError as exc:
            seen.append(f"DENIED {{path}}: {{exc.strerror}}")
    for folder in ({str(Path.home())!r}, "/home", {str(REPO_ROOT)!r}, {str(REPO_ROOT.parent)!r}):
        try:
            seen.append(f"LIST {{folder}}: " + " ".join(sorted(os.listdir(folder))))
        except OSError as exc:
            seen.append(f"DENIED {{folder}}: {{exc.strerror}}")
    seen.append(f"HERE {{os.getcwd()}}")
    atexit.register(lambda: os.write(2, ("\\n".join(seen) + "\\n").encode()))
    assert False, "tried to read the host"
"""
FORK = """
import os, time

def test_fork_a_thousand():
    for _ in range(1000):
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
"""
WRITE = """
def test_write_a_gigabyte():
    block = b"x" * (1 << 20)
    for n in range(8):
        with open(f"big{n}.bin", "wb") as handle:
            for _ in range(128):
                handle.write(block)
"""
PRINT = """
import atexit, os

def test_print_a_gigabyte():
    def flood():
        block = b"y" * (1 << 20)
        for _ in range(1024):
            os.write(1, block)
            os.write(2, block)
    atexit.register(flood)
"""
# printing comes before writing: the copy's byte limit counts everything the case wrote into it
TESTS = {"test_read.py": READ, "test_fork.py": FORK, "test_print.py": PRINT, "test_write.py": WRITE}


class Hostile:
    """A harness target that infers exactly the commands that run each hostile test."""

    name, version = "hostile", "0"

    def infer_harness(self, repo: Repo) -> dict[str, list[Command]]:
        return {"validate": [Command("test", f"python -m pytest -q tests/{name}") for name in TESTS]}


def target() -> Hostile:
    return Hostile()


def _corpus(tmp_path: Path) -> Path:
    fixture = tmp_path / "fixtures" / "fx"
    (fixture / "tests").mkdir(parents=True)
    (fixture / "pyproject.toml").write_text("[project]\nname = 'fx'\nversion = '0'\n\n[tool.pytest.ini_options]\n")
    for name, body in TESTS.items():
        (fixture / "tests" / name).write_text(textwrap.dedent(body))
    commands = [{"kind": "test", "group": "validate", "command": f"python -m pytest -q tests/{n}"} for n in TESTS]
    case = {"name": "hostile", "repoFixture": "fx", "commands": commands}
    return write_corpus(tmp_path, {"thresholds": {"harness": {"casePassRate": 1.0}}, "harnessExecution": [case]})


RUNNER = """
import sys
from workbench.cli import main
code = main(sys.argv[1:])
peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM"))
print("PEAK", peak.split()[1], "CODE", code, file=sys.stderr)
"""


def _host_secrets() -> list[str]:
    secrets = [CHECKOUT_FILE.read_text().splitlines()[0]]
    try:
        secrets += [line for line in Path("/etc/shadow").read_text().splitlines() if ":$" in line][:3]
    except OSError:
        pass
    return [s for s in secrets if len(s) > 8]


@pytest.mark.slow
@needs_bwrap
def test_a_hostile_harness_case_fails_bounded_and_leaks_nothing(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    out = tmp_path / "runs"
    args = [
        "run",
        "--corpus",
        str(corpus),
        "--suite",
        "harness",
        "--target",
        "python:tests.test_hostile_harness:target",
    ]
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, *args, "--out", str(out), "--timeout", "120"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    peak_kb, code = (int(x) for x in done.stderr.rsplit("PEAK", 1)[1].split()[::2])
    assert code == 1, done.stderr[-2000:]
    assert peak_kb < 300 * 1024, f"workbench peaked at {peak_kb / 1024:.0f} MB"
    [run_dir] = list(out.iterdir())
    [row] = [json.loads(line) for line in (run_dir / "cases.jsonl").read_text().splitlines()]
    by_test = {c["command"].rsplit("/", 1)[1]: c for c in row["commands"]}
    assert not row["passed"] and [c["passed"] for c in row["commands"]] == [False, False, True, False]
    assert by_test["test_fork.py"]["reason"] == "killed: more than 256 processes"
    assert by_test["test_write.py"]["reason"] == "killed: wrote more than 512 MB"
    assert by_test["test_print.py"]["exitCode"] == 0 and len(by_test["test_print.py"]["stderrTail"]) <= 2000
    seen = by_test["test_read.py"]["stderrTail"]
    assert "DENIED /etc/shadow: No such file or directory" in seen and f"DENIED {CHECKOUT_FILE}" in seen
    [here] = [line[5:] for line in seen.splitlines() if line.startswith("HERE ")]
    # A checkout under /tmp has the test list the sandbox's private /tmp, which holds the case's own copy.
    own_copy = set(Path(here).parts)
    for line in seen.splitlines():
        if line.startswith("LIST "):
            folder, _, names = line[5:].partition(": ")
            assert set(names.split()) <= BOUND_PARTS | own_copy, line  # leading to a bound toolchain or the copy
    everything = "".join(p.read_text(errors="replace") for p in run_dir.iterdir() if p.suffix in (".json", ".jsonl"))
    assert not [s for s in _host_secrets() if s in everything]
    assert sum(p.stat().st_size for p in run_dir.iterdir()) < 1 << 20


def _processes_of(tmp_path: Path) -> list[int]:
    mine = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if str(tmp_path) in Path(f"/proc/{entry.name}/cmdline").read_text(errors="replace"):
                    mine.append(int(entry.name))
            except OSError:
                continue
    return mine


def test_output_is_bounded_without_bwrap_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from workbench.containment import bwrap as containment
    from workbench.sandbox import run_allowlisted

    monkeypatch.setenv(containment.ENV_DISABLE, "1")
    containment._bwrap.cache_clear()
    try:
        (tmp_path / "tests").mkdir()
        (tmp_path / "tests" / "test_print.py").write_text(textwrap.dedent(PRINT.replace("1024", "256")))
        (tmp_path / "tests" / "test_fork.py").write_text(textwrap.dedent(FORK))
        printed = run_allowlisted("python -m pytest -q tests/test_print.py", tmp_path, 120)
        forked = run_allowlisted("python -m pytest -q tests/test_fork.py", tmp_path, 120)
    finally:
        containment._bwrap.cache_clear()
    assert printed.ok and len(printed.stdout_tail) <= 2000 and set(printed.stderr_tail) == {"y"}
    assert forked.reason == "killed: more than 256 processes" and not forked.ok
    assert _processes_of(tmp_path) == []
