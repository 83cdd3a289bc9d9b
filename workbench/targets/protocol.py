"""The JSON protocol external engines speak (``cmd:`` and ``http://`` targets).

Requests and responses are the bodies in DESIGN.md ("The JSON protocol").
``ProtocolTarget`` turns capability calls into request dicts, hands them to a
transport (``send(capability, request) -> dict``), and parses the answers
strictly: anything malformed is a ``TargetError`` saying what was wrong, which
fails only that case.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from ..contract import CAPABILITIES, Command, GateResult, GoldScope, Pack, Repo, SearchHit, record_usage
from ..errors import TargetError
from ..wire import (
    checked,
    pack_request,
    parse_concepts,
    parse_gate,
    parse_harness,
    parse_hits,
    parse_pack,
    parse_usage,
    repo_body,
)
from .handshake import Handshake, UnsupportedCapability, ask, is_unsupported

Transport = Callable[[str, dict[str, Any]], dict[str, Any]]
T = TypeVar("T")


class ProtocolTarget:
    """A target whose capabilities are answered over a JSON transport.

    Its capabilities and version come from the ``capabilities`` handshake (asked once, on first
    use; see ``workbench.targets.handshake``), less any capability a case answer said it lacks.
    """

    def __init__(
        self,
        name: str,
        send: Transport,
        version: str = "unknown",
        capabilities: tuple[str, ...] | None = None,
        timeout: float | None = None,
    ) -> None:
        self.name = name
        self.answer_timeout = timeout  # covers sending, reading and parsing one answer
        self._fallback_version = version
        self._declared = frozenset(capabilities) if capabilities is not None else None
        self._handshake: Handshake | None = None
        self.unsupported: dict[str, str] = {}  # capability -> the engine's words, from case answers
        self._send = send

    @property
    def handshake(self) -> Handshake:
        if self._handshake is None:
            self._handshake = Handshake(self._declared) if self._declared is not None else ask(self._send)
        return self._handshake

    @property
    def capabilities(self) -> set[str]:
        listed = self.handshake.capabilities
        return set(CAPABILITIES if listed is None else listed) - set(self.unsupported)

    @property
    def version(self) -> str:
        return self.handshake.version or self._fallback_version

    def _call(self, capability: str, request: dict[str, Any]) -> dict[str, Any]:
        if capability in self.unsupported:
            raise UnsupportedCapability(f"{capability}: {self.unsupported[capability]}")
        body = self._send(capability, {"capability": capability, **request})
        if isinstance(body, dict) and is_unsupported(body.get("error")):
            self.unsupported[capability] = str(body["error"])
            raise UnsupportedCapability(f"{capability}: engine error: {body['error']}")
        usage = parse_usage(body, capability) if isinstance(body, dict) else None
        if usage is not None:  # an answer that failed its case may still have cost something
            record_usage(usage)
        return checked(capability, body)

    def in_time(self, capability: str, started: float, answer: T) -> T:
        """``answer``, or a TargetError when sending, reading and parsing it took longer than the timeout."""
        elapsed = time.monotonic() - started
        if self.answer_timeout is not None and elapsed > self.answer_timeout:
            raise TargetError(
                f"{capability}: answer not received and parsed within {self.answer_timeout:g}s ({elapsed:.1f}s)"
            )
        return answer

    def _answer(self, capability: str, request: dict[str, Any], parse: Callable[[dict[str, Any]], T]) -> T:
        started = time.monotonic()
        return self.in_time(capability, started, parse(self._call(capability, request)))

    def context_pack(self, query: str, repos: list[Repo], limit: int, gold_scope: GoldScope | None = None) -> Pack:
        request = pack_request(query, repos, limit, gold_scope)
        return self._answer("context_pack", request, lambda body: parse_pack(body, repos))

    def risk_concepts(self, mode: str, text: str) -> set[str]:
        return self._answer("risk_concepts", {"mode": mode, "text": text}, parse_concepts)

    def infer_harness(self, repo: Repo) -> dict[str, list[Command]]:
        return self._answer("infer_harness", {"repo": repo_body(repo)}, parse_harness)

    def gate(self, repo: Repo, options: dict[str, Any]) -> GateResult:
        return self._answer("gate", {"repo": repo_body(repo), "options": options}, parse_gate)

    def search(self, query: str, repo: Repo, top_k: int) -> list[SearchHit]:
        return self._answer("search", {"query": query, "repo": repo_body(repo), "top_k": top_k}, parse_hits)

    def stderr_tail(self) -> str:
        """The engine's recent stderr, when its transport keeps it (``cmd:``), else ""."""
        tail = getattr(self._send, "stderr_tail", None)
        return str(tail()) if callable(tail) else ""

    def close(self) -> None:
        closer = getattr(self._send, "close", None)
        if callable(closer):
            closer()
