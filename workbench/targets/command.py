"""The ``cmd:<command line>`` target: long-lived processes speaking JSON lines (one, or up to
``--jobs N`` answering cases at once).

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
from ..options import command_argv
from ..strictjson import loads_strict
from .handshake import EngineStartError
from .pipes import EOF, MAX_LINE, TOO_LONG, Deadline, EngineProcess
from .protocol import ProtocolTarget

CASE_STDERR = 2048  # bytes of the engine's stderr an errored case keeps
START_LINES = 5  # stderr lines an engine that died before its first answer is reported with


class CommandTransport:
    """Send JSON requests to subprocesses and read one JSON line back per request.

    Up to ``processes`` engine processes answer at once (``--jobs N`` asks for N): each request
    takes an idle one or starts another while under the cap, else waits for one to be free. An
    engine answers its requests one at a time, as the protocol lets a simple engine do."""

    def __init__(self, argv: list[str], timeout: float = REQUEST_TIMEOUT, processes: int = 1) -> None:
        self.argv = argv
        self.timeout = timeout
        self.processes = max(1, processes)
        self._idle: list[EngineProcess] = []
        self._running: set[EngineProcess] = set()  # every live engine, idle or answering
        self._answered = False  # whether any engine process has answered once
        self._next_id = 0
        self._free = threading.Condition()
        self._mine = threading.local()  # the engine this thread last used, for ``stderr_tail``

    def _start(self) -> EngineProcess:
        try:
            return EngineProcess(self.argv)
        except OSError as exc:
            raise EngineStartError(f"cannot start {shlex.join(self.argv)}: {exc.strerror or exc}") from None

    def stderr_tail(self) -> str:
        """The last ``CASE_STDERR`` bytes of stderr of the engine this thread's latest request went to."""
        engine: EngineProcess | None = getattr(self._mine, "engine", None)
        if engine is None:
            return ""
        return engine.stderr_tail().encode("utf-8")[-CASE_STDERR:].decode("utf-8", "ignore")

    def _died(self, engine: EngineProcess, deadline: float) -> TargetError:
        code = engine.exit_code(deadline)
        engine.kill()
        lines = [line.strip() for line in engine.last_stderr().splitlines() if line.strip()]
        said = f"engine exited with code {code}" if code is not None else "engine closed its output (killed)"
        if not self._answered:
            first = " | ".join(line[:200] for line in lines[:START_LINES])
            where = f"before its first answer; command: {shlex.join(self.argv)}"
            return EngineStartError(f"{said}: {first} ({where})" if first else f"{said}, nothing on stderr ({where})")
        tail = lines[-1] if lines else ""
        return TargetError(said + (f": {tail[-300:]}" if tail else ""))

    def _take(self, deadline: float) -> tuple[EngineProcess, int]:
        """An idle live engine, a new one while under the cap, or the first freed within the deadline."""
        with self._free:
            while True:
                while self._idle:
                    engine = self._idle.pop()
                    if engine.alive():
                        break
                    engine.kill()
                    self._running.discard(engine)
                else:
                    engine = None
                if engine is None and len(self._running) < self.processes:
                    engine = self._start()
                    self._running.add(engine)
                if engine is not None:
                    self._next_id += 1
                    return engine, self._next_id
                if not self._free.wait(max(0.0, deadline - time.monotonic())):
                    raise Deadline

    def _give_back(self, engine: EngineProcess, healthy: bool) -> None:
        with self._free:
            if healthy and engine in self._running:
                self._idle.append(engine)
            else:
                engine.kill()
                self._running.discard(engine)
            self._free.notify()

    def __call__(self, capability: str, request: dict[str, Any]) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        try:
            engine, ident = self._take(deadline)
        except Deadline:
            raise TargetError(f"{capability}: no engine free within {self.timeout:g}s") from None
        self._mine.engine = engine
        healthy = False
        try:
            body = self._exchange(engine, ident, capability, request, deadline)
            healthy = True
            return body
        except TargetError:
            healthy = engine.alive()  # a garbage or oversized answer fails only its case
            raise
        finally:
            self._give_back(engine, healthy)

    def _exchange(
        self, engine: EngineProcess, ident: int, capability: str, request: dict[str, Any], deadline: float
    ) -> dict[str, Any]:
        try:
            engine.write((json.dumps({**request, "id": ident}) + "\n").encode("utf-8"), deadline)
            while True:
                line = engine.read_line(deadline)
                if line is EOF:
                    raise self._died(engine, deadline)
                if line is TOO_LONG:
                    raise TargetError(f"{capability}: answer longer than {MAX_LINE // 2**20} MB")
                if not isinstance(line, bytes) or not line.strip():
                    continue
                body = _parse(capability, line)
                if isinstance(body, dict) and "id" in body and body["id"] != ident:
                    continue  # an extra or stale answer to an earlier request: not this one's
                self._answered = True
                return body
        except Deadline:
            engine.kill()
            raise TargetError(f"{capability}: no answer within {self.timeout:g}s (engine killed)") from None
        except OSError:
            raise self._died(engine, deadline) from None

    def close(self) -> None:
        """End every engine process (idle or answering: a request in flight then fails)."""
        with self._free:
            engines, self._idle, self._running = list(self._running), [], set()
            self._free.notify_all()
        for engine in engines:
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


def command_target(command_line: str, timeout: float = REQUEST_TIMEOUT, processes: int = 1) -> ProtocolTarget:
    """Build the target for ``cmd:<command line>`` (the program must be on PATH or a path), with up
    to ``processes`` engine processes answering at once."""
    argv = command_argv(command_line)
    if not argv:
        raise TargetError("cmd: target needs a command line, e.g. cmd:'node engine.js'")
    if shutil.which(argv[0]) is None:
        raise TargetError(f"cmd:{command_line}: program {argv[0]!r} not found")
    short = " ".join(Path(arg).name if "/" in arg else arg for arg in argv)
    return ProtocolTarget(f"cmd:{short}", CommandTransport(argv, timeout, processes), version=argv[0], timeout=timeout)
