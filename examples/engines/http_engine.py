"""The grep engine of ``grep_engine.py`` served over HTTP (``--target http://127.0.0.1:PORT``).

``python examples/engines/http_engine.py PORT`` answers ``POST /v1/<capability>`` with the same JSON
bodies as the ``cmd:`` protocol (the capability is the last part of the path; the request's ``id``
is echoed), on 127.0.0.1 only, until it is stopped. Standard library only.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from grep_engine import answer  # the engine itself: grep_engine.py, beside this file


class Handler(BaseHTTPRequestHandler):
    """One request: read the JSON body, answer it as grep_engine does, reply with JSON."""

    def do_POST(self) -> None:
        capability = self.path.rsplit("/", 1)[-1]
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        body = answer({**request, "capability": capability})
        body["id"] = request.get("id")
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # quiet: no line per request
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 8765), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
