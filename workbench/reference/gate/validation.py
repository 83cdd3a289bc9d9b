"""Validation execution: run the repository's own versioned validation commands on the change.

The commands come only from ``.workbench/validation.json`` as committed at the base
(``{"commands": ["npm test", ...], "timeout": 60}``): a change cannot add or loosen the policy
that validates it. The change's tree is exported to a temp directory (the index when staged) and
each command runs there through the sandbox allowlist, so the repository itself is never touched.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ...contract import Check
from ...sandbox import Execution, copy_tree, git, run_allowlisted
from .diff import Diff

VALIDATION = "Validation execution"
POLICY_FILE = ".workbench/validation.json"
NEEDS_POLICY = "Validation requested but requires a versioned validation policy"
DEFAULT_TIMEOUT, MAX_TIMEOUT = 60.0, 600.0


def read_policy(text: str) -> tuple[list[str], float]:
    """The commands and timeout of a validation policy, or ValueError naming the bad field."""
    data: Any = json.loads(text)
    commands = data.get("commands") if isinstance(data, dict) else None
    if not isinstance(commands, list) or not commands or not all(isinstance(c, str) and c.strip() for c in commands):
        raise ValueError("commands must be a non-empty list of command strings")
    timeout = data.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_TIMEOUT:
        raise ValueError(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}]")
    return commands, float(timeout)


def _export(diff: Diff, dest: Path) -> Path:
    """The change's tree at ``dest``: the index when staged, else the working tree (without .git)."""
    if diff.staged:
        git(["checkout-index", "-a", f"--prefix={dest}/"], diff.repo)
        return dest
    return copy_tree(diff.repo, dest)


def _line(run: Execution) -> str:
    return (
        f"{run.command}: exit {run.exit_code} in {run.seconds:g} s"
        if run.reason is None
        else f"{run.command}: {run.reason}"
    )


def validation_execution(diff: Diff, requested: bool) -> Check:
    """SKIPPED unless requested; FAIL without a base policy, on a refused or failing command."""
    if not requested:
        return Check(VALIDATION, "SKIPPED", "Validation not requested")
    text = diff.base_text(POLICY_FILE)
    if text is None:
        where = f"{POLICY_FILE} is not committed at the base {diff.base[:12]}"
        return Check(VALIDATION, "FAIL", NEEDS_POLICY, (where,))
    try:
        commands, timeout = read_policy(text)
    except ValueError as exc:
        return Check(VALIDATION, "FAIL", "Validation policy is invalid", (f"{POLICY_FILE}: {exc}",))
    work = Path(tempfile.mkdtemp(prefix="workbench-validate-"))
    try:
        tree = _export(diff, work / "tree")
        runs = [run_allowlisted(command, tree, timeout) for command in commands]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    details = tuple(_line(run) for run in runs)
    if any(run.refused for run in runs):
        return Check(VALIDATION, "FAIL", "Validation command refused by the allowlist", details)
    if not all(run.ok for run in runs):
        return Check(VALIDATION, "FAIL", "Validation failed", details)
    return Check(VALIDATION, "PASS", f"{len(runs)} validation command(s) passed", details)
