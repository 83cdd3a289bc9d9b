"""Running one contained command: bounded output tails, limits, and reaping (see the package doc)."""

from __future__ import annotations

import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .reap import reap, reaped_env, started

OUTPUT_KEEP = 16 * 1024  # bytes of a command's stdout and of its stderr kept (the last ones)


def _tail_of(stream: IO[bytes], keep: bytearray, lock: threading.Lock) -> None:
    """Read ``stream`` to its end, keeping only its last ``OUTPUT_KEEP`` bytes (never the whole)."""
    try:
        while chunk := stream.read1(65536):  # type: ignore[attr-defined]
            with lock:
                keep += chunk
                del keep[:-OUTPUT_KEEP]
    except (OSError, ValueError):
        pass
    finally:
        stream.close()


@dataclass(frozen=True)
class Finished:
    """How a contained command ended: its exit code (None: killed at its timeout) and output tails."""

    exit_code: int | None
    stdout: bytes
    stderr: bytes


def run_contained(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> Finished:
    """Run ``argv`` (already ``contain``-ed) in its own session, its output streamed into bounded
    tails, killed at ``timeout``; whatever it started is reaped when it ends, either way."""
    env, token = reaped_env(env)
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    started(token, proc.pid)
    tails, lock = (bytearray(), bytearray()), threading.Lock()
    readers = [
        threading.Thread(target=_tail_of, args=(stream, tail, lock), daemon=True)
        for stream, tail in zip((proc.stdout, proc.stderr), tails, strict=True)
    ]
    for reader in readers:
        reader.start()
    try:
        code: int | None = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
    finally:
        reap(proc.pid, token)  # also the children a finished command left running
        proc.wait()
    for reader in readers:
        reader.join(timeout=5)
    with lock:
        return Finished(code, bytes(tails[0]), bytes(tails[1]))
