"""A minimal code-context engine over workbench's JSON protocol (``cmd:python grep_engine.py``).

It answers the ``capabilities`` handshake and ``context_pack``, by grep: every word of the query
(three letters or more, common words left out) is counted in each text file of each repository
and in its path, and the files with the highest counts are returned, best first. Anything else is
answered ``unsupported capability``, so workbench skips those suites. Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import sys

STOP = {"the", "and", "for", "with", "from", "that", "this", "when", "into", "not", "are", "use", "add", "fix"}
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "dist", "build", "vendor"}
MAX_BYTES = 512 * 1024


def words(query: str) -> list[str]:
    """The query's words worth grepping for, lowercased, each once."""
    found = re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", query).lower())
    return list(dict.fromkeys(w for w in found if len(w) >= 3 and w not in STOP))


def files(root: str) -> list[str]:
    """Repo-relative paths of the readable files under ``root``, sorted."""
    out = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in names:
            out.append(os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/"))
    return sorted(out)


def score(root: str, path: str, terms: list[str]) -> int:
    """How often the terms occur in the file (text files only) plus three per term in its path."""
    try:
        with open(os.path.join(root, path), "rb") as handle:
            data = handle.read(MAX_BYTES)
    except OSError:
        return 0
    if b"\0" in data:
        return 0
    text, lowered = data.decode("utf-8", "replace").lower(), path.lower()
    return sum(text.count(t) + 3 * lowered.count(t) for t in terms)


def context_pack(request: dict) -> dict:
    terms = words(request.get("query", ""))
    ranked = []
    for repo in request.get("repos", []):
        for path in files(repo["path"]):
            hits = score(repo["path"], path, terms)
            if hits:
                ranked.append((-hits, repo["name"], path))
    ranked.sort()
    limit = int(request.get("limit", 8))
    return {"primary": [{"repo": name, "path": path} for _, name, path in ranked[:limit]], "related": []}


def answer(request: dict) -> dict:
    capability = request.get("capability")
    if capability == "capabilities":
        return {"capabilities": ["context_pack"], "name": "grep-engine", "version": "0.1"}
    if capability == "context_pack":
        return context_pack(request)
    return {"error": f"unsupported capability: {capability}"}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        body = answer(request)
        body["id"] = request.get("id")
        sys.stdout.write(json.dumps(body) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
