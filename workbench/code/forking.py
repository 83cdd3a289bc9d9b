"""When this process may fork helper processes, and how many CPUs they can use.

Shared by the cold index's parse pool (``parallel``) and mining's parse helper
(``mining.blobs``); kept free of heavy imports so a short command pays nothing for it.
"""

from __future__ import annotations

import multiprocessing
import os
import threading


def workers() -> int:
    """Worker processes for a cold index: the CPUs this process may use, at most 8."""
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:
        count = os.cpu_count() or 1
    return min(count, 8)


def fork_is_safe() -> bool:
    """Whether a forked child can run here: ``fork`` exists and no other thread runs in this process
    (a child forked beside a running thread, a progress bar or a runner's --jobs, can deadlock on a
    lock that thread held)."""
    return threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()
