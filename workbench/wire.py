"""The JSON protocol's bodies (DESIGN.md, "The JSON protocol"): parsing engine answers strictly, and
encoding Python answers, the inverse. Protocol targets, ``serve`` and the reference engine's
``--json`` output all go through here; anything malformed is a ``TargetError`` saying what was wrong.
"""

from __future__ import annotations

import math
import posixpath
from typing import Any

from .contract import Check, Command, FileRef, GateResult, GoldScope, Pack, Repo, SearchHit, SymbolRef, Usage
from .errors import TargetError
from .paths import inside_path_problem

VERDICTS = ("PASS", "WARN", "FAIL")
MAX_FILES = 1000  # files (or hits, concepts, checks) one answer may list: more fails its case
MAX_ANSWER_BYTES = 16 * 1024 * 1024  # bytes of one response line (cmd:) or body (http://)
STATUSES = ("PASS", "WARN", "FAIL", "SKIPPED")


def repo_body(repo: Repo) -> dict[str, str]:
    return {"name": repo.name, "path": str(repo.path)}


def pack_request(query: str, repos: list[Repo], limit: int, gold_scope: GoldScope | None = None) -> dict[str, Any]:
    """A ``context_pack`` request's body (without ``capability``); ``goldScope`` only when the corpus has one."""
    request: dict[str, Any] = {"query": query, "repos": [repo_body(r) for r in repos], "limit": limit}
    if gold_scope is not None:
        request["goldScope"] = gold_scope.body()
    return request


def parse_gold_scope(body: dict[str, Any]) -> GoldScope | None:
    """A request's ``goldScope`` (None when absent); a malformed one is a TargetError."""
    scope = body.get("goldScope")
    if scope is None:
        return None
    exclude = scope.get("exclude") if isinstance(scope, dict) else None
    if not isinstance(exclude, list) or not all(isinstance(kind, str) for kind in exclude):
        raise TargetError("'goldScope' should be {\"exclude\": [kind, ...]}")
    return GoldScope(tuple(exclude))


def _field(body: dict[str, Any], key: str, kind: type | tuple[type, ...], capability: str) -> Any:
    value = body.get(key)
    if not isinstance(value, kind):
        shown = type(value).__name__ if value is not None else "nothing"
        raise TargetError(
            f"{capability}: response field {key!r} should be {getattr(kind, '__name__', kind)}, got {shown}"
        )
    return value


def inside_path(path: str, where: str) -> str:
    """A returned repo-relative path, normalized (``src/../src/x.py`` and ``./src//x.py`` are
    ``src/x.py``, scored as the corpus spells it), or a TargetError when even the normalized path
    leads outside the repository (absolute, a drive, or ``..`` left at its start)."""
    normal = posixpath.normpath(path) if path and "\0" not in path else path
    if inside_path_problem(normal):
        raise TargetError(f"{where}: invalid answer: path {path!r} is outside the repository")
    return normal


def capped(items: list[Any], where: str) -> list[Any]:
    """``items``, or a TargetError when an answer lists more than ``MAX_FILES`` of them."""
    if len(items) > MAX_FILES:
        raise TargetError(f"{where}: invalid answer: {len(items)} entries, more than the cap of {MAX_FILES}")
    return items


def _file_refs(items: Any, key: str, default_repo: str, requested: frozenset[str]) -> list[FileRef]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise TargetError(f"context_pack: response field {key!r} should be a list")
    refs = []
    for index, item in enumerate(capped(items, f"context_pack: {key}")):
        if isinstance(item, str):
            refs.append(FileRef(default_repo, inside_path(item.replace("\\", "/"), f"context_pack: {key}[{index}]")))
        elif isinstance(item, dict) and isinstance(item.get("path"), str):
            repo = str(item["repo"]) if isinstance(item.get("repo"), str) else default_repo
            if repo and repo not in requested:
                raise TargetError(
                    f"context_pack: {key}[{index}].repo: invalid answer: repo {repo[:80]!r} was not requested"
                )
            path = inside_path(item["path"].replace("\\", "/"), f"context_pack: {key}[{index}].path")
            refs.append(FileRef(repo, path, str(item.get("reason", ""))))
        else:
            raise TargetError(f"context_pack: {key}[{index}] should be {{repo, path}}")
    return refs


def _symbol_refs(items: Any, default_repo: str, requested: frozenset[str]) -> list[SymbolRef] | None:
    """The answer's ranked ``symbols`` (``[{"repo"?, "path", "name"}]``), None when it has none."""
    if items is None:
        return None
    if not isinstance(items, list):
        raise TargetError("context_pack: response field 'symbols' should be a list")
    refs = []
    for index, item in enumerate(capped(items, "context_pack: symbols")):
        where = f"context_pack: symbols[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("path"), str) or not isinstance(item.get("name"), str):
            raise TargetError(f"{where} should be {{repo, path, name}} with string path and name")
        repo = str(item["repo"]) if isinstance(item.get("repo"), str) else default_repo
        if repo and repo not in requested:
            raise TargetError(f"{where}.repo: invalid answer: repo {repo[:80]!r} was not requested")
        refs.append(SymbolRef(repo, inside_path(item["path"].replace("\\", "/"), f"{where}.path"), item["name"]))
    return refs


def parse_pack(body: dict[str, Any], repos: list[Repo]) -> Pack:
    default_repo = repos[0].name if len(repos) == 1 else ""
    text = body.get("text")
    requested = frozenset(r.name for r in repos)
    return Pack(
        primary=_file_refs(body.get("primary"), "primary", default_repo, requested),
        related=_file_refs(body.get("related"), "related", default_repo, requested),
        text=text if isinstance(text, str) else "",
        symbols=_symbol_refs(body.get("symbols"), default_repo, requested),
    )


def parse_concepts(body: dict[str, Any]) -> set[str]:
    concepts = capped(_field(body, "concepts", list, "risk_concepts"), "risk_concepts: concepts")
    if not all(isinstance(c, str) for c in concepts):
        raise TargetError("risk_concepts: 'concepts' should be a list of strings")
    return set(concepts)


def parse_harness(body: dict[str, Any]) -> dict[str, list[Command]]:
    groups = _field(body, "groups", dict, "infer_harness")
    parsed: dict[str, list[Command]] = {}
    for group, commands in groups.items():
        if not isinstance(commands, list):
            raise TargetError(f"infer_harness: groups.{group} should be a list")
        parsed[group] = []
        for index, item in enumerate(capped(commands, f"infer_harness: groups.{group}")):
            if not isinstance(item, dict) or not isinstance(item.get("command"), str):
                raise TargetError(f"infer_harness: groups.{group}[{index}] needs a 'command' string")
            script = item.get("script")
            parsed[group].append(
                Command(str(item.get("kind", "")), item["command"], script if isinstance(script, str) else None)
            )
    return parsed


def parse_gate(body: dict[str, Any]) -> GateResult:
    verdict = _field(body, "verdict", str, "gate")
    if verdict not in VERDICTS:
        raise TargetError(f"gate: verdict should be one of {', '.join(VERDICTS)}, got {verdict!r}")
    checks = []
    listed = body.get("checks") or []
    if not isinstance(listed, list):
        raise TargetError("gate: response field 'checks' should be a list")
    for index, item in enumerate(capped(listed, "gate: checks")):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise TargetError(f"gate: checks[{index}] needs a 'name' string")
        status = item.get("status")
        if status not in STATUSES:
            raise TargetError(f"gate: checks[{index}].status should be one of {', '.join(STATUSES)}")
        details = item.get("details") or []
        checks.append(
            Check(
                item["name"],
                status,
                str(item.get("summary", "")),
                tuple(str(d) for d in details) if isinstance(details, list) else (str(details),),
            )
        )
    return GateResult(verdict, checks)


def parse_hits(body: dict[str, Any]) -> list[SearchHit]:
    hits = capped(_field(body, "hits", list, "search"), "search: hits")
    parsed = []
    for index, item in enumerate(hits):
        if not isinstance(item, dict) or not isinstance(item.get("file"), str):
            raise TargetError(f"search: hits[{index}] needs a 'file' string")
        line, score = item.get("line"), item.get("score")
        file = inside_path(item["file"], f"search: hits[{index}].file")
        parsed.append(
            SearchHit(
                file,
                str(item.get("symbol") or ""),
                line if isinstance(line, int) else None,
                float(score) if isinstance(score, (int, float)) else None,
            )
        )
    return parsed


def _amount(usage: dict[str, Any], key: str, capability: str, whole: bool) -> Any:
    value = usage.get(key)
    if value is None:
        return None
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or value < 0 or (whole and value != int(value)):
        kind = "a non-negative whole number" if whole else "a non-negative finite number"
        raise TargetError(f"{capability}: response field 'usage.{key}' should be {kind}, got {value!r}")
    return int(value) if whole else float(value)


def parse_usage(body: dict[str, Any], capability: str) -> Usage | None:
    """The answer's ``usage`` (DESIGN.md, "The JSON protocol"), None when it has none; a malformed
    one is a TargetError naming the field."""
    usage = body.get("usage")
    if usage is None:
        return None
    if not isinstance(usage, dict):
        raise TargetError(f"{capability}: response field 'usage' should be an object, got {type(usage).__name__}")
    model = usage.get("model")
    if model is not None and not isinstance(model, str):
        raise TargetError(f"{capability}: response field 'usage.model' should be a string, got {model!r}")
    return Usage(
        _amount(usage, "input_tokens", capability, True),
        _amount(usage, "output_tokens", capability, True),
        _amount(usage, "cost_usd", capability, False),
        model or None,
    )


def checked(capability: str, body: Any) -> dict[str, Any]:
    """The response object, or a TargetError for non-objects and ``{"error": ...}`` answers."""
    if not isinstance(body, dict):
        raise TargetError(f"{capability}: response is not a JSON object")
    if body.get("error"):
        raise TargetError(f"{capability}: engine error: {body['error']}")
    return body


def encode_answer(capability: str, answer: Any) -> dict[str, Any]:
    """The protocol response body for a capability's Python answer (the inverse of the parsers)."""
    if capability == "context_pack":

        def refs(items: list[FileRef]) -> list[dict[str, str]]:
            return [{"repo": r.repo, "path": r.path, **({"reason": r.reason} if r.reason else {})} for r in items]

        body = {"primary": refs(answer.primary), "related": refs(answer.related), "text": answer.text}
        if answer.symbols is not None:
            body["symbols"] = [{"repo": s.repo, "path": s.path, "name": s.name} for s in answer.symbols]
        return body
    if capability == "risk_concepts":
        return {"concepts": sorted(answer)}
    if capability == "infer_harness":
        return {
            "groups": {
                group: [{"kind": c.kind, "command": c.command, "script": c.script} for c in commands]
                for group, commands in answer.items()
            }
        }
    if capability == "gate":
        return {
            "verdict": answer.verdict,
            "checks": [
                {"name": c.name, "status": c.status, "summary": c.summary, "details": list(c.details)}
                for c in answer.checks
            ],
        }
    if capability == "search":
        return {"hits": [{"file": h.file, "symbol": h.symbol, "line": h.line, "score": h.score} for h in answer]}
    raise TargetError(f"unknown capability {capability!r}")
