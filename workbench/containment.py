"""Containment of fixture commands: bubblewrap when this machine has it.

Under bubblewrap (``bwrap``, found on PATH and checked once) a harness or validation
command sees the whole file system read-only, its temporary copy as the only writable directory
besides a private ``/tmp`` (also its ``HOME``), no network, its own PID, IPC and UTS namespaces and a
new session, and it dies with workbench. Without it, ``sandbox_kind()`` is ``"none"`` (the run's
summary and report say so) and commands run as the user, confined only by the allowlist, the
minimal environment and the timeout.

Either way ``sandbox.drop_escaping_links`` leaves no symlink in a copy that resolves outside the copy,
dangles or loops: a fixture cannot be modified through a link, whatever its scripts write.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import threading
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import IO

BWRAP = "bwrap"
ENV_DISABLE = "WORKBENCH_NO_BWRAP"


@lru_cache(maxsize=1)
def _bwrap() -> str | None:
    """The bwrap binary, if it is installed and can create its namespaces on this machine."""
    if os.environ.get(ENV_DISABLE):
        return None
    found = shutil.which(BWRAP)
    if found is None:
        return None
    try:
        probe = subprocess.run(
            [found, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--", "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return found if probe.returncode == 0 else None


def sandbox_kind() -> str:
    """``"bwrap"`` when fixture commands run under bubblewrap, else ``"none"``."""
    return "bwrap" if _bwrap() else "none"


def contain(argv: list[str], writable: Path) -> list[str]:
    """``argv`` wrapped to run under bubblewrap with only ``writable`` (and a private /tmp) writable.

    Returned unchanged when bubblewrap is not available (``sandbox_kind() == "none"``)."""
    bwrap = _bwrap()
    if bwrap is None:
        return argv
    where = str(writable.resolve())
    shown = [arg for path in _under_tmp(argv) for arg in ("--ro-bind", path, path)]
    return [
        bwrap,
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        *shown,
        "--bind",
        where,
        where,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--chdir",
        where,
        "--",
        *argv,
    ]


def _under_tmp(argv: list[str]) -> list[str]:
    """What the private ``/tmp`` would hide but a command needs, read-only: this Python's prefixes
    and import paths, and the program it runs, when they live under ``/tmp`` (a clone or virtual
    environment made in a temporary directory)."""
    program = shutil.which(argv[0]) if argv else None
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path]
    candidates += [str(Path(found).resolve().parent) for found in (sys.executable, program) if found]
    tmp = Path("/tmp").resolve()
    kept: list[str] = []
    for text in sorted({str(Path(c).resolve()) for c in candidates if c}):
        path = Path(text)
        if path.is_relative_to(tmp) and path != tmp and path.exists():
            if not any(path.is_relative_to(Path(k)) for k in kept):
                kept.append(text)
    return kept


# --- No process outlives its case or run -------------------------------------------------------
# Every engine and fixture command starts in its own session, with ``REAP_ENV`` set to a token of
# its own in its environment, and workbench is a child subreaper (Linux ``prctl``), so whatever it
# starts (``setsid`` and double forks included) stays its descendant or carries the token.
# ``reap`` freezes and kills the whole lot: the process group, every descendant, every process
# with the token; at the case's end, at ``--deadline`` (targets closed) and at exit.

REAP_ENV = "WORKBENCH_REAP"
_PR_SET_CHILD_SUBREAPER = 36
_LIVE: dict[str, int] = {}  # token -> pid of what was started with it, until reaped
_LIVE_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux); whether it worked."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        ok = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
    if ok:
        atexit.register(reap_all)
    return ok


def reaped_env(env: dict[str, str] | None) -> tuple[dict[str, str], str]:
    """``env`` (or this process's) plus a fresh reap token, and the token; makes workbench a subreaper."""
    become_subreaper()
    token = uuid.uuid4().hex
    return {**(os.environ if env is None else env), REAP_ENV: token}, token


def started(token: str, pid: int) -> None:
    """Record what a token was started with, so ``reap_all`` ends it at exit."""
    with _LIVE_LOCK:
        _LIVE[token] = pid


def _processes() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, process group) of every process, from /proc."""
    table = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    fields = handle.read().rpartition(b")")[2].split()
                table[int(entry.name)] = (int(fields[1]), int(fields[2]))
            except (OSError, IndexError, ValueError):
                continue
    return table


def _carries(pid: int, marker: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return marker in handle.read()
    except OSError:
        return False


def _victims(pid: int, token: str | None) -> set[int]:
    table = _processes()
    found = {p for p, (_, group) in table.items() if group == pid} | ({pid} & set(table))
    grew = True
    while grew:
        more = {p for p, (parent, _) in table.items() if parent in found} - found
        found |= more
        grew = bool(more)
    if token:
        marker = f"{REAP_ENV}={token}".encode()  # a random token: never part of another variable
        found |= {p for p in table if p not in found and _carries(p, marker)}
    found.discard(os.getpid())
    return found


def reap(pid: int, token: str | None = None) -> int:
    """Freeze, then kill, ``pid``'s process group, its descendants and every process carrying
    ``token``; collect those that became this process's children. How many were killed."""
    stopped: set[int] = set()
    for _ in range(50):  # a fork bomb keeps forking: freeze what is found until nothing new appears
        new = _victims(pid, token) - stopped
        if not new:
            break
        for victim in new:
            _signal(victim, signal.SIGSTOP)
        stopped |= new
    for victim in stopped:
        _signal(victim, signal.SIGKILL)
    for victim in stopped - {pid}:  # ``pid`` itself is its Popen's to wait for
        try:
            os.waitpid(victim, 0)
        except (ChildProcessError, OSError):
            pass
    if token:
        with _LIVE_LOCK:
            _LIVE.pop(token, None)
    return len(stopped)


def _signal(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except (ProcessLookupError, PermissionError):
        pass


def reap_all() -> None:
    """End everything started with a token not yet reaped (at exit, and after ``--deadline``)."""
    with _LIVE_LOCK:
        live = list(_LIVE.items())
    for token, pid in live:
        reap(pid, token)


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
