"""Reading harness and gate cases: the fields a case must have, checked with errors naming the case.

The suites that run these cases and ``workbench validate`` both read them through here, so a corpus
is checked without importing any suite (or pandas).
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ..errors import CorpusError, SuiteError
from ..sandbox import allowed_argv
from ..wire import STATUSES, VERDICTS

if TYPE_CHECKING:
    from .model import Corpus

GROUPS = ("setup", "validate", "runtime")


INFERENCE_ONLY = frozenset({"runtime"})


def expected_commands(case: dict[str, Any]) -> list[dict[str, str]]:
    """A case's expected commands, or a CorpusError naming the case and the bad field."""
    name = case.get("name", "?")
    commands = case.get("commands")
    if not isinstance(commands, list) or not commands:
        raise CorpusError(f"harness case {name!r}: commands must be a non-empty list")
    for index, item in enumerate(commands):
        where = f"harness case {name!r}: commands[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("command"), str) or not item["command"].strip():
            raise CorpusError(f"{where}.command must be a non-empty string")
        if item.get("group") not in GROUPS:
            raise CorpusError(f"{where}.group must be one of {', '.join(GROUPS)}, got {item.get('group')!r}")
    return commands


CHANGE_SET = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


OPTIONS: dict[str, type] = {
    "base": str,
    "staged": bool,
    "policy": str,
    "governance": str,
    "request": str,
    "minConvergence": float,
    "runValidation": bool,
}


def gate_where(case: dict[str, Any]) -> str:
    return f"gate case {case.get('name', '?')!r}"


def gate_options(case: dict[str, Any]) -> dict[str, Any]:
    """The options sent to the target: ``base: HEAD, staged: true`` plus the case's, type-checked."""
    given = case.get("options") or {}
    if not isinstance(given, dict):
        raise CorpusError(f"{gate_where(case)}: options must be an object")
    for key, value in given.items():
        kind = OPTIONS.get(key)
        if kind is None:
            raise CorpusError(f"{gate_where(case)}: options.{key} is not a gate option ({', '.join(OPTIONS)})")
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not (numeric if kind is float else isinstance(value, kind)):
            raise CorpusError(f"{gate_where(case)}: options.{key} should be {kind.__name__}, got {value!r}")
    return {"base": "HEAD", "staged": True, **given}


def expected_checks(case: dict[str, Any]) -> list[dict[str, Any]]:
    """A case's expected checks with ``detailsInclude`` as a list, or a CorpusError."""
    if case.get("expectedVerdict") not in VERDICTS:
        raise CorpusError(f"{gate_where(case)}: expectedVerdict must be one of {', '.join(VERDICTS)}")
    checks = []
    for index, item in enumerate(case.get("expectedChecks") or []):
        where = f"{gate_where(case)}: expectedChecks[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise CorpusError(f"{where}.name must be a string")
        if item.get("status") not in STATUSES:
            raise CorpusError(f"{where}.status must be one of {', '.join(STATUSES)}")
        details = item.get("detailsInclude", [])
        details = [details] if isinstance(details, str) else details
        if not isinstance(details, list) or not all(isinstance(d, str) for d in details):
            raise CorpusError(f"{where}.detailsInclude must be a string or a list of strings")
        checks.append({**item, "detailsInclude": details})
    return checks


def safe_rel(rel: str, origin: str) -> str:
    parts = PurePosixPath(rel).parts
    if rel.startswith("/") or "\\" in rel or ".." in parts or any(p.lower() == ".git" for p in parts):
        raise CorpusError(f"{origin}: path {rel!r} would leave the repository or touch .git")
    return rel


def find_change_set(fixture: Path, case: dict[str, Any]) -> Path:
    """``changes/<changeSet>/`` or ``changes/<changeSet>.patch`` of a fixture, or a CorpusError."""
    name = case.get("changeSet")
    if not isinstance(name, str) or not CHANGE_SET.fullmatch(name):
        raise CorpusError(f"{gate_where(case)}: changeSet must match {CHANGE_SET.pattern}, got {name!r}")
    found = [p for p in (fixture / "changes" / name, fixture / "changes" / f"{name}.patch") if p.exists()]
    if len(found) != 1:
        state = "both a directory and a .patch" if found else "neither a directory nor a .patch"
        raise CorpusError(f"{gate_where(case)}: change set {name!r} is {state} under {fixture / 'changes'}")
    return found[0]


def check_harness(corpus: Corpus) -> None:
    """Every harness case's commands and fixture; an expected command the allowlist refuses never runs."""
    for case in corpus.cases("harnessExecution"):
        commands = expected_commands(case)
        fixture = case.get("repoFixture")
        if not isinstance(fixture, str):
            raise CorpusError(f"harness case {case.get('name', '?')!r}: repoFixture must be a string")
        corpus.fixture_dir(fixture)
        for index, item in enumerate(commands):
            if item["group"] in INFERENCE_ONLY:
                continue
            try:
                allowed_argv(item["command"])
            except SuiteError as exc:
                raise CorpusError(f"harness case {case.get('name')!r}: commands[{index}]: {exc}") from None


def gate_fixture(case: dict[str, Any], corpus: Corpus) -> tuple[str, Path, Path, dict[str, Any]]:
    """A gate case's fixture name, its directory, its change set and its options, or a CorpusError."""
    options, _ = gate_options(case), expected_checks(case)
    fixture = case.get("repoFixture")
    if not isinstance(fixture, str):
        raise CorpusError(f"{gate_where(case)}: repoFixture must be a string")
    source = corpus.fixture_dir(fixture)
    if not (source / "base").is_dir():
        raise CorpusError(f"{gate_where(case)}: fixture {fixture!r} has no base/ directory")
    change = find_change_set(source, case)
    for part in (source / "base", change):
        if not _unlinked(part, source):
            where = part.relative_to(source)
            raise CorpusError(
                f"{gate_where(case)}: {where} of fixture {fixture!r} is reached through a symlink "
                f"(to {part.resolve()}); a gate copies only the fixture's own files"
            )
    return fixture, source, change, options


def _unlinked(path: Path, root: Path) -> bool:
    """Whether ``path``, under ``root``, is reached from it without a symlink."""
    return path.resolve() == root.resolve() / path.relative_to(root)


def check_gate(corpus: Corpus) -> None:
    """Every gate case's options, expected checks, fixture base/ and change set, as CorpusErrors."""
    for case in corpus.cases("gateEffectiveness"):
        gate_fixture(case, corpus)
