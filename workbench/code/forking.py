"""When this process may fork helper processes, and how many CPUs they can use.

Shared by the cold index's parse pool (``parallel``), mining's parse helper (``mining.blobs``)
and the run's case workers (``run.forked``); kept free of heavy imports so a short command pays
nothing for it.
"""

from __future__ import annotations

import multiprocessing
import os
import threading

_in_worker = False  # set in a case worker (``run.forked``): the CPUs are shared out already


def workers() -> int:
    """Worker processes for a cold index: the CPUs this process may use, at most 8 (1 inside a case
    worker, whose siblings use the other CPUs: forking again would only crowd them)."""
    if _in_worker:
        return 1
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:
        count = os.cpu_count() or 1
    return min(count, 8)


def mark_worker() -> None:
    """Mark this (forked) process as one of several case workers: its helpers run in process."""
    global _in_worker
    _in_worker = True


def fork_is_safe() -> bool:
    """Whether a forked child can run here: ``fork`` exists and no other thread runs in this process
    (a child forked beside a running thread, a progress bar or a runner's --jobs, can deadlock on a
    lock that thread held)."""
    return threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()
