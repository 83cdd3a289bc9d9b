"""Serve any target (the reference engine by default) over the JSON protocol on HTTP.

``POST /v1/<capability>`` takes the request bodies of the protocol; ``POST
/api/tools/semantic_search`` answers go-code's search bridge. Repos may be given
by name only: names resolve through ``--repo NAME=PATH`` and the corpus fixtures.
Every failure is answered as ``{"error": "..."}`` so a client fails only that case.
"""
from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from ..errors import TargetError, WorkbenchError
from ..contract import CAPABILITIES, Repo, capabilities
from .http import GO_CODE_SEARCH
from .protocol import encode_answer

MAX_BODY = 4 * 1024 * 1024


class Dispatcher:
    """Turn protocol request bodies into calls on a target."""

    def __init__(self, target: Any, repos: dict[str, Path]) -> None:
        self.target = target
        self.repos = repos

    def repo(self, body: Any) -> Repo:
        if isinstance(body, str):
            body = {"name": body}
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            raise TargetError("request needs a repo {name, path}")
        path = body.get("path") or self.repos.get(body["name"])
        if not path or not Path(path).is_dir():
            raise TargetError(f"unknown repo {body['name']!r}: pass its path or start the server with --repo")
        return Repo(body["name"], Path(path))

    def call(self, capability: str, body: dict[str, Any]) -> Any:
        if capability not in capabilities(self.target):
            raise TargetError(f"this engine does not implement {capability!r}")
        if capability == "context_pack":
            repos = [self.repo(r) for r in body.get("repos") or []]
            return self.target.context_pack(str(body.get("query", "")), repos, int(body.get("limit", 8)))
        if capability == "risk_concepts":
            return self.target.risk_concepts(str(body.get("mode", "")), str(body.get("text", "")))
        if capability == "infer_harness":
            return self.target.infer_harness(self.repo(body.get("repo")))
        if capability == "gate":
            return self.target.gate(self.repo(body.get("repo")), dict(body.get("options") or {}))
        return self.target.search(str(body.get("query", "")), self.repo(body.get("repo")), int(body.get("top_k", 20)))

    def answer(self, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        """HTTP status and JSON body for one request."""
        if not isinstance(body, dict):
            return 400, {"error": "request body must be a JSON object"}
        try:
            if path == GO_CODE_SEARCH:
                hits = self.call("search", body)
                xml = "".join(f"<result><file>{escape(h.file)}</file><symbol>{escape(h.symbol)}</symbol></result>"
                              for h in hits)
                return 200, {"content": [{"type": "text", "text": f"<results>{xml}</results>"}], "is_error": False}
            capability = path.removeprefix("/v1/")
            if not path.startswith("/v1/") or capability not in CAPABILITIES:
                return 404, {"error": f"no such endpoint {path}"}
            return 200, encode_answer(capability, self.call(capability, body))
        except WorkbenchError as exc:
            return 200, {"error": str(exc)}
        except Exception as exc:  # an engine bug answers one request with an error, never kills the server
            return 200, {"error": f"{type(exc).__name__}: {exc}"}


def make_server(dispatcher: Dispatcher, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """An HTTP server (not yet serving) answering the protocol through ``dispatcher``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                status, payload = 413, {"error": "request too large"}
            else:
                try:
                    body = json.loads(self.rfile.read(length) or b"null")
                except (json.JSONDecodeError, UnicodeDecodeError):
                    body = None
                status, payload = dispatcher.answer(self.path, body)
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    return ThreadingHTTPServer((host, port), Handler)
