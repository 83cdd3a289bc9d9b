"""Engines that fail say why: a dead start stops the run (exit 3) with its stderr, and every errored
case keeps the engine's stderr tail; the example engines in ``examples/engines/`` run for real."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import IO

import pytest

from workbench.cli import main
from workbench.errors import TargetError
from workbench.run.runner import run_eval
from workbench.targets.command import CASE_STDERR, CommandTransport
from workbench.targets.handshake import EngineStartError
from workbench.targets.protocol import ProtocolTarget

from ..conftest import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples" / "engines"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

# Answers the handshake, then writes a lot to stderr and dies on its first case.
DIES_ON_A_CASE = """
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request["capability"] == "capabilities":
        print(json.dumps({"id": request["id"], "capabilities": ["context_pack"]}), flush=True)
        continue
    sys.stderr.write("noise " * 2000 + "\\nTraceback: KeyError: 'index' in load_index\\n")
    sys.stderr.flush()
    sys.exit(5)
"""


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


@needs_node
def test_a_node_engine_that_cannot_start_stops_the_run_with_its_stderr(
    tiny_corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "--corpus", str(tiny_corpus), "--out", str(tmp_path / "runs"), "--suite", "retrieval"]
    assert main([*args, "--target", "cmd:node no-such-file.js"]) == 3
    line = _one_line(capsys.readouterr().err)
    assert "Cannot find module" in line and "before its first answer" in line
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_an_engine_that_exits_at_start_stops_the_run_with_its_first_stderr_lines(
    tiny_corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "broken.py"
    script.write_text("import sys\nsys.stderr.write('config.toml: no such file\\nhint: run init\\n')\nsys.exit(2)\n")
    args = ["run", "--corpus", str(tiny_corpus), "--out", str(tmp_path / "runs"), "--suite", "retrieval"]
    assert main([*args, "--target", f"cmd:{sys.executable} {script}"]) == 3
    line = _one_line(capsys.readouterr().err)
    assert "engine exited with code 2: config.toml: no such file | hint: run init (before its first answer" in line


def test_the_transport_tells_a_dead_start_from_a_later_crash(tmp_path: Path) -> None:
    dead = CommandTransport([sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(1)"], 10)
    with pytest.raises(EngineStartError, match="boom"):
        _ = ProtocolTarget("dead", dead).capabilities
    script = tmp_path / "dies.py"
    script.write_text(DIES_ON_A_CASE)
    later = CommandTransport([sys.executable, str(script)], 10)
    target = ProtocolTarget("later", later)
    assert target.capabilities == {"context_pack"}
    with pytest.raises(TargetError) as caught:
        target.context_pack("q", [], 8)
    assert not isinstance(caught.value, EngineStartError)
    assert "exited with code 5" in str(caught.value)
    tail = target.stderr_tail()
    assert tail.endswith("KeyError: 'index' in load_index\n") and len(tail.encode()) <= CASE_STDERR
    target.close()


def test_a_dead_start_is_named_with_stderr_not_yet_read_when_it_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's stderr is read by a thread of its own, which a busy machine may not have run yet
    when the engine is seen dead: the error waits for it (here held back 0.3 s) instead of saying
    there was nothing on stderr."""
    import time

    from workbench.targets.pipes import EngineProcess

    real = EngineProcess._drain

    def late(self: EngineProcess, stream: IO[bytes]) -> None:
        time.sleep(0.3)
        real(self, stream)

    monkeypatch.setattr(EngineProcess, "_drain", late)
    dead = CommandTransport([sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(1)"], 10)
    with pytest.raises(EngineStartError, match=r"engine exited with code 1: boom \(before its first answer"):
        _ = ProtocolTarget("dead", dead).capabilities


def test_every_errored_case_keeps_the_engines_stderr_tail(tiny_corpus: Path, tmp_path: Path) -> None:
    script = tmp_path / "dies.py"
    script.write_text(DIES_ON_A_CASE)
    run = run_eval(
        tiny_corpus,
        suites=["retrieval"],
        targets=[f"cmd:{sys.executable} {script}"],
        out_dir=tmp_path / "runs",
        progress=False,
    )
    rows = [json.loads(line) for line in (run.path / "cases.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and all(row["error"] for row in rows)
    for row in rows:
        assert "KeyError: 'index' in load_index" in row["stderr"]
        assert 0 < len(row["stderr"].encode()) <= CASE_STDERR


def _grep_run(spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    out = tmp_path / Path(spec.split()[-1]).name
    corpus = str(REPO_ROOT / "corpus" / "corpus.json")
    code = main(
        ["run", "--corpus", corpus, "--target", f"cmd:{spec}", "--suite", "retrieval", "--out", str(out), "--json"]
    )
    assert code in (0, 1)  # floors met or not: a real verdict, never an error
    summary = json.loads(capsys.readouterr().out)
    (per_target,) = summary["suites"]["retrieval"].values()
    return per_target


@pytest.mark.slow
def test_the_example_engines_give_a_real_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    python = _grep_run(f"{sys.executable} {EXAMPLES / 'grep_engine.py'}", tmp_path, capsys)
    assert python["errors"] == 0 and python["scored"] > 0 and python["skipped"] is None
    assert 0 < python["metrics"]["recallAtK"] <= 1 and 0 < python["passed_cases"] < python["cases"]
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the Node example was not run")
    node = _grep_run(f"node {EXAMPLES / 'grep_engine.js'}", tmp_path, capsys)
    assert node["errors"] == 0
    assert node["metrics"] == python["metrics"] and node["passed_cases"] == python["passed_cases"]


def test_the_example_engines_answer_the_handshake_and_skip_what_they_lack(tiny_corpus: Path, tmp_path: Path) -> None:
    specs = [f"cmd:{sys.executable} {EXAMPLES / 'grep_engine.py'}"]
    if shutil.which("node") is not None:
        specs.append(f"cmd:node {EXAMPLES / 'grep_engine.js'}")
    run = run_eval(tiny_corpus, suites=["retrieval"], targets=specs, out_dir=tmp_path / "runs", progress=False)
    for per_target in run.summary["suites"]["retrieval"].values():
        assert per_target["errors"] == 0 and per_target["cases"] == 4
        assert per_target["metrics"]["recallAtK"] > 0
    versions = {t["name"]: t.get("version") for t in run.manifest["targets"]}
    assert set(versions.values()) == {"0.1"}
