"""A misbehaving JSON-lines engine for the issue-13 tests; the query picks the misbehaviour.

``close-stdout``: closes stdout and keeps running; ``flood``: 50 MB of stderr without a newline,
then an answer; ``twice``: answers every request two times; ``outside``: answers paths outside the
repository; ``surrogate``: a path with a lone surrogate; ``deaf``: stops reading stdin and sleeps;
``no-id``: answers without echoing the id. Anything else: ``src/a.ts`` with the id echoed.
Started with ``--deaf`` it never reads stdin at all.
"""

import json
import os
import sys
import time


def answer(request, paths, echo=True):
    body = {"primary": [{"path": p} for p in paths], "related": []}
    if echo and "id" in request:
        body["id"] = request["id"]
    sys.stdout.write(json.dumps(body) + "\n")
    sys.stdout.flush()


if "--deaf" in sys.argv:
    time.sleep(3600)

for line in sys.stdin:
    request = json.loads(line)
    query = request.get("query", "")
    if query == "close-stdout":
        sys.stdout.close()
        os.close(1)
        time.sleep(3600)
    elif query == "flood":
        chunk = "x" * (1 << 20)
        for _ in range(50):
            sys.stderr.write(chunk)
        sys.stderr.flush()
        answer(request, ["src/a.ts"])
    elif query == "twice":
        answer(request, ["src/first.ts"])
        answer(request, ["src/second.ts"])
    elif query == "outside":
        answer(request, ["../../etc/passwd", "/etc/passwd"])
    elif query == "surrogate":
        sys.stdout.write('{"primary": [{"path": "src/\\ud800.ts"}], "id": ' + str(request["id"]) + "}\n")
        sys.stdout.flush()
    elif query == "deaf":
        time.sleep(3600)
    elif query == "no-id":
        answer(request, ["src/plain.ts"], echo=False)
    else:
        answer(request, ["src/a.ts"])
