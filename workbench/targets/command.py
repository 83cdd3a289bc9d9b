"""The ``cmd:<command line>`` target: one long-lived process speaking JSON lines.

Each request is one JSON line on the program's stdin; the answer is the next
line on its stdout. A request that gets no answer within the timeout kills the
process (a late answer would desynchronise the stream); a crashed or killed
process is restarted for the next request. Either way only that case fails.
"""
from __future__ import annotations

import json
import queue
import shlex
import shutil
import subprocess
import threading
from collections import deque
from pathlib import Path
from typing import IO, Any

from ..errors import TargetError
from .protocol import ProtocolTarget

_EOF = object()


class CommandTransport:
    """Send JSON requests to a subprocess and read one JSON line back per request."""

    def __init__(self, argv: list[str], timeout: float = 60.0) -> None:
        self.argv = argv
        self.timeout = timeout
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[Any] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=20)
        self._lock = threading.Lock()

    def _start(self) -> subprocess.Popen[str]:
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, encoding="utf-8",
                                    errors="replace", bufsize=1)
        except OSError as exc:
            raise TargetError(f"cannot start {shlex.join(self.argv)}: {exc.strerror or exc}") from None
        self._lines = queue.Queue()
        threading.Thread(target=self._pump, args=(proc.stdout, self._lines), daemon=True).start()
        threading.Thread(target=self._drain, args=(proc.stderr,), daemon=True).start()
        return proc

    @staticmethod
    def _pump(stream: IO[str], lines: "queue.Queue[Any]") -> None:
        for line in stream:
            lines.put(line)
        lines.put(_EOF)

    def _drain(self, stream: IO[str]) -> None:
        for line in stream:
            self._stderr.append(line.rstrip())

    def _died(self, proc: subprocess.Popen[str]) -> TargetError:
        code = proc.wait()
        tail = next((line for line in reversed(self._stderr) if line), "")
        self._proc = None
        return TargetError(f"engine exited with code {code}" + (f": {tail}" if tail else ""))

    def __call__(self, capability: str, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._proc = self._start()
            proc = self._proc
            try:
                proc.stdin.write(json.dumps(request) + "\n")
                proc.stdin.flush()
            except (BrokenPipeError, OSError):
                raise self._died(proc) from None
            try:
                line = self._lines.get(timeout=self.timeout)
            except queue.Empty:
                self.close()
                raise TargetError(f"{capability}: no answer within {self.timeout:g}s (engine killed)") from None
            if line is _EOF:
                raise self._died(proc)
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            shown = line.strip()[:80]
            raise TargetError(f"{capability}: answered garbage (not JSON): {shown!r}") from None

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc is not None:
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                try:
                    stream.close()
                except OSError:
                    pass


def command_target(command_line: str, timeout: float = 60.0) -> ProtocolTarget:
    """Build the target for ``cmd:<command line>`` (the program must be on PATH or a path)."""
    argv = shlex.split(command_line)
    if not argv:
        raise TargetError("cmd: target needs a command line, e.g. cmd:'node engine.js'")
    if shutil.which(argv[0]) is None:
        raise TargetError(f"cmd:{command_line}: program {argv[0]!r} not found")
    short = " ".join(Path(arg).name if "/" in arg else arg for arg in argv)
    return ProtocolTarget(f"cmd:{short}", CommandTransport(argv, timeout), version=argv[0])
