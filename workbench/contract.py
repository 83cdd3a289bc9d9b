"""The Target protocol and the value types engines answer with.

A target is any object with a ``name`` and some of the capability methods
below; ``capabilities(target)`` says which. Suites ask for one capability and
are skipped, with a stated reason, when the target lacks it.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

CAPABILITIES = ("context_pack", "risk_concepts", "infer_harness", "gate", "search")
# Calibration targets: reported beside every engine, never gating a run that has another target.
CONTROL_TARGETS = frozenset({"random", "bm25", "guess"})
# Seconds an engine may take to answer one request (``workbench run --timeout``'s default).
REQUEST_TIMEOUT = 60.0
# Files in a context pack: what the retrieval suite and the gate ask for, a target's default `limit`,
# and `workbench pack --limit`'s default.
PACK_LIMIT = 8


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


@dataclass(frozen=True)
class GoldScope:
    """The rule a corpus's cases were labelled by (its ``goldScope``): the kinds of file that are never
    gold (``workbench.code.kinds.SCOPE_KINDS``: tests, docs, examples, generated, non-code)."""

    exclude: tuple[str, ...] = ()

    def body(self) -> dict[str, list[str]]:
        """The corpus and protocol form, ``{"exclude": [...]}``."""
        return {"exclude": list(self.exclude)}


@dataclass(frozen=True)
class SymbolRef:
    """One definition of a pack: its repo, repo-relative ``/`` path and name (``Class.method``)."""

    repo: str
    path: str
    name: str


@dataclass
class Pack:
    """A context pack: ranked primary files, related files, optional rendered text, and optional
    ranked ``symbols`` (None: the engine does not say which definitions; ``[]``: it found none)."""

    primary: list[FileRef] = field(default_factory=list)
    related: list[FileRef] = field(default_factory=list)
    text: str = ""
    symbols: list[SymbolRef] | None = None


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


class PackSource(Protocol):
    """A target with the ``context_pack`` capability."""

    def context_pack(self, query: str, repos: list[Repo], limit: int) -> Pack: ...


def ask_pack(
    target: PackSource, query: str, repos: list[Repo], limit: int, gold_scope: GoldScope | None = None
) -> Pack:
    """``target.context_pack(query, repos, limit)``, with ``gold_scope=`` when the corpus has one and the
    method takes it (an engine written before the field existed is asked as before)."""
    method: Callable[..., Pack] = target.context_pack
    if gold_scope is not None and _takes_gold_scope(method):
        return method(query, repos, limit, gold_scope=gold_scope)
    return method(query, repos, limit)


def _takes_gold_scope(method: Callable[..., object]) -> bool:
    import inspect

    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    return "gold_scope" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def capabilities(target: object) -> set[str]:
    """The capability names a target implements."""
    declared = getattr(target, "capabilities", None)
    if isinstance(declared, (set, frozenset, list, tuple)):
        return set(declared)
    return {cap for cap in CAPABILITIES if callable(getattr(target, cap, None))}


# The columns usage fills in a case row (and ``cases.jsonl``); a case without usage has none of them.
USAGE_COLUMNS = ("input_tokens", "output_tokens", "cost_usd", "model")
# Usage beyond these for one case is absurd: the case fails, its usage dropped (``Usage.problem``).
# They keep every sum finite and exact: a million such cases stay within a 64-bit integer.
MAX_CASE_TOKENS = 10**12
MAX_CASE_COST_USD = 1e6


@dataclass(frozen=True)
class Usage:
    """What answering cost an engine, as its answer reported it; ``None`` parts are unknown, never 0."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    model: str | None = None

    def plus(self, other: Usage) -> Usage:
        """Both answers' usage: known parts summed (an unknown part adds nothing), models joined."""

        def add(a: float | None, b: float | None) -> float | None:
            return b if a is None else a if b is None else a + b

        models = [m for m in dict.fromkeys(f"{self.model or ''},{other.model or ''}".split(",")) if m]
        return Usage(
            None if (n := add(self.input_tokens, other.input_tokens)) is None else int(n),
            None if (n := add(self.output_tokens, other.output_tokens)) is None else int(n),
            add(self.cost_usd, other.cost_usd),
            ",".join(models) or None,
        )

    def problem(self) -> str | None:
        """Why this usage cannot be one case's (negative, not finite, beyond ``MAX_CASE_TOKENS`` or
        ``MAX_CASE_COST_USD``); None when it can."""
        limits = (MAX_CASE_TOKENS, MAX_CASE_TOKENS, MAX_CASE_COST_USD)
        for key, value, limit in zip(USAGE_COLUMNS, (self.input_tokens, self.output_tokens, self.cost_usd), limits):
            if value is None:
                continue
            if not (isinstance(value, int | float) and math.isfinite(value)) or not 0 <= value <= limit:
                return f"usage.{key} {value!r:.40} is not a number from 0 to {limit:,.0f} for one case (absurd)"
        return None

    def columns(self) -> dict[str, int | float | str]:
        """The known parts as case-row columns (``USAGE_COLUMNS``)."""
        values = (self.input_tokens, self.output_tokens, self.cost_usd, self.model)
        return {key: value for key, value in zip(USAGE_COLUMNS, values, strict=True) if value is not None}


_METER = threading.local()


def record_usage(usage: Usage) -> None:
    """Add ``usage`` to the case this thread is running (a Python target may call it; protocol
    targets call it for each answer carrying ``usage``). Outside a metered case it is dropped."""
    current = getattr(_METER, "usage", None)
    if current is not None:
        _METER.usage = current.plus(usage)


@contextmanager
def metered() -> Iterator[Callable[[], Usage | None]]:
    """Meter one case on this thread: yields a function returning what was recorded (None: nothing)."""
    outer = getattr(_METER, "usage", None)
    _METER.usage = Usage()
    seen: list[Usage] = []

    def read() -> Usage | None:
        usage = seen[0] if seen else _METER.usage
        return usage if usage is not None and usage.columns() else None

    try:
        yield read
    finally:
        seen.append(_METER.usage)
        _METER.usage = outer
