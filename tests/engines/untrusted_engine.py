"""An engine for the issue-20 tests; the query picks the misbehaviour.

``many:N``: answers N files; ``huge-line``: one 17 MB answer line; ``other-repo``: names a
repository that was not requested; ``spawn``: starts a ``setsid sleep 300`` grandchild and
answers its pid as the path ``pid/<n>``. Anything else: ``src/a.ts``.
"""

import json
import subprocess
import sys


def send(request, body):
    body["id"] = request.get("id")
    sys.stdout.write(json.dumps(body) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    request = json.loads(line)
    query = request.get("query", "")
    if query.startswith("many:"):
        send(request, {"primary": [f"src/f{n}.ts" for n in range(int(query[5:]))]})
    elif query == "huge-line":
        send(request, {"primary": ["src/a.ts"], "text": "x" * (17 * 2**20)})
    elif query == "other-repo":
        send(request, {"primary": [{"repo": "zzz-not-requested", "path": "src/a.ts"}]})
    elif query == "spawn":
        child = subprocess.Popen(["setsid", "sleep", "300"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        send(request, {"primary": [f"pid/{child.pid}"]})
    else:
        send(request, {"primary": ["src/a.ts"]})
