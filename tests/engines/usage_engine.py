"""A paced JSON-lines engine that reports usage (``cmd:python tests/engines/usage_engine.py``).

It answers a context_pack with the path its query ends with (``"find src/a.ts"`` -> ``src/a.ts``)
after ``PACE_MS`` milliseconds (default 0), and reports ``usage``: ``input_tokens`` = the query's
word count, ``output_tokens`` = 7, ``cost_usd`` = ``COST_USD`` (default 0.01) and ``model`` =
``MODEL`` (default ``paced-1``). ``BAD_USAGE`` (JSON) replaces the usage object, to test parsing.
Arguments, for two engines in one run: ``--cost X`` overrides ``COST_USD``; ``--miss-every N``
answers nothing to queries whose word count is a multiple of N (a cheaper, worse engine).
"""

import json
import os
import sys
import time

PACE = float(os.environ.get("PACE_MS", "0")) / 1000
COST = float(os.environ.get("COST_USD", "0.01"))
MODEL = os.environ.get("MODEL", "paced-1")
BAD = os.environ.get("BAD_USAGE")
ARGS = dict(zip(sys.argv[1::2], sys.argv[2::2]))
COST = float(ARGS.get("--cost", COST))
MISS = int(ARGS.get("--miss-every", "0"))

for line in sys.stdin:
    request = json.loads(line)
    capability = request.get("capability")
    if capability == "capabilities":
        print(json.dumps({"capabilities": ["context_pack"], "name": "usage-engine", "version": "1"}), flush=True)
        continue
    if capability != "context_pack":
        print(json.dumps({"error": f"unsupported capability: {capability}"}), flush=True)
        continue
    time.sleep(PACE)
    query = request.get("query", "")
    usage = (
        json.loads(BAD)
        if BAD
        else {"input_tokens": len(query.split()), "output_tokens": 7, "cost_usd": COST, "model": MODEL}
    )
    repo = request["repos"][0]["name"]
    missed = MISS and len(query.split()) % MISS == 0
    primary = [] if missed else [{"repo": repo, "path": query.split()[-1]}]
    answer = {"primary": primary, "related": [], "usage": usage}
    print(json.dumps(answer), flush=True)
