"""The Target protocol and the value types engines answer with.

A target is any object with a ``name`` and some of the capability methods
below; ``capabilities(target)`` says which. Suites ask for one capability and
are skipped, with a stated reason, when the target lacks it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

CAPABILITIES = ("context_pack", "risk_concepts", "infer_harness", "gate", "search")
# Calibration targets: reported beside every engine, never gating a run that has another target.
CONTROL_TARGETS = frozenset({"random", "bm25"})
# Seconds an engine may take to answer one request (``workbench run --timeout``'s default).
REQUEST_TIMEOUT = 60.0


@dataclass(frozen=True)
class Repo:
    """A repository handed to an engine: the corpus's fixture name and its absolute path."""

    name: str
    path: Path


@dataclass(frozen=True)
class FileRef:
    """One file of a pack: which repo it comes from and its repo-relative ``/`` path."""

    repo: str
    path: str
    reason: str = ""


@dataclass
class Pack:
    """A context pack: ranked primary files, related files, and optional rendered text."""

    primary: list[FileRef] = field(default_factory=list)
    related: list[FileRef] = field(default_factory=list)
    text: str = ""


@dataclass(frozen=True)
class Command:
    """A harness command an engine inferred (``kind`` is install, test, build, ...)."""

    kind: str
    command: str
    script: str | None = None


@dataclass(frozen=True)
class Check:
    """One named check of a merge gate."""

    name: str
    status: str
    summary: str = ""
    details: tuple[str, ...] = ()


@dataclass
class GateResult:
    """A merge gate's overall verdict and its checks."""

    verdict: str
    checks: list[Check] = field(default_factory=list)


@dataclass(frozen=True)
class SearchHit:
    """One ranked hit of a symbol search."""

    file: str
    symbol: str = ""
    line: int | None = None
    score: float | None = None


@runtime_checkable
class Target(Protocol):
    """What every target has; capability methods are optional (see ``capabilities``)."""

    name: str
    version: str


def capabilities(target: object) -> set[str]:
    """The capability names a target implements."""
    declared = getattr(target, "capabilities", None)
    if isinstance(declared, (set, frozenset, list, tuple)):
        return set(declared)
    return {cap for cap in CAPABILITIES if callable(getattr(target, cap, None))}
