"""Warm report kernels kept between the reports one process renders: ``take`` and ``give``.

A report kernel costs about 1 CPU-second and 1-2 s to start and warm up (pandas, matplotlib). A
process that renders several reports or pages (a JupyterLab session re-rendering after each run,
the test suite) gets its kernels back warm: ``render_report`` and ``render_single_page`` take a
kernel here and give it back when they are done with it. A kernel is reused only where a fresh one
would behave the same: it was started with the same warm-up, in the same working directory (its
``sys.path`` starts there) and with the same ``PYTHON*`` variables (read as the interpreter
starts), and no file it imported a module from has changed since (an edited view is imported
anew, by a new kernel). The rest of the environment is read when used, so a kept kernel is given
this process's current environment before it is handed out again. At most one kernel per core
waits here, each for at most ``IDLE_SECONDS``; the others are shut down at once, and the waiting
ones when the process exits.
"""

from __future__ import annotations

import atexit
import os
import threading
from pathlib import Path

from ._kernels import KernelSlot

IDLE_SECONDS = 600.0
# Run in a kept kernel before it is handed out again: back in its directory, given the environment's
# changes since it started, and whether any module it imported was loaded from a file changed (or
# gone) since then.
CHECK = """import os as _wb_os, sys as _wb_sys
_wb_os.chdir({cwd!r})
_wb_os.environ.update({changed!r})
for _wb_name in {removed!r}:
    _wb_os.environ.pop(_wb_name, None)
_wb_stale = False
for _wb_module in list(_wb_sys.modules.values()):
    _wb_file = getattr(_wb_module, "__file__", None)
    if _wb_file:
        try:
            _wb_stale = _wb_os.stat(_wb_file).st_mtime_ns > {since}
        except OSError:
            _wb_stale = True
        if _wb_stale:
            break
"""

Key = tuple[str, str, tuple[tuple[str, str], ...]]
_lock = threading.Lock()
_idle: dict[KernelSlot, threading.Timer] = {}  # oldest first


def _key(cwd: Path, warmup: str) -> Key:
    return str(cwd), warmup, tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("PYTHON")))


def take(cwd: Path, warmup: str) -> KernelSlot:
    """A kept kernel started like ``KernelSlot(cwd, warmup)`` would be and still current, else a
    new, not yet started slot (``KernelSlot.start`` starts it)."""
    key = _key(cwd, warmup)
    while True:
        with _lock:
            slot = next((s for s in _idle if s.key == key), None)
            if slot is None:
                fresh = KernelSlot(cwd, warmup)
                fresh.key = key
                return fresh
            _idle.pop(slot).cancel()
        if _current(slot):
            return slot
        slot.shutdown()


def _current(slot: KernelSlot) -> bool:
    """Whether the kernel answers, is back in its directory with this process's environment, and
    imported nothing changed since it started."""
    now = dict(os.environ)
    changed = {name: value for name, value in now.items() if slot.env.get(name) != value}
    code = CHECK.format(
        cwd=str(slot.cwd), changed=changed, removed=sorted(set(slot.env) - set(now)), since=slot.started_ns
    )
    try:
        reply = slot.run(code, {"stale": "_wb_stale"}, timeout=10)
    except Exception:  # noqa: BLE001 - a dead or hung kernel is simply not reused
        return False
    slot.env = now
    return reply["status"] == "ok" and reply["user_expressions"]["stale"]["data"]["text/plain"] == "False"


def give(slot: KernelSlot) -> None:
    """Keep ``slot``'s kernel for the next report if it is alive, shutting down the oldest kept
    one beyond one per core; otherwise shut it down."""
    if not slot.alive():
        slot.shutdown()
        return
    timer = threading.Timer(IDLE_SECONDS, _expire, (slot,))
    timer.daemon = True
    with _lock:
        _idle[slot] = timer
        evicted = list(_idle)[: max(0, len(_idle) - len(os.sched_getaffinity(0)))]
        for old in evicted:
            _idle.pop(old).cancel()
    timer.start()
    for old in evicted:
        old.shutdown()


def _expire(slot: KernelSlot) -> None:
    with _lock:
        if _idle.pop(slot, None) is None:
            return  # taken meanwhile
    slot.shutdown()


@atexit.register
def close_all() -> None:
    """Shut down every kept kernel (at exit, or to free their memory now)."""
    with _lock:
        kept = list(_idle)
        for slot in kept:
            _idle.pop(slot).cancel()
    for slot in kept:
        slot.shutdown()
