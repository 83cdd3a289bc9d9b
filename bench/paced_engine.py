"""A ``cmd:`` engine that takes a fixed time per request, as an engine calling a service does.

    cmd:python bench/paced_engine.py --ms 20

Speaks the JSON-lines protocol of README's "Targets" (one request a line on stdin, one answer
echoing its ``id`` on stdout). Each ``context_pack`` is answered by the reference engine (the
``builtin`` target, ~0.6 ms a case on ``bench/scale.py``'s trees, its indexes loaded from the
shared disk cache) and then sleeps ``--ms`` milliseconds, so the answers, and so the metrics, are
the builtin's and the time per case is the sleep plus ~1 ms. One process answers one request at
a time, as the protocol has it (``cmd:`` targets send one request at a time).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from workbench.contract import Repo
from workbench.targets.builtin import BuiltinTarget
from workbench.wire import encode_answer


def answer(engine: BuiltinTarget, request: dict[str, Any], pause: float) -> dict[str, Any]:
    """The protocol answer to one request (an unknown capability is answered as unsupported)."""
    capability = request.get("capability")
    if capability == "capabilities":
        return {"capabilities": ["context_pack"], "name": "paced-engine", "version": f"{pause * 1000:g}ms"}
    if capability != "context_pack":
        return {"error": f"unsupported capability: {capability}"}
    repos = [Repo(str(r["name"]), Path(r["path"])) for r in request.get("repos", [])]
    pack = engine.context_pack(str(request.get("query", "")), repos, int(request.get("limit", 8)))
    time.sleep(pause)
    return encode_answer("context_pack", pack)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ms", type=float, default=20.0, help="milliseconds slept per context_pack")
    pause = parser.parse_args().ms / 1000
    engine = BuiltinTarget()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        body = answer(engine, request, pause)
        body["id"] = request.get("id")
        sys.stdout.write(json.dumps(body) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
