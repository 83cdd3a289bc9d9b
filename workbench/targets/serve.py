"""Serve any target (the reference engine by default) over the JSON protocol on HTTP.

``POST /v1/<capability>`` takes the request bodies of the protocol; ``POST
/api/tools/semantic_search`` answers go-code's search bridge. The server answers only for the
repositories it was started with: a request names a repo by name (``--repo NAME=PATH`` and the
corpus fixtures); a ``path`` in a request is ignored, never opened. Commands (the gate's
``runValidation``) run only when started with ``allow_exec``. Queries and texts are capped at
``MAX_QUERY`` characters. Every failure is answered as ``{"error": "..."}`` so a client fails only
that case; the transport's own guards are in ``workbench.targets.guarded_http``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from ..contract import CAPABILITIES, Repo, ask_pack, capabilities
from ..errors import TargetError, WorkbenchError
from ..wire import encode_answer, parse_gold_scope
from .guarded_http import BoundedHTTPServer, make_guarded_server
from .handshake import HANDSHAKE, handshake_answer
from .http import GO_CODE_SEARCH

MAX_QUERY = 10_000
MAX_LIMIT = 200
MAX_REPOS = 32


class Dispatcher:
    """Turn protocol request bodies into calls on a target."""

    def __init__(self, target: Any, repos: dict[str, Path], allow_exec: bool = False) -> None:
        self.target = target
        self.repos = repos
        self.allow_exec = allow_exec

    def repo(self, body: Any) -> Repo:
        """A served repository by name; a ``path`` the request carries is ignored (never opened)."""
        if isinstance(body, str):
            body = {"name": body}
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            raise TargetError("request needs a repo {name}")
        path = self.repos.get(body["name"])
        if path is None or not Path(path).is_dir():
            served = ", ".join(sorted(self.repos)) or "none"
            raise TargetError(f"unknown repo {body['name']!r:.80}: this server serves only {served} (--repo NAME=PATH)")
        return Repo(body["name"], Path(path))

    def call(self, capability: str, body: dict[str, Any]) -> Any:
        if capability not in capabilities(self.target):
            raise TargetError(f"this engine does not implement {capability!r}")
        if capability == "context_pack":
            repos = body.get("repos") or []
            if not isinstance(repos, list) or not 0 < len(repos) <= MAX_REPOS:
                raise TargetError(
                    f"'repos' should be a list of at least one and at most {MAX_REPOS} {{name}} of served repositories"
                )
            return ask_pack(
                self.target,
                _text(body, "query"),
                [self.repo(r) for r in repos],
                _count(body, "limit", 8),
                parse_gold_scope(body),
            )
        if capability == "risk_concepts":
            return self.target.risk_concepts(_text(body, "mode"), _text(body, "text"))
        if capability == "infer_harness":
            return self.target.infer_harness(self.repo(body.get("repo")))
        if capability == "gate":
            options = body.get("options") or {}
            if not isinstance(options, dict):
                raise TargetError("'options' should be an object")
            if options.get("runValidation") and not self.allow_exec:
                raise TargetError("runValidation runs commands: start the server with --allow-exec")
            return self.target.gate(self.repo(body.get("repo")), dict(options))
        return self.target.search(_text(body, "query"), self.repo(body.get("repo")), _count(body, "top_k", 20))

    def answer(self, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        """HTTP status and JSON body for one request; a request's ``id`` is echoed in its answer."""
        status, payload = self._answer(path, body)
        ident = body.get("id") if isinstance(body, dict) else None
        if isinstance(ident, (int, str)) and not isinstance(ident, bool):
            payload = {**payload, "id": ident}
        return status, payload

    def _answer(self, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        if not isinstance(body, dict):
            return 400, {"error": "request body must be a JSON object"}
        try:
            if path == GO_CODE_SEARCH:
                hits = self.call("search", body)
                xml = "".join(
                    f"<result><file>{escape(h.file)}</file><symbol>{escape(h.symbol)}</symbol></result>" for h in hits
                )
                return 200, {"content": [{"type": "text", "text": f"<results>{xml}</results>"}], "is_error": False}
            capability = path.removeprefix("/v1/")
            if capability == HANDSHAKE:
                return 200, handshake_answer(self.target)
            if not path.startswith("/v1/") or capability not in CAPABILITIES:
                return 404, {"error": f"no such endpoint {path}"}
            return 200, encode_answer(capability, self.call(capability, body))
        except WorkbenchError as exc:
            return 200, {"error": str(exc)}
        except Exception as exc:  # an engine bug answers one request with an error, never kills the server
            return 200, {"error": f"{type(exc).__name__}: {exc}"}


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key, "")
    if not isinstance(value, str):
        raise TargetError(f"{key!r} should be a string")
    if len(value) > MAX_QUERY:
        raise TargetError(f"{key!r} longer than {MAX_QUERY} characters")
    return value


def _count(body: dict[str, Any], key: str, default: int) -> int:
    value = body.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_LIMIT:
        raise TargetError(f"{key!r} should be an integer from 1 to {MAX_LIMIT}")
    return value


def make_server(dispatcher: Dispatcher, host: str = "127.0.0.1", port: int = 0) -> BoundedHTTPServer:
    """An HTTP server (not yet serving) answering the protocol through ``dispatcher``; a port that
    is taken (or an address this machine does not have) is a one-line ``TargetError``."""
    try:
        return make_guarded_server(dispatcher.answer, host, port)
    except OSError as exc:
        raise TargetError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
