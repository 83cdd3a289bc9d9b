"""An HTTP server for ``workbench serve`` that a hostile client cannot stall, flood or reach from a web page.

- a bounded worker pool (``WORKERS`` threads) behind a listen backlog of ``BACKLOG`` and at most
  ``MAX_PENDING`` accepted connections waiting, so 200 concurrent clients are all answered and a
  flood beyond that is closed instead of growing threads without bound;
- requests are read whole by one reader thread (``request_reader``) before a worker sees them, with
  an idle timeout (``IDLE_TIMEOUT``) and a wall-clock deadline for the whole request
  (``READ_DEADLINE``), so a short Content-Length or clients dripping bytes never hold a worker;
- only ``POST`` with ``Content-Type: application/json`` (a web page can only send that cross-origin
  after a CORS preflight, which this server never grants) and a ``Host`` that is a loopback name or
  the bound address with exactly the bound port (DNS rebinding); Content-Length required, an
  integer, at most ``MAX_BODY``.
"""

from __future__ import annotations

import io
import ipaddress
import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

from ..errors import TargetError
from ..strictjson import loads_strict
from .request_reader import RequestReader

MAX_BODY = 4 * 1024 * 1024
WORKERS = 8
BACKLOG = 512
MAX_PENDING = 1024
IDLE_TIMEOUT = 10.0
READ_DEADLINE = 30.0
LOOPBACK_NAMES = ("localhost", "localhost.")

Answer = Callable[[str, Any], tuple[int, dict[str, Any]]]


def _idle() -> float:
    return IDLE_TIMEOUT


def _deadline() -> float:
    return READ_DEADLINE


def _split_host(header: str) -> tuple[str, str | None]:
    """(host, port or None) of a ``Host`` header: ``[::1]:8765``, ``localhost:80``, ``::1``."""
    if header.startswith("["):
        host, _, rest = header[1:].partition("]")
        return host, rest[1:] if rest.startswith(":") else (None if not rest else "bad")
    if header.count(":") == 1:
        host, _, port = header.partition(":")
        return host, port
    return header, None


def loopback_host(header: str | None, bound: str, port: int) -> bool:
    """Whether a ``Host`` header names this machine's loopback (or the exact address the server is
    bound to) and exactly its port (no port only when that is 80, as HTTP clients send it)."""
    if not header:
        return False
    host, given = _split_host(header.strip())
    if given != str(port) and not (given is None and port == 80):
        return False
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
        self._reader: RequestReader | None = None  # a failed bind closes the server before the reader exists
        super().__init__(address, handler)
        self.answer = answer
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="workbench-serve")
        self._pending = threading.BoundedSemaphore(MAX_PENDING)
        self._buffered: dict[int, bytes] = {}
        self._lock = threading.Lock()
        self._reader = RequestReader(self._read, self._drop, MAX_BODY, _idle, _deadline)
        self._reader.start()

    def process_request(self, request: Any, client_address: Any) -> None:
        if self._reader is None or not self._pending.acquire(blocking=False):
            self.shutdown_request(request)  # flooded: refuse this connection, keep serving the queued ones
            return
        self._reader.add(request, client_address)  # a worker sees it only once it has arrived

    def _read(self, request: Any, client_address: Any, data: bytes) -> None:
        with self._lock:
            self._buffered[id(request)] = data
        self._pool.submit(self._work, request, client_address)

    def _drop(self, request: Any) -> None:
        self.shutdown_request(request)
        self._pending.release()

    def take_buffer(self, request: Any) -> bytes:
        """The bytes the reader read of ``request`` (once)."""
        with self._lock:
            return self._buffered.pop(id(request), b"")

    def _work(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:  # a broken connection ends that request only
            pass
        finally:
            self.take_buffer(request)
            self._drop(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass

    def server_close(self) -> None:
        if self._reader is None:  # the bind failed: nothing was started
            super().server_close()
            return
        self._reader.stop()
        super().server_close()
        self._pool.shutdown(wait=False, cancel_futures=True)


class GuardedHandler(BaseHTTPRequestHandler):
    """Read one request under deadlines and checks, hand its JSON body to ``server.answer``."""

    timeout = IDLE_TIMEOUT
    server: BoundedHTTPServer

    def setup(self) -> None:
        super().setup()
        self.rfile.close()
        self.rfile = io.BytesIO(self.server.take_buffer(self.request))  # read whole by the reader thread

    def _refusal(self) -> tuple[int, str] | None:
        bound, port = self.server.server_address[:2]
        if not loopback_host(self.headers.get("Host"), str(bound), int(port)):
            return 403, f"Host must be a loopback name (localhost, 127.0.0.1, [::1]) with port {port}"
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
        raw = self.rfile.read(length)
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
