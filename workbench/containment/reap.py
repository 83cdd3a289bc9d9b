"""No process outlives its case or run (see the package doc)."""

from __future__ import annotations

import atexit
import ctypes
import errno
import os
import shutil
import signal
import sys
import threading
import uuid
from functools import lru_cache
from pathlib import Path

# Every engine and fixture command starts in its own session, with ``REAP_ENV`` set to a token of
# its own in its environment, as the only child of a subreaper of its own (``reaped_argv``:
# ``_subreaper.py``, Linux ``prctl``), and workbench is a child subreaper too, so whatever it
# starts (``setsid``, double forks, a cleared environment, all at once included) stays a
# descendant of what workbench started or carries the token. ``reap`` freezes and kills the whole
# lot: the process group, every descendant, every process with the token; at the case's end, at
# ``--deadline`` (targets closed) and at exit; and the command's own subreaper kills what it
# adopted as soon as the command ends.

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


_SUBREAPER = str(Path(__file__).with_name("_subreaper.py"))


def reaped_argv(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> list[str]:
    """``argv`` run as the only child of a subreaper of its own (``_subreaper.py``) on Linux, so
    nothing it starts escapes ``reap``; ``argv`` itself elsewhere. A program that cannot be run (on
    ``env``'s PATH, or a path from ``cwd``) is the OSError ``Popen`` would raise (FileNotFoundError,
    PermissionError), raised here."""
    program = argv[0]
    if os.sep in program:
        found: str | None = os.path.join(cwd or os.getcwd(), program)
    else:
        found = shutil.which(program, path=env.get("PATH", os.defpath))
    if found is None or not os.path.exists(found):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
    if os.path.isdir(found) or not os.access(found, os.X_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), program)
    if not become_subreaper():
        return argv
    return own_reaper_argv(argv)


def own_reaper_argv(argv: list[str]) -> list[str]:
    """``argv`` as the only child of ``_subreaper.py`` (Linux), which collects whatever it leaves before
    exiting with its status; ``argv`` itself elsewhere. Without ``reaped_argv``'s token and checks:
    for a short command of workbench's own (bubblewrap's probe, whose namespace process outlives it)."""
    if not sys.platform.startswith("linux"):
        return argv
    return [sys.executable, "-I", "-S", _SUBREAPER, *argv]


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


def victims(pid: int, token: str | None) -> set[int]:
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
        new = victims(pid, token) - stopped
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
