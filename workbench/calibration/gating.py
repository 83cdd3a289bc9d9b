"""The target's gate verdict on each change, as the change was at its commit.

A scratch repository in a temp directory borrows the user's objects (``objects/info/alternates``,
nothing copied, the user's repository never written); for each change ``git read-tree <sha>``
puts the commit's tree in the scratch index and the target's ``gate`` judges the staged change
against the first parent (``{"base": parent, "staged": true}``), so the gate sees exactly the
commit's diff without a checkout. About 16 ms a change with the builtin gate (measured on koa),
so only the newest ``limit`` observed changes are gated; the flags are tabulated over those.

Flags: ``gate:FAIL`` (the verdict blocks), ``gate:WARN or FAIL`` (not a clean pass), and
``gate check:<name>`` for each check the gate reported WARN or FAIL.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..contract import Repo
from ..corpus.gitio import git_command, git_env, git_text
from ..errors import GitError
from ..mining.history import Commit
from ..options import CalibrateOptions

DEFAULT_LIMIT = CalibrateOptions.gate_changes  # written once, in workbench/options.py
_NAME = 80  # characters of a check name kept in a flag (names come from the target)


@dataclass
class Gated:
    """Gate flags by change sha (only the changes gated), and how many gate calls failed."""

    flags: dict[str, dict[str, float]] = field(default_factory=dict)
    errors: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)


def gate_flags(answer: Any) -> dict[str, float]:
    """The flags of one gate answer (a GateResult or its JSON shape); a ValueError if it is not one."""
    verdict = getattr(answer, "verdict", None)
    checks = getattr(answer, "checks", None)
    if verdict not in ("PASS", "WARN", "FAIL") or not isinstance(checks, (list, tuple)):
        raise ValueError(f"gate answered {type(answer).__name__} without a PASS/WARN/FAIL verdict")
    flags = {"gate:FAIL": float(verdict == "FAIL"), "gate:WARN or FAIL": float(verdict != "PASS")}
    for check in checks:
        status, name = getattr(check, "status", None), getattr(check, "name", None)
        if isinstance(name, str) and status in ("WARN", "FAIL"):
            flags[f"gate check:{name.strip()[:_NAME]}"] = 1.0
    return flags


def progress_bar(items: Sequence[Any], desc: str, progress: bool) -> Any:
    """A tqdm bar on stderr (shown only on a terminal, after half a second), as ``workbench mine`` does."""
    from tqdm import tqdm

    return tqdm(
        items, desc=desc, unit="change", delay=0.5, disable=None if progress else True, file=sys.stderr, leave=False
    )


def _read_tree(scratch: Path, sha: str) -> None:
    done = subprocess.run(
        git_command(scratch / ".git", "read-tree", sha), capture_output=True, env=git_env(), timeout=120, check=False
    )
    if done.returncode != 0:
        raise GitError(f"git read-tree {sha} failed in the scratch repository")


def run_gates(git_dir: Path, name: str, target: Any, changes: Sequence[Commit], progress: bool = False) -> Gated:
    """The gate's flags for each of ``changes`` (non-root commits), judged in a scratch repository."""
    gated = Gated()
    objects = git_text(git_dir, "rev-parse", "--path-format=absolute", "--git-path", "objects").strip()
    with tempfile.TemporaryDirectory(prefix="wb-calibrate-gate-") as tmp:
        scratch = Path(tmp) / name
        subprocess.run(["git", "init", "-q", str(scratch)], check=True, capture_output=True, env=git_env())
        (scratch / ".git" / "objects" / "info" / "alternates").write_text(objects + "\n")
        repo = Repo(name, scratch)
        bar = progress_bar(changes, f"gating {name}", progress)
        for commit in bar:
            _read_tree(scratch, commit.sha)
            try:
                flags = gate_flags(target.gate(repo, {"base": commit.parents[0], "staged": True}))
            except Exception:  # an untrusted gate never stops the report: the change is left out of the gate rows
                gated.errors += 1
                continue
            gated.flags[commit.sha] = flags
            verdict = "FAIL" if flags["gate:FAIL"] else "WARN" if flags["gate:WARN or FAIL"] else "PASS"
            gated.verdicts[verdict] = gated.verdicts.get(verdict, 0) + 1
        bar.close()
    return gated


__all__ = ["DEFAULT_LIMIT", "Gated", "gate_flags", "progress_bar", "run_gates"]
