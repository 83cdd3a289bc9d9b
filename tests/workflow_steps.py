"""Run a GitHub Actions job's `run:` steps in order on this machine, as the runner would: bash with
`-eo pipefail`, the workflow's and the step's `env`, a fresh `$GITHUB_OUTPUT` per step whose lines
become `steps.<id>.outputs`, and `if:` conditions. `uses:` steps are recorded, not run (the test
stands in for checkout and setup-python; an upload's `with.path` is what the test checks).

Only the expressions the shipped workflows use are understood (`always()`, `success()`,
`contains(fromJSON('[...]'), steps.<id>.outputs.<name>)`, `steps.<id>.outputs.<name>`, joined by
`&&`); any other fails the test, so a workflow cannot drift from what is run here.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
OUTPUT = re.compile(r"steps\.([\w-]+)\.outputs\.([\w-]+)")
CONTAINS = re.compile(r"contains\(fromJSON\('(.*?)'\),\s*(steps\.[\w-]+\.outputs\.[\w-]+)\)")


@dataclass
class JobResult:
    """What the steps did: each step's exit code by name (None: skipped; 'uses': not run here),
    every step's outputs by step id, the uploads' `with`, and each step's combined output."""

    outcomes: dict[str, int | str | None] = field(default_factory=dict)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    uploads: list[dict] = field(default_factory=list)
    logs: dict[str, str] = field(default_factory=dict)


def _value(expr: str, result: JobResult) -> str:
    found = OUTPUT.fullmatch(expr.strip())
    if not found:
        raise AssertionError(f"workflow expression not understood by the test: {expr!r}")
    return result.outputs.get(found.group(1), {}).get(found.group(2), "")


def _condition(text: str | None, result: JobResult, failed: bool) -> bool:
    if text is None:
        return not failed
    verdict = True
    for term in (t.strip() for t in str(text).split("&&")):
        if term == "always()":
            continue
        if term == "success()":
            verdict &= not failed
        elif found := CONTAINS.fullmatch(term):
            verdict &= _value(found.group(2), result) in json.loads(found.group(1))
        else:
            raise AssertionError(f"workflow condition not understood by the test: {term!r}")
    return verdict


def _substitute(text: str, result: JobResult) -> str:
    return EXPRESSION.sub(lambda m: _value(m.group(1), result), text)


def _read_outputs(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines() if path.exists() else []
    return dict(line.split("=", 1) for line in lines if "=" in line)


def run_workflow(
    workflow: Path,
    cwd: Path,
    env: dict[str, str],
    overrides: dict[str, str] | None = None,
    rewrite: Callable[[str], str] = lambda script: script,
    job: str = "eval",
) -> JobResult:
    """Run ``job``'s steps in ``cwd``: ``env`` is the runner's environment, the workflow's ``env``
    goes over it and ``overrides`` (what a user sets) over that; ``rewrite`` adapts each script."""
    data = yaml.safe_load(workflow.read_text())
    base = {**env, **{k: str(v) for k, v in (data.get("env") or {}).items()}, **(overrides or {})}
    result, failed = JobResult(), False
    for number, step in enumerate(data["jobs"][job]["steps"]):
        name = step.get("name") or step.get("uses") or f"step {number}"
        if not _condition(step.get("if"), result, failed):
            result.outcomes[name] = None
            continue
        if "uses" in step:
            result.outcomes[name] = "uses"
            if str(step["uses"]).startswith("actions/upload-artifact@"):
                result.uploads.append(dict(step.get("with") or {}))
            continue
        output = cwd.parent / f".github-output-{number}"
        output.unlink(missing_ok=True)
        step_env = {k: _substitute(str(v), result) for k, v in (step.get("env") or {}).items()}
        script = rewrite(str(step["run"]))
        if EXPRESSION.search(script):
            raise AssertionError(f"{name}: a run script with ${{{{ }}}} (pass it through env instead)")
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=cwd,
            env={**base, **step_env, "GITHUB_OUTPUT": str(output)},
            capture_output=True,
            text=True,
            timeout=600,
        )
        result.outcomes[name] = done.returncode
        result.logs[name] = done.stdout + done.stderr
        if "id" in step:
            result.outputs[step["id"]] = _read_outputs(output)
        failed = failed or done.returncode != 0
    return result
