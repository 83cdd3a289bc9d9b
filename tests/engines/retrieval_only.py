"""A retrieval-only JSON-lines engine, written from the README alone: it answers the
``capabilities`` handshake (unless HANDSHAKE=0) and ``context_pack`` from the ANSWERS env var
(query -> [paths]); every other capability gets ``{"error": "unsupported capability: X"}``."""

import json
import os
import sys

ANSWERS = json.loads(os.environ.get("ANSWERS", "{}"))
HANDSHAKE = os.environ.get("HANDSHAKE", "1") == "1"

for line in sys.stdin:
    request = json.loads(line)
    capability = request.get("capability")
    if capability == "capabilities" and HANDSHAKE:
        answer = {"capabilities": ["context_pack"], "name": "tiny-retriever", "version": "0.3.1"}
    elif capability == "context_pack":
        repo = request["repos"][0]["name"]
        answer = {"primary": [{"repo": repo, "path": p} for p in ANSWERS.get(request["query"], [])]}
    else:
        answer = {"error": f"unsupported capability: {capability}"}
    print(json.dumps(answer), flush=True)
