"""An HTTP server for ``workbench serve`` that a hostile client cannot stall, flood or reach from a web page.

- a bounded worker pool (``WORKERS`` threads) behind a listen backlog of ``BACKLOG`` and at most
  ``MAX_PENDING`` accepted connections waiting, so 200 concurrent clients are all answered and a
  flood beyond that is closed instead of growing threads without bound;
- per-read idle timeout (``IDLE_TIMEOUT``) and a wall-clock deadline for reading the whole request
  (``READ_DEADLINE``, a watchdog shuts the socket), so a short Content-Length or a client dripping
  bytes frees its worker;
- only ``POST`` with ``Content-Type: application/json`` (a web page can only send that cross-origin
  after a CORS preflight, which this server never grants) and a ``Host`` that is a loopback name or
  the bound address (DNS rebinding); Content-Length required, an integer, at most ``MAX_BODY``.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

from ..errors import TargetError
from ..strictjson import loads_strict

MAX_BODY = 4 * 1024 * 1024
WORKERS = 8
BACKLOG = 512
MAX_PENDING = 1024
IDLE_TIMEOUT = 10.0
READ_DEADLINE = 30.0
LOOPBACK_NAMES = ("localhost", "localhost.")

Answer = Callable[[str, Any], tuple[int, dict[str, Any]]]


def loopback_host(header: str | None, bound: str) -> bool:
    """Whether a ``Host`` header names this machine's loopback (or the exact address the server is bound to)."""
    if not header:
        return False
    host = header.strip()
    if host.startswith("["):
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    host = host.lower()
    if host in LOOPBACK_NAMES or host.endswith(".localhost") or host == bound.lower():
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class BoundedHTTPServer(HTTPServer):
    """``HTTPServer`` whose requests run on a fixed pool of worker threads."""

    request_queue_size = BACKLOG
    allow_reuse_address = True

    def __init__(
        self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], answer: Answer, workers: int = WORKERS
    ) -> None:
        super().__init__(address, handler)
        self.answer = answer
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="workbench-serve")
        self._pending = threading.BoundedSemaphore(MAX_PENDING)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._pending.acquire(blocking=False):
            self.shutdown_request(request)  # flooded: refuse this connection, keep serving the queued ones
            return
        self._pool.submit(self._work, request, client_address)

    def _work(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:  # a broken connection ends that request only
            pass
        finally:
            self.shutdown_request(request)
            self._pending.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass

    def server_close(self) -> None:
        super().server_close()
        self._pool.shutdown(wait=False, cancel_futures=True)


class GuardedHandler(BaseHTTPRequestHandler):
    """Read one request under deadlines and checks, hand its JSON body to ``server.answer``."""

    timeout = IDLE_TIMEOUT
    server: BoundedHTTPServer

    def setup(self) -> None:
        super().setup()
        self._watchdog = threading.Timer(READ_DEADLINE, self._cut)
        self._watchdog.daemon = True
        self._watchdog.start()

    def finish(self) -> None:
        self._watchdog.cancel()
        super().finish()

    def _cut(self) -> None:
        try:
            self.connection.shutdown(socket.SHUT_RD)  # wakes the blocked read; the 400 can still be sent
        except OSError:
            pass

    def _refusal(self) -> tuple[int, str] | None:
        if not loopback_host(self.headers.get("Host"), str(self.server.server_address[0])):
            return 403, "Host must be a loopback name (localhost, 127.0.0.1, [::1])"
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if kind != "application/json":
            return 415, "Content-Type must be application/json"
        length = self.headers.get("Content-Length")
        if length is None:
            return 411, "Content-Length required"
        if not length.strip().isdigit():
            return 400, f"bad Content-Length {length[:20]!r}"
        if int(length) > MAX_BODY:
            return 413, f"request body over {MAX_BODY // 2**20} MB"
        return None

    def _body(self) -> Any:
        length = int(self.headers["Content-Length"])
        try:
            raw = self.rfile.read(length)
        except OSError:
            raw = b""
        self._watchdog.cancel()  # the request is read: answering may take as long as the engine needs
        if len(raw) < length:
            raise TargetError(f"body shorter than its Content-Length ({len(raw)} of {length} bytes)")
        return loads_strict(raw, "request body", TargetError)

    def do_POST(self) -> None:
        refused = self._refusal()
        if refused:
            status, payload = refused[0], {"error": refused[1]}
        else:
            try:
                body = self._body()
            except TargetError as exc:
                status, payload = 400, {"error": str(exc)}
            else:
                status, payload = self.server.answer(self.path, body)
        self._send(status, payload)

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass

    def log_message(self, *args: Any) -> None:
        pass


def make_guarded_server(answer: Answer, host: str = "127.0.0.1", port: int = 0) -> BoundedHTTPServer:
    """A bounded, guarded server (not yet serving) answering each JSON body through ``answer(path, body)``."""
    return BoundedHTTPServer((host, port), GuardedHandler, answer)
