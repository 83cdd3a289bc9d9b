"""A tiny JSON-lines engine for tests: answers context_pack from a table, misbehaves on request.

Queries starting with ``crash`` exit the process, ``hang`` sleeps forever, ``garbage``
prints a non-JSON line, ``error`` answers ``{"error": ...}``; otherwise the pack is the
``expectedPrimary``-like list given in the ANSWERS env var (JSON: query -> [paths], with
``<fixture>/<path>`` for multi-repo requests).
"""

import json
import os
import sys
import time

ANSWERS = json.loads(os.environ.get("ANSWERS", "{}"))

for line in sys.stdin:
    request = json.loads(line)
    query = request.get("query", "")
    if query.startswith("crash"):
        print("dying on purpose", file=sys.stderr, flush=True)
        sys.exit(7)
    if query.startswith("hang"):
        time.sleep(3600)
    if query.startswith("garbage"):
        print("this is not json", flush=True)
        continue
    if query.startswith("error") or request.get("capability") != "context_pack":
        print(json.dumps({"error": f"cannot answer {request.get('capability')}"}), flush=True)
        continue
    names = [repo["name"] for repo in request["repos"]]
    primary = []
    for answer in ANSWERS.get(query, []):
        repo, _, rest = answer.partition("/")
        primary.append({"repo": repo, "path": rest} if len(names) > 1 else {"repo": names[0], "path": answer})
    print(json.dumps({"primary": primary, "related": []}), flush=True)
