"""``workbench serve --interleave A,B``: answer ``context_pack`` with a team-draft interleaving of
two engines' packs, log every impression, and take the agent's feedback.

Each ``context_pack`` request asks both engines (through the ordinary ``Dispatcher``, so the
served repositories, limits and checks are the same as ``serve``'s) and answers the interleaved
list as ``primary`` (``related`` empty), with an ``impression`` id; the teams are not revealed.
The coins come from ``interleave.case_rng(seed, impression)``. ``POST /v1/feedback`` takes
``{"impression", "opened": [path], "edited": [path]}`` for an impression this server showed (at most
``MAX_FEEDBACK_CHARS`` of paths; a repeated feedback is answered ``"duplicate": true`` and not logged,
since only the first counts). Both are appended to the JSONL log (format in README, "Interleaving
online"); the log is the record ``workbench interleave analyze`` reads. A bad request is answered
with ``{"error": ...}`` and not logged; nothing a client sends stops the server.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..contract import Pack
from ..errors import TargetError, WorkbenchError
from ..targets import Dispatcher
from .interleave import case_rng, coins, team_draft

FEEDBACK = "/v1/feedback"
MAX_PENDING = 100_000  # impressions remembered for feedback: a long-running server's memory stays bounded
CONTEXT_PACK = "/v1/context_pack"
MAX_PATHS = 1000
MAX_PATH = 4096
MAX_FEEDBACK_CHARS = 64 * 1024  # all of one feedback's paths together: a log line stays small


def _ranked(pack: Pack) -> list[tuple[str, str]]:
    """A pack as the agent sees it: primary then related, each (repo, path) once."""
    return list(dict.fromkeys((r.repo, r.path) for r in [*pack.primary, *pack.related]))


def _paths(body: dict[str, Any], key: str) -> list[str]:
    value = body.get(key, [])
    if not isinstance(value, list) or len(value) > MAX_PATHS:
        raise TargetError(f"{key!r} should be a list of at most {MAX_PATHS} paths")
    if not all(isinstance(p, str) and 0 < len(p) <= MAX_PATH for p in value):
        raise TargetError(f"{key!r} should hold non-empty path strings of at most {MAX_PATH} characters")
    return value


class InterleavingDispatcher(Dispatcher):
    """A ``Dispatcher`` for engine A that interleaves its packs with engine B's (``other``)."""

    def __init__(
        self,
        target: Any,
        other: Any,
        repos: dict[str, Path],
        log: Path,
        *,
        seed: int = 0,
        allow_exec: bool = False,
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
        max_pending: int = MAX_PENDING,
    ) -> None:
        super().__init__(target, repos, allow_exec)
        self.other = Dispatcher(other, repos, allow_exec)
        self.log, self.seed, self.new_id = Path(log), seed, new_id
        self.names = {"a": str(getattr(target, "name", "a")), "b": str(getattr(other, "name", "b"))}
        self.shown: OrderedDict[str, bool] = OrderedDict()  # impression -> has feedback, the last max_pending
        self.max_pending = max_pending
        self._lock = threading.Lock()
        self.log.parent.mkdir(parents=True, exist_ok=True)

    def answer(self, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        if path not in (CONTEXT_PACK, FEEDBACK):
            return super().answer(path, body)
        if not isinstance(body, dict):
            return 400, {"error": "request body must be a JSON object"}
        try:
            payload = self._interleave(body) if path == CONTEXT_PACK else self._feedback(body)
        except WorkbenchError as exc:
            payload = {"error": str(exc)}
        except Exception as exc:  # an engine bug answers one request with an error, never kills the server
            payload = {"error": f"{type(exc).__name__}: {exc}"}
        ident = body.get("id")  # echoed, as ``serve`` does
        echo = isinstance(ident, (int, str)) and not isinstance(ident, bool)
        return 200, {**payload, "id": ident} if echo else payload

    def _interleave(self, body: dict[str, Any]) -> dict[str, Any]:
        a = _ranked(self.call("context_pack", body))
        b = _ranked(self.other.call("context_pack", body))
        impression = self.new_id()
        shown = team_draft(a, b, int(body.get("limit", 8)), coins(case_rng(self.seed, impression)))
        record = {
            "impression": impression,
            "at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
            "query": body.get("query", ""),
            "targets": self.names,
            "seed": self.seed,
            "a": [{"repo": repo, "path": p} for repo, p in a],
            "b": [{"repo": repo, "path": p} for repo, p in b],
            "shown": [{"repo": repo, "path": p, "team": team} for (repo, p), team in shown],
        }
        with self._lock:
            self.shown[impression] = False
            if len(self.shown) > self.max_pending:
                self.shown.popitem(last=False)  # its feedback now answers "unknown"; the log keeps it
            self._append(record)
        primary = [{"repo": repo, "path": p} for (repo, p), _ in shown]
        return {"primary": primary, "related": [], "text": "", "impression": impression}

    def _feedback(self, body: dict[str, Any]) -> dict[str, Any]:
        impression = body.get("impression")
        if not isinstance(impression, str):
            raise TargetError("feedback needs an 'impression' id (a string)")
        opened, edited = _paths(body, "opened"), _paths(body, "edited")
        if sum(map(len, opened)) + sum(map(len, edited)) > MAX_FEEDBACK_CHARS:
            raise TargetError(f"'opened' and 'edited' should hold at most {MAX_FEEDBACK_CHARS:,} characters of paths")
        with self._lock:
            if impression not in self.shown:
                raise TargetError(
                    f"unknown impression {impression[:80]!r}: this server did not show it, or it is older "
                    f"than the last {self.max_pending} impressions it remembers"
                )
            duplicate, self.shown[impression] = self.shown[impression], True
            if not duplicate:  # only the first feedback counts (``analyze``): a repeat is not logged
                self._append({"feedback": impression, "opened": opened, "edited": edited})
        return {"ok": True, "duplicate": duplicate}

    def _append(self, record: dict[str, Any]) -> None:
        """One JSON line, appended and flushed (under the lock)."""
        with self.log.open("a", encoding="utf-8") as out:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
