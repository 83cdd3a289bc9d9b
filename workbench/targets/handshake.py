"""The ``capabilities`` handshake of the JSON protocol.

A protocol engine is asked ``{"capability": "capabilities"}`` once, before any case, and may
answer ``{"capabilities": [str], "name": str?, "version": str?}``. Suites whose capability is
not listed are skipped for that engine with the reason. An engine that does not answer the
handshake (an error, garbage, no such endpoint) is taken to support every capability, as before
the handshake existed. A case answered ``{"error": "unsupported capability: X"}`` skips the
rest of that suite for that engine instead of failing its cases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..contract import CAPABILITIES
from ..errors import TargetError

HANDSHAKE = "capabilities"
_UNSUPPORTED = re.compile(r"^\s*unsupported capability\b", re.IGNORECASE)


class EngineStartError(TargetError):
    """The engine could not start, or ended before its first answer: the run cannot go on."""


class UnsupportedCapability(TargetError):
    """The engine said it does not implement the capability it was asked for."""


@dataclass(frozen=True)
class Handshake:
    """What an engine said about itself; ``capabilities`` is None when it did not answer."""

    capabilities: frozenset[str] | None = None
    name: str | None = None
    version: str | None = None
    note: str = ""  # why the answer was not used, when it was not


def parse_handshake(body: Any) -> Handshake:
    """The handshake an answer describes; anything that is not a valid answer means 'supports all'."""
    if not isinstance(body, dict):
        return Handshake(note="handshake answer is not a JSON object")
    if body.get("error"):
        return Handshake(note=f"handshake not supported: {str(body['error'])[:120]}")
    listed = body.get("capabilities")
    if not isinstance(listed, list) or not all(isinstance(c, str) for c in listed):
        return Handshake(note="handshake answer has no 'capabilities' list of strings")
    name, version = body.get("name"), body.get("version")
    return Handshake(
        frozenset(c for c in listed if c in CAPABILITIES),
        name if isinstance(name, str) and name else None,
        version if isinstance(version, str) and version else None,
    )


def ask(send: Any) -> Handshake:
    """Ask an engine over ``send(capability, request)``; a failed exchange means 'supports all',
    except an engine that could not start or died before answering (``EngineStartError``)."""
    try:
        return parse_handshake(send(HANDSHAKE, {"capability": HANDSHAKE}))
    except EngineStartError:
        raise
    except TargetError as exc:
        return Handshake(note=f"no handshake ({exc})")


def is_unsupported(error: Any) -> bool:
    """Whether an ``error`` answer says the capability is not implemented."""
    return isinstance(error, str) and bool(_UNSUPPORTED.match(error))


_SAID = re.compile(r"^\w+: (?:engine error: )?(unsupported capability\b.*)$", re.IGNORECASE | re.DOTALL)


def note_unsupported(target: Any, capability: str, errors: list[str | None]) -> None:
    """Record on a protocol target that ``capability`` is unsupported when a case error says so
    (cases reused from a journal on ``--resume`` carry the answer, not the target's memory of it)."""
    said = getattr(target, "unsupported", None)
    if not isinstance(said, dict) or capability in said:
        return
    for error in errors:
        found = _SAID.match(error or "")
        if found:
            said[capability] = found.group(1)
            return


def handshake_answer(target: Any) -> dict[str, Any]:
    """The handshake body a server answers for ``target`` (see ``serve``)."""
    from ..contract import capabilities

    body: dict[str, Any] = {"capabilities": sorted(capabilities(target))}
    for key in ("name", "version"):
        value = getattr(target, key, None)
        if isinstance(value, str) and value:
            body[key] = value
    return body


def skip_reason(target: Any, capability: str) -> str:
    """Why a suite needing ``capability`` is skipped for ``target``, in one line."""
    said = (getattr(target, "unsupported", None) or {}).get(capability)
    if said:
        return f"target lacks capability {capability!r} (the engine answered {said!r})"
    shaken = getattr(target, "handshake", None)
    if isinstance(shaken, Handshake) and shaken.capabilities is not None:
        return f"target lacks capability {capability!r} (not in the engine's capabilities handshake)"
    return f"target lacks capability {capability!r}"
