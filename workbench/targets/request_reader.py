"""Read whole HTTP requests off many sockets in one thread, so a slow client holds a buffer, never a worker.

``serve``'s worker pool only ever sees a request that has fully arrived (its head and the body its
``Content-Length`` announces), one whose head is already refusable (no or a bad or too large
``Content-Length``), or one whose read deadline passed with a complete head (answered 400, body
short). A connection idle for ``idle()`` seconds, or past ``deadline()`` without a complete head, is
closed. Sixteen clients dripping a byte every few seconds therefore delay nobody else.
"""

from __future__ import annotations

import os
import queue
import re
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_HEAD = 64 * 1024
_LENGTH = re.compile(rb"^content-length:[ \t]*(\d{1,12})[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)


def wanted(data: bytes, max_body: int) -> int | None:
    """How many bytes the request in ``data`` needs in all, or None while its head is incomplete. A
    head the handler refuses anyway (no, bad or too large Content-Length; over ``MAX_HEAD``) needs no more."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return len(data) if len(data) > MAX_HEAD else None
    found = _LENGTH.findall(data[:end])
    if len(found) != 1 or int(found[0]) > max_body:
        return len(data)
    return end + 4 + int(found[0])


@dataclass
class _Pending:
    sock: socket.socket
    address: Any
    started: float
    last: float
    data: bytearray = field(default_factory=bytearray)
    need: int | None = None


Ready = Callable[[socket.socket, Any, bytes], None]
Dropped = Callable[[socket.socket], None]


class RequestReader(threading.Thread):
    """One thread multiplexing every connection still being read (see the module doc)."""

    def __init__(
        self, ready: Ready, dropped: Dropped, max_body: int, idle: Callable[[], float], deadline: Callable[[], float]
    ) -> None:
        super().__init__(daemon=True, name="workbench-serve-reader")
        self._ready, self._dropped, self._max_body = ready, dropped, max_body
        self._idle, self._deadline = idle, deadline
        self._new: queue.SimpleQueue[tuple[socket.socket, Any]] = queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._stopped = threading.Event()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)

    def add(self, sock: socket.socket, address: Any) -> None:
        """Start reading a newly accepted connection."""
        self._new.put((sock, address))
        self._wake()

    def stop(self) -> None:
        self._stopped.set()
        self._wake()

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except (BlockingIOError, OSError):
            pass

    def run(self) -> None:
        try:
            while not self._stopped.is_set():
                for key, _ in self._selector.select(timeout=0.25):
                    if key.data is None:
                        os.read(self._wake_r, 4096)
                    else:
                        self._read(key.data)
                self._take_new()
                self._expire(time.monotonic())
        finally:
            for key in list(self._selector.get_map().values()):
                if key.data is not None:
                    self._finish(key.data, None)
            self._selector.close()
            os.close(self._wake_r)
            os.close(self._wake_w)

    def _take_new(self) -> None:
        while not self._new.empty():
            sock, address = self._new.get()
            sock.setblocking(False)
            now = time.monotonic()
            self._selector.register(sock, selectors.EVENT_READ, _Pending(sock, address, now, now))

    def _read(self, pending: _Pending) -> None:
        try:
            chunk = pending.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        pending.last = time.monotonic()
        pending.data += chunk
        pending.need = wanted(bytes(pending.data), self._max_body)
        if pending.need is not None and len(pending.data) >= pending.need:
            self._finish(pending, bytes(pending.data))
        elif not chunk:  # the client closed: answer a complete head (its body is short), drop the rest
            self._finish(pending, bytes(pending.data) if pending.need is not None else None)

    def _expire(self, now: float) -> None:
        idle, deadline = self._idle(), self._deadline()
        for key in list(self._selector.get_map().values()):
            pending = key.data
            if pending is not None and (now - pending.last > idle or now - pending.started > deadline):
                self._finish(pending, bytes(pending.data) if pending.need is not None else None)

    def _finish(self, pending: _Pending, data: bytes | None) -> None:
        """Hand a request to the workers (``data``), or drop the connection (None)."""
        self._selector.unregister(pending.sock)
        if data is None:
            self._dropped(pending.sock)
            return
        pending.sock.setblocking(True)
        self._ready(pending.sock, pending.address, data)
