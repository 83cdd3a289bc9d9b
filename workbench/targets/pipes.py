"""An engine process behind pipes, where every wait has a deadline and nothing grows without bound.

``EngineProcess`` starts a program in its own process group with binary pipes. One thread reads
stdout into a queue of lines (a line longer than ``MAX_LINE`` becomes a ``TOO_LONG`` marker and is
skipped to its newline, so the stream stays in step); another keeps only the last ``STDERR_KEEP``
bytes of stderr, newlines or not. Writes go through ``select`` on a non-blocking stdin, so an engine
that stops reading cannot block a request past its deadline. ``kill`` ends the whole group and every
process the engine started, ``setsid`` ones too (``containment.reap``); the reader threads then see
end of file and close their own streams, so a killed engine leaves no thread stuck and prints no
traceback.
"""

from __future__ import annotations

import os
import queue
import select
import subprocess
import threading
import time
from typing import IO

from ..containment import reap, reaped_argv, reaped_env, started
from ..wire import MAX_ANSWER_BYTES

STDERR_KEEP = 64 * 1024
MAX_LINE = MAX_ANSWER_BYTES
EXIT_GRACE = 2.0
EOF = object()
TOO_LONG = object()


class Deadline(Exception):
    """A wait ran out of time."""


class EngineProcess:
    """One running engine: deadline-bound line writes and reads, a bounded stderr tail."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        env, self.token = reaped_env(env)
        self.proc = subprocess.Popen(
            reaped_argv(argv, env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        started(self.token, self.proc.pid)
        self.lines: queue.Queue[object] = queue.Queue()
        self._tail = bytearray()
        self._tail_lock = threading.Lock()
        os.set_blocking(self.proc.stdin.fileno(), False)  # type: ignore[union-attr]
        threading.Thread(target=self._pump, args=(self.proc.stdout,), daemon=True).start()
        self._drainer = threading.Thread(target=self._drain, args=(self.proc.stderr,), daemon=True)
        self._drainer.start()

    def _pump(self, stream: IO[bytes]) -> None:
        try:
            while line := stream.readline(MAX_LINE + 1):
                if len(line) > MAX_LINE and not line.endswith(b"\n"):
                    while line and not line.endswith(b"\n"):
                        line = stream.readline(MAX_LINE)
                    self.lines.put(TOO_LONG)
                else:
                    self.lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            self.lines.put(EOF)
            _close(stream)

    def _drain(self, stream: IO[bytes]) -> None:
        try:
            while chunk := stream.read1(65536):  # type: ignore[attr-defined]
                with self._tail_lock:
                    self._tail += chunk
                    del self._tail[:-STDERR_KEEP]
        except (OSError, ValueError):
            pass
        finally:
            _close(stream)

    def stderr_tail(self) -> str:
        """The last ``STDERR_KEEP`` bytes the engine wrote to stderr, as text."""
        with self._tail_lock:
            return self._tail.decode("utf-8", errors="replace")

    def last_stderr(self, within: float = EXIT_GRACE) -> str:
        """``stderr_tail`` once everything the engine wrote is read (its stderr closed), waiting at most
        ``within`` seconds: an engine that just died may have written its last words unread yet."""
        self._drainer.join(within)
        return self.stderr_tail()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def write(self, data: bytes, deadline: float) -> None:
        """Write all of ``data`` to stdin by ``deadline`` (``Deadline``), or OSError if the pipe broke."""
        fd = self.proc.stdin.fileno()  # type: ignore[union-attr]
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([], [fd], [], remaining)[1]:
                raise Deadline()
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                continue

    def read_line(self, deadline: float) -> object:
        """The next stdout line (bytes), ``TOO_LONG`` or ``EOF``, by ``deadline`` (else ``Deadline``)."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Deadline()
        try:
            return self.lines.get(timeout=remaining)
        except queue.Empty:
            raise Deadline() from None

    def exit_code(self, deadline: float) -> int | None:
        """The exit code once the engine ends (it closed stdout): waits at most a short grace, then kills."""
        try:
            return self.proc.wait(timeout=max(0.05, min(EXIT_GRACE, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def kill(self) -> None:
        """End the engine and everything it started (its group, its descendants, whatever carries its
        reap token: ``setsid`` does not escape) and reap it; the reader threads finish on their own."""
        reap(self.proc.pid, self.token)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        _close(self.proc.stdin)


def _close(stream: IO[bytes] | None) -> None:
    try:
        if stream is not None:
            stream.close()
    except OSError:
        pass
