"""Running one contained command: bounded output tails, limits, and reaping (see the package doc).

Limits, with or without bubblewrap: at most ``MAX_PROCESSES`` processes at once (counted by a
watcher from /proc, since root is exempt from ``RLIMIT_NPROC``), ``MAX_FILE_BYTES`` per file,
``MAX_WRITTEN_BYTES`` in the writable copy, ``MAX_DATA_BYTES`` of data per process, no core files;
stdout and stderr streamed into tails of their last ``OUTPUT_KEEP`` bytes.
"""

from __future__ import annotations

import os
import resource
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .bwrap import BWRAP
from .reap import reap, reaped_argv, reaped_env, started, victims

OUTPUT_KEEP = 16 * 1024  # bytes of a command's stdout and of its stderr kept (the last ones)
MAX_PROCESSES = 256  # processes one command may have at once (it is killed whole beyond)
MAX_FILE_BYTES = 256 * 2**20  # one file (RLIMIT_FSIZE: a larger write fails with EFBIG)
MAX_WRITTEN_BYTES = 512 * 2**20  # everything in its writable copy
MAX_DATA_BYTES = 4 * 2**30  # heap and other private writable memory per process (RLIMIT_DATA)
WATCH_EVERY = 0.1


def limit_resources() -> None:
    """In the command's process before it execs (inherited by all it starts): the file size, data
    and core limits, and, for a non-root user, a process count limit."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES, MAX_FILE_BYTES))
    resource.setrlimit(resource.RLIMIT_DATA, (MAX_DATA_BYTES, MAX_DATA_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.geteuid() != 0:  # root is exempt from RLIMIT_NPROC: the watcher counts for it
        count = sum(1 for entry in os.scandir("/proc") if entry.name.isdigit())
        resource.setrlimit(resource.RLIMIT_NPROC, (count + MAX_PROCESSES, count + MAX_PROCESSES))


def tree_bytes(root: Path) -> int:
    """Bytes the files under ``root`` take on disk (links not followed)."""
    total = 0
    stack = [str(root)]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                else:
                    total += entry.stat(follow_symlinks=False).st_blocks * 512
            except OSError:
                continue
    return total


def _watch(pid: int, token: str, writable: Path, done: threading.Event, verdict: list[str]) -> None:
    """Kill the command whole once it has more than ``MAX_PROCESSES`` processes or its copy holds
    more than ``MAX_WRITTEN_BYTES``; ``verdict`` gets the reason."""
    tick = 0
    while not done.wait(WATCH_EVERY):
        tick += 1
        if len(victims(pid, token)) > MAX_PROCESSES:
            verdict.append(f"killed: more than {MAX_PROCESSES} processes")
        elif tick % 10 == 0 and tree_bytes(writable) > MAX_WRITTEN_BYTES:
            verdict.append(f"killed: wrote more than {MAX_WRITTEN_BYTES >> 20} MB")
        if verdict:
            reap(pid, token)
            return


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
    """How a contained command ended: its exit code (None: killed at its timeout or by a limit),
    output tails, and why it was killed by a limit (None: it was not)."""

    exit_code: int | None
    stdout: bytes
    stderr: bytes
    killed: str | None = None


def _pid_namespace(argv: list[str]) -> bool:
    """Whether ``argv`` runs under bubblewrap in a PID namespace of its own, which the kernel empties
    when the command ends: then it needs no subreaper of its own (``reaped_argv``)."""
    return Path(argv[0]).name == BWRAP and "--unshare-all" in argv


def run_contained(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> Finished:
    """Run ``argv`` (already ``contain``-ed) in its own session, its output streamed into bounded
    tails, killed at ``timeout``; whatever it started is reaped when it ends, either way."""
    env, token = reaped_env(env)
    proc = subprocess.Popen(
        argv if _pid_namespace(argv) else reaped_argv(argv, env, cwd),
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=limit_resources,
    )
    started(token, proc.pid)
    done, verdict = threading.Event(), list[str]()
    watcher = threading.Thread(target=_watch, args=(proc.pid, token, cwd, done, verdict), daemon=True)
    watcher.start()
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
        done.set()
        watcher.join()
        reap(proc.pid, token)  # also the children a finished command left running
        proc.wait()
    for reader in readers:
        reader.join(timeout=5)
    killed = verdict[0] if verdict else None
    with lock:
        return Finished(None if killed else code, bytes(tails[0]), bytes(tails[1]), killed)
