"""The ``cmd:<command line>`` target: one long-lived process speaking JSON lines.

Each request is one JSON line on the program's stdin, carrying an ``id``; the answer is the next
line on its stdout that echoes that id (or has none, for simple engines), so an extra line never
shifts later answers. The timeout covers the whole request (writing it and reading the answer): a
request not answered in time kills the engine's process group, and a crashed or killed process is
restarted for the next request. Either way only that case fails. An engine that cannot start, or
exits before it has answered anything at all, is an ``EngineStartError`` carrying the first lines of
its stderr (the real cause: "Cannot find module ..."), which stops the run. stderr is kept to its
last 64 KB (see ``workbench.targets.pipes``); ``stderr_tail`` gives the last ``CASE_STDERR`` bytes
of it for an errored case's row. Answers are parsed strictly (``workbench.strictjson``).
"""

from __future__ import annotations

import json
import shlex
import shutil
import threading
import time
from pathlib import Path
from typing import Any

from ..contract import REQUEST_TIMEOUT
from ..errors import TargetError
from ..strictjson import loads_strict
from .handshake import EngineStartError
from .pipes import EOF, MAX_LINE, TOO_LONG, Deadline, EngineProcess
from .protocol import ProtocolTarget

CASE_STDERR = 2048  # bytes of the engine's stderr an errored case keeps
START_LINES = 5  # stderr lines an engine that died before its first answer is reported with


class CommandTransport:
    """Send JSON requests to a subprocess and read one JSON line back per request."""

    def __init__(self, argv: list[str], timeout: float = REQUEST_TIMEOUT) -> None:
        self.argv = argv
        self.timeout = timeout
        self._engine: EngineProcess | None = None
        self._last: EngineProcess | None = None  # the latest engine process, alive or not
        self._answered = False  # whether any engine process has answered once
        self._next_id = 0
        self._lock = threading.Lock()

    def _start(self) -> EngineProcess:
        try:
            self._last = EngineProcess(self.argv)
            return self._last
        except OSError as exc:
            raise EngineStartError(f"cannot start {shlex.join(self.argv)}: {exc.strerror or exc}") from None

    def stderr_tail(self) -> str:
        """The last ``CASE_STDERR`` bytes the latest engine process wrote to stderr ("" if none)."""
        if self._last is None:
            return ""
        return self._last.stderr_tail().encode("utf-8")[-CASE_STDERR:].decode("utf-8", "ignore")

    def _died(self, engine: EngineProcess, deadline: float) -> TargetError:
        code = engine.exit_code(deadline)
        engine.kill()
        self._engine = None
        lines = [line.strip() for line in engine.stderr_tail().splitlines() if line.strip()]
        said = f"engine exited with code {code}" if code is not None else "engine closed its output (killed)"
        if not self._answered:
            first = " | ".join(line[:200] for line in lines[:START_LINES])
            where = f"before its first answer; command: {shlex.join(self.argv)}"
            return EngineStartError(f"{said}: {first} ({where})" if first else f"{said}, nothing on stderr ({where})")
        tail = lines[-1] if lines else ""
        return TargetError(said + (f": {tail[-300:]}" if tail else ""))

    def _timed_out(self, capability: str) -> TargetError:
        self.close()
        return TargetError(f"{capability}: no answer within {self.timeout:g}s (engine killed)")

    def __call__(self, capability: str, request: dict[str, Any]) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        with self._lock:
            if self._engine is None or not self._engine.alive():
                if self._engine is not None:
                    self._engine.kill()
                self._engine = self._start()
            engine = self._engine
            self._next_id += 1
            ident = self._next_id
            try:
                engine.write((json.dumps({**request, "id": ident}) + "\n").encode("utf-8"), deadline)
                while True:
                    line = engine.read_line(deadline)
                    if line is EOF:
                        raise self._died(engine, deadline)
                    if line is TOO_LONG:
                        raise TargetError(f"{capability}: answer longer than {MAX_LINE // 2**20} MB")
                    assert isinstance(line, bytes)
                    if not line.strip():
                        continue
                    body = _parse(capability, line)
                    if isinstance(body, dict) and "id" in body and body["id"] != ident:
                        continue  # an extra or stale answer to an earlier request: not this one's
                    self._answered = True
                    return body
            except Deadline:
                raise self._timed_out(capability) from None
            except OSError:
                raise self._died(engine, deadline) from None

    def close(self) -> None:
        engine, self._engine = self._engine, None
        if engine is not None:
            engine.kill()


def _parse(capability: str, line: bytes) -> Any:
    """One answer line, strictly; garbage, bad bytes and lone surrogates fail only this case."""
    try:
        return loads_strict(line, f"{capability}: answer", TargetError)
    except TargetError as exc:
        if "invalid JSON" in str(exc):
            shown = line.strip()[:80].decode("utf-8", errors="replace")
            raise TargetError(f"{capability}: answered garbage (not JSON): {shown!r}") from None
        raise


def command_target(command_line: str, timeout: float = REQUEST_TIMEOUT) -> ProtocolTarget:
    """Build the target for ``cmd:<command line>`` (the program must be on PATH or a path)."""
    argv = shlex.split(command_line)
    if not argv:
        raise TargetError("cmd: target needs a command line, e.g. cmd:'node engine.js'")
    if shutil.which(argv[0]) is None:
        raise TargetError(f"cmd:{command_line}: program {argv[0]!r} not found")
    short = " ".join(Path(arg).name if "/" in arg else arg for arg in argv)
    return ProtocolTarget(f"cmd:{short}", CommandTransport(argv, timeout), version=argv[0], timeout=timeout)
