"""The ``http://host:port`` target: the JSON protocol over ``POST /v1/<capability>``.

``search`` speaks the go-code REST bridge instead (``POST /api/tools/semantic_search``),
whose answer is MCP-style content with an XML list of ranked ``<result>`` elements.
"""

from __future__ import annotations

import http.client
import itertools
import json
import socket
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET
from typing import Any

from ..contract import REQUEST_TIMEOUT, Repo, SearchHit
from ..errors import TargetError
from ..strictjson import loads_strict
from ..wire import MAX_ANSWER_BYTES, MAX_FILES, inside_path
from .handshake import HANDSHAKE, EngineStartError
from .protocol import ProtocolTarget

GO_CODE_SEARCH = "/api/tools/semantic_search"
MAX_ANSWER = MAX_ANSWER_BYTES


class Unreachable(TargetError):
    """No connection to the engine at all (refused, reset, no such host): not an answer."""


def post_json(url: str, body: dict[str, Any], timeout: float) -> Any:
    """POST ``body`` as JSON and decode the JSON answer strictly; failures are TargetErrors.

    ``timeout`` is a wall-clock deadline for the whole request (connect, send, headers, body): a
    watchdog shuts the socket when it passes, so a server dripping a byte at a time cannot stretch it.
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetError(f"{url}: not an http:// URL")
    connection = (http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection)(
        parts.hostname, parts.port, timeout=timeout
    )
    fired = threading.Event()
    watchdog = threading.Timer(timeout, _abort, args=(connection, fired))
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.request(
            "POST",
            parts.path + (f"?{parts.query}" if parts.query else ""),
            body=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json"},
        )
        response = connection.getresponse()
        payload = response.read(MAX_ANSWER + 1)
        status, reason = response.status, response.reason
    except (OSError, http.client.HTTPException) as exc:
        if fired.is_set() or isinstance(exc, TimeoutError):
            raise TargetError(f"{url}: no answer within {timeout:g}s") from None
        raise Unreachable(f"{url}: unreachable ({exc})") from None
    finally:
        watchdog.cancel()
        connection.close()
    if status >= 400:
        raise TargetError(f"{url}: HTTP {status} {reason}")
    if len(payload) > MAX_ANSWER:
        raise TargetError(f"{url}: answer longer than {MAX_ANSWER // 2**20} MB")
    try:
        return loads_strict(payload, f"{url}: answer", TargetError)
    except TargetError as exc:
        if "invalid JSON" not in str(exc):
            raise
        raise TargetError(f"{url}: answered garbage (not JSON): {payload[:80]!r}") from None


def _abort(connection: http.client.HTTPConnection, fired: threading.Event) -> None:
    """Wake a request blocked on its socket once its deadline has passed."""
    fired.set()
    sock = connection.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def parse_go_code_results(body: Any) -> list[SearchHit]:
    """Ranked (file, symbol) hits from a go-code semantic_search answer."""
    if not isinstance(body, dict):
        raise TargetError("search: go-code answer is not a JSON object")
    texts = [c.get("text", "") for c in body.get("content") or [] if isinstance(c, dict)]
    if body.get("is_error"):
        raise TargetError(f"search: engine error: {' '.join(texts)[:200]}")
    hits = []
    for text in texts:
        try:
            root = ET.fromstring(f"<root>{text}</root>")
        except ET.ParseError as exc:
            raise TargetError(f"search: go-code answer is not XML ({exc})") from None
        for result in root.iter("result"):
            file = (result.findtext("file") or "").strip()
            if file:
                symbol = (result.findtext("symbol") or "").strip()
                hits.append(SearchHit(inside_path(file, "search: result file"), symbol))
                if len(hits) > MAX_FILES:
                    raise TargetError(f"search: invalid answer: more than the cap of {MAX_FILES} results")
    return hits


class HttpTarget(ProtocolTarget):
    """A protocol target served over HTTP."""

    def __init__(self, base_url: str, timeout: float = REQUEST_TIMEOUT) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._ids = itertools.count(1)
        super().__init__(self.base_url, self._post, version="http", timeout=timeout)

    def _post(self, capability: str, request: dict[str, Any]) -> Any:
        """POST one request with an ``id``; an answer that echoes a different id is refused."""
        ident = next(self._ids)
        try:
            body = post_json(f"{self.base_url}/v1/{capability}", {**request, "id": ident}, self.timeout)
        except Unreachable as exc:
            if capability == HANDSHAKE:  # asked before any case: nothing listens, so the run cannot go on
                raise EngineStartError(f"{exc}, before any case ran (is the engine running?)") from None
            raise
        if isinstance(body, dict) and "id" in body and body["id"] != ident:
            raise TargetError(f"{capability}: invalid answer: it echoes id {body['id']!r:.40}, not {ident}")
        return body

    def search(self, query: str, repo: Repo, top_k: int) -> list[SearchHit]:
        body = {"repo": repo.name, "query": query, "top_k": top_k}
        started = time.monotonic()
        return self.in_time(
            "search", started, parse_go_code_results(post_json(self.base_url + GO_CODE_SEARCH, body, self.timeout))
        )
