"""The ``http://host:port`` target: the JSON protocol over ``POST /v1/<capability>``.

``search`` speaks the go-code REST bridge instead (``POST /api/tools/semantic_search``),
whose answer is MCP-style content with an XML list of ranked ``<result>`` elements.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from typing import Any

from ..errors import TargetError
from ..contract import Repo, SearchHit
from .protocol import ProtocolTarget

GO_CODE_SEARCH = "/api/tools/semantic_search"


def post_json(url: str, body: dict[str, Any], timeout: float) -> Any:
    """POST ``body`` as JSON and decode the JSON answer; failures are TargetErrors."""
    data = json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            payload = response.read()
    except urllib.error.HTTPError as exc:
        raise TargetError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise TargetError(f"{url}: unreachable ({reason})") from None
    try:
        return json.loads(payload)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise TargetError(f"{url}: answered garbage (not JSON): {payload[:80]!r}") from None


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
                hits.append(SearchHit(file, (result.findtext("symbol") or "").strip()))
    return hits


class HttpTarget(ProtocolTarget):
    """A protocol target served over HTTP."""

    def __init__(self, base_url: str, timeout: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        super().__init__(self.base_url, self._post, version="http")

    def _post(self, capability: str, request: dict[str, Any]) -> Any:
        return post_json(f"{self.base_url}/v1/{capability}", request, self.timeout)

    def search(self, query: str, repo: Repo, top_k: int) -> list[SearchHit]:
        body = {"repo": repo.name, "query": query, "top_k": top_k}
        return parse_go_code_results(post_json(self.base_url + GO_CODE_SEARCH, body, self.timeout))
