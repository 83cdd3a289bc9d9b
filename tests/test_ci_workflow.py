"""The GitHub Actions workflows are valid and true to the CLI: actionlint (the dev extra installs it
from a wheel that ships the binary, so this never skips) accepts this project's own workflow and the
two in docs/ for a user's repository; every ``workbench`` option they use exists; the user workflow
writes the summary, keeps the report under the artifact name docs/reports.md gives, and fails on the
run's verdict; this project's own workflow runs .ci/run. The user workflow's steps themselves are run
in tests/test_own_repository.py."""

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
USER_WORKFLOW = ROOT / "docs" / "eval-workflow.yml"
WORKFLOWS = [USER_WORKFLOW, ROOT / "docs" / "ci-matrix.yml", ROOT / ".github" / "workflows" / "eval.yml"]


def _actionlint() -> str:
    beside = Path(sys.executable).parent / "actionlint"
    found = str(beside) if beside.exists() else shutil.which("actionlint")
    assert found, "actionlint is not installed: `make setup` installs it with the dev extra"
    return found


def _steps(workflow: Path) -> list[dict]:
    return [step for job in yaml.safe_load(workflow.read_text())["jobs"].values() for step in job["steps"]]


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_actionlint_accepts_the_workflow(workflow: Path) -> None:
    done = subprocess.run([_actionlint(), "-no-color", str(workflow)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        USER_WORKFLOW.read_text().replace("steps.run.outputs.exit_code }}", "steps.nosuch.outputs.exit_code }}")
    )
    done = subprocess.run([_actionlint(), "-no-color", str(broken)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "nosuch" in done.stdout


def test_the_user_workflow_summarises_keeps_the_report_and_fails_on_the_verdict() -> None:
    steps = _steps(USER_WORKFLOW)
    scripts = "\n".join(str(step.get("run", "")) for step in steps)
    assert "--format markdown" in scripts and '>> "$GITHUB_STEP_SUMMARY"' in scripts
    assert 'python -m pip install "$WORKBENCH"' in scripts and "pip install -e" not in scripts
    assert "--target bm25 --target guess" in scripts and '--target "$ENGINE"' in scripts
    checkout = next(s for s in steps if str(s.get("uses", "")).startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0  # the whole history, which `workbench mine` reads
    uploads = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert uploads and uploads[0]["with"]["path"] == "reports/html" and uploads[0]["if"] == "always()"
    assert steps[-1]["name"] == "Verdict" and 'test "${EXIT_CODE:-4}" = 0' in steps[-1]["run"]


def test_the_artifact_names_agree_with_the_report_guide() -> None:
    guide = (ROOT / "docs" / "reports.md").read_text()
    for workflow in (USER_WORKFLOW, ROOT / ".github" / "workflows" / "eval.yml"):
        uploads = [s for s in _steps(workflow) if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
        assert [u["with"]["name"] for u in uploads] == ["eval-report"]
    assert "`eval-report` artifact" in guide and "reports-html" not in guide


def test_this_projects_workflow_runs_what_ci_runs() -> None:
    steps = _steps(ROOT / ".github" / "workflows" / "eval.yml")
    assert any(str(step.get("run", "")).strip() == "bash .ci/run" for step in steps)
    ci = (ROOT / ".ci" / "run").read_text()
    assert "bubblewrap" in ci and "chromium-driver" in ci and "make test" in ci


def _workbench_commands(script: str) -> list[list[str]]:
    joined = re.sub(r"\\\n\s*", " ", script)
    lines = [line.strip() for line in joined.splitlines()]
    return [shlex.split(line.split(" > ")[0].split(" || ")[0])[1:] for line in lines if line.startswith("workbench ")]


@pytest.mark.parametrize("workflow", WORKFLOWS[:2], ids=lambda p: p.name)
def test_every_workbench_option_in_the_workflow_exists(workflow: Path) -> None:
    commands = [c for step in _steps(workflow) for c in _workbench_commands(str(step.get("run", "")))]
    assert {"run", "report"} <= {c[0] for c in commands}
    for name, *args in commands:
        if name.startswith("--"):
            assert name == "--version"
            continue
        known = {opt for param in cli.commands[name].params for opt in getattr(param, "opts", [])}
        flags = [a for a in args if a.startswith("--")]
        assert set(flags) <= known, f"workbench {name}: {set(flags) - known}"
