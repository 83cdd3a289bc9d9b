"""An engine for the issue-20 tests; the query picks the misbehaviour.

``many:N``: answers N files; ``huge-line``: one 17 MB answer line; ``other-repo``: names a
repository that was not requested; ``spawn``: starts a ``setsid sleep 300`` child and
answers its pid as the path ``pid/<n>``; ``orphan``: the same through a double fork (its parent
exits); ``envless``: the same with a cleared environment (no reap token) in a new session,
``env -i setsid sh -c 'sleep 300 & ...'``; ``hang <file>``: starts one, writes its pid to
``<file>`` and never answers. Anything else: ``src/a.ts``.
"""

import json
import subprocess
import sys
import time


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
    elif query.startswith("spawn"):
        child = subprocess.Popen(["setsid", "sleep", "300"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        send(request, {"primary": [f"pid/{child.pid}"]})
    elif query.startswith("orphan"):  # a double fork: the sleep's parent exits at once
        shell = "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!"
        pid = subprocess.run(["sh", "-c", shell], capture_output=True, text=True).stdout.strip()
        send(request, {"primary": [f"pid/{pid}"]})
    elif query.startswith("envless"):  # no token, a session of its own, a double fork: all at once
        shell = "sleep 300 </dev/null >/dev/null 2>&1 & echo $!"
        pid = subprocess.run(["env", "-i", "setsid", "sh", "-c", shell], capture_output=True, text=True).stdout.strip()
        send(request, {"primary": [f"pid/{pid}"]})
    elif query.startswith("hang"):
        child = subprocess.Popen(["setsid", "sleep", "300"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        with open(query.split(" ", 1)[1], "w") as handle:
            handle.write(str(child.pid))
        time.sleep(3600)
    else:
        send(request, {"primary": ["src/a.ts"]})
