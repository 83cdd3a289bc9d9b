"""Issue 13, part 4: fixture commands are contained (bubblewrap when present) and copies hold no
escaping links. Runs with and without bwrap: the bwrap-only checks skip where it cannot run."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from pathlib import Path

import pytest

import workbench as wb
from tests.report_runs import build_run
from tests.suites.test_harness_suite import PYTEST, HarnessDouble, _case, _corpus
from workbench import containment
from workbench.containment import bwrap
from workbench.options import RunOptions
from workbench.report.text import render_scoreboard
from workbench.run.runner import run
from workbench.sandbox import copy_tree, drop_escaping_links, run_allowlisted, safe_env, sandbox_kind, tree_digest
from workbench.suites.base import RunContext
from workbench.suites.harness import HarnessSuite

needs_bwrap = pytest.mark.skipif(sandbox_kind() != "bwrap", reason="bubblewrap not available here")

WRITE_THROUGH_LINKS = """
import os
from pathlib import Path

def test_writes_through_every_link():
    for name in ("out_link", "self_link", "loop_a", "dangling"):
        try:
            Path(name).write_text("written by the fixture's tests")
        except OSError:
            pass
    assert True
"""


def _links(fixture: Path, outside: Path) -> None:
    (fixture / "out_link").symlink_to(outside)
    (fixture / "self_link").symlink_to("self_link")
    (fixture / "loop_a").symlink_to("loop_b")
    (fixture / "loop_b").symlink_to("loop_a")
    (fixture / "dangling").symlink_to("nowhere/at/all")
    (fixture / "inside_link").symlink_to("pyproject.toml")


def test_drop_escaping_links_keeps_only_links_that_stay_inside(tmp_path: Path) -> None:
    root = tmp_path / "copy"
    root.mkdir()
    (root / "pyproject.toml").write_text("x")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    _links(root, outside)
    (root / "chain").symlink_to("out_link")  # inside, but on to a link that leaves
    (root / "abs_inside").symlink_to(root / "pyproject.toml")
    dropped = drop_escaping_links(root)
    assert sorted(dropped) == ["chain", "dangling", "loop_a", "loop_b", "out_link", "self_link"]
    assert sorted(p.name for p in root.iterdir() if p.is_symlink()) == ["abs_inside", "inside_link"]


def test_a_fixture_with_outward_and_self_pointing_links_is_unchanged_by_a_harness_run(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [_case({**PYTEST, "command": "python -m pytest"})], test_body=WRITE_THROUGH_LINKS)
    fixture = corpus.fixture_dir("fx")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    _links(fixture, outside)
    before = tree_digest(fixture)
    suite = HarnessSuite()
    observation = suite.run_case(HarnessDouble(), suite.cases(corpus)[0], RunContext(corpus=corpus, timeout=60))
    assert observation["commands"][0]["exitCode"] == 0
    assert tree_digest(fixture) == before
    assert outside.read_text() == "keep me"
    assert not (fixture / "nowhere").exists()


def test_copy_tree_never_follows_a_link_into_the_source(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_text("a")
    (src / "back").symlink_to(src)  # a link to the fixture itself
    copy = copy_tree(src, tmp_path / "copy")
    assert not (copy / "back").exists() and (copy / "a.txt").read_text() == "a"


CONTAINED = """
import os
import socket
from pathlib import Path

def test_contained():
    outside = Path(os.environ.get("WB_OUTSIDE", "/nonexistent"))
    try:
        outside.write_text("escaped")
        wrote = True
    except OSError:
        wrote = False
    assert not wrote, "wrote outside the copy"
    Path("inside.txt").write_text("fine")           # the copy is writable
    Path("/tmp/scratch.txt").write_text("fine")      # so is a private /tmp
    try:
        socket.create_connection(("127.0.0.1", int(os.environ.get("WB_PORT", "9"))), timeout=2).close()
        reached = True
    except OSError:
        reached = False
    assert not reached, "reached the host's network"
    assert os.getpid() < 10, "not in its own PID namespace"
"""


@needs_bwrap
def test_under_bwrap_a_command_writes_only_its_copy_and_has_no_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    try:
        work = tmp_path / "work"
        (work / "tests").mkdir(parents=True)
        (work / "pyproject.toml").write_text("[project]\nname = 'fx'\nversion = '0'\n\n[tool.pytest.ini_options]\n")
        (work / "tests" / "test_contained.py").write_text(CONTAINED)
        # outside the copy and outside /tmp (which the sandbox replaces with its own): a host-writable place
        host_dir = Path(tempfile.mkdtemp(prefix="workbench-escape-", dir="/var/tmp"))
        outside = host_dir / "outside.txt"
        env = {**safe_env(), "WB_OUTSIDE": str(outside), "WB_PORT": str(server.getsockname()[1])}
        monkeypatch.setattr("workbench.sandbox.safe_env", lambda: env)
        execution = run_allowlisted("python -m pytest -q", work, timeout=60)
        assert execution.ok, execution.stdout_tail + execution.stderr_tail
        assert not outside.exists() and (work / "inside.txt").exists()
        shutil.rmtree(host_dir)
    finally:
        server.close()


def test_without_bwrap_the_summary_and_scoreboard_say_sandbox_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(containment.ENV_DISABLE, "1")
    bwrap._bwrap.cache_clear()
    try:
        assert containment.contain(["true"], tmp_path) == ["true"]
        corpus = _corpus(tmp_path, [_case({**PYTEST, "command": "python -m pytest"})])
        result = run(
            corpus, RunOptions(suites=["harness"], targets=["builtin"], out_dir=tmp_path / "runs", progress=False)
        )
        assert result.summary["sandbox"] == "none" and result.cases.loc[0, "passed"]
        assert "sandbox: none" in render_scoreboard(result.summary)
    finally:
        monkeypatch.delenv(containment.ENV_DISABLE)
        bwrap._bwrap.cache_clear()


def _orphaned_bwraps() -> list[int]:
    """bwrap processes of this session handed to init (parent pid 1), zombies included."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(f"/proc/{entry.name}/stat").read_bytes()
            except OSError:
                continue
            name, fields = stat.partition(b" (")[2].rpartition(b")")[::2]
            parent, session = int(fields.split()[1]), int(fields.split()[3])
            if name == b"bwrap" and parent == 1 and session == os.getsid(0):
                found.append(int(entry.name))
    return found


@needs_bwrap
def test_the_probe_leaves_no_bwrap_process_to_init() -> None:
    """bwrap exits before its namespace's first process; the probe's own reaper collects that one,
    so nothing of it is left for init to reap (a zombie meanwhile)."""
    try:
        for _ in range(5):
            bwrap._bwrap.cache_clear()
            assert bwrap._bwrap() is not None
            assert _orphaned_bwraps() == []
    finally:
        bwrap._bwrap.cache_clear()


@needs_bwrap
def test_with_bwrap_the_summary_says_bwrap(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [_case({**PYTEST, "command": "python -m pytest"})])
    result = run(corpus, RunOptions(suites=["harness"], targets=["builtin"], out_dir=tmp_path / "runs", progress=False))
    assert result.summary["sandbox"] == "bwrap"
    assert result.cases.loc[0, "passed"]


@pytest.mark.parametrize("kind", ["bwrap", "none"])
def test_the_report_header_says_what_contained_the_commands(tmp_path: Path, kind: str) -> None:
    run_dir = build_run(tmp_path / "runs", suites=("retrieval",))
    summary = json.loads((run_dir / "summary.json").read_text())
    (run_dir / "summary.json").write_text(json.dumps(dict(summary, sandbox=kind)))
    header = wb.views.run_header(wb.views.open_run(run_dir))._repr_html_()
    assert f"sandbox: {kind}" in header


def test_host_configuration_under_the_system_prefix_is_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 41: /usr/local/etc (npmrc, pip.conf and their tokens) is an empty read-only folder inside."""
    monkeypatch.setattr(bwrap.os.path, "isdir", lambda p: True)
    monkeypatch.setattr(bwrap.os.path, "islink", lambda p: False)
    args = bwrap._system()
    assert "/usr/local/etc" in bwrap.HIDDEN
    for path in bwrap.HIDDEN:
        at = args.index(path)
        assert args[at - 1] == "--tmpfs" and args[at + 1 : at + 3] == ["--remount-ro", path]
        assert at > args.index("/usr")  # mounted over the system prefix's own copy


@needs_bwrap
@pytest.mark.skipif(not Path("/usr/local/etc").is_dir(), reason="no /usr/local/etc on this host")
def test_under_bwrap_usr_local_etc_is_empty(tmp_path: Path) -> None:
    import subprocess

    seen = subprocess.run(
        containment.contain(["sh", "-c", "ls -A /usr/local/etc; touch /usr/local/etc/x && echo wrote"], tmp_path),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert seen.stdout == "", seen.stdout
