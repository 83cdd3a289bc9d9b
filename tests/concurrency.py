"""Races for the concurrency tests: calls started together on threads, each one's result kept."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def race(*calls: Callable[[], Any]) -> list[Any]:
    """Run ``calls`` at once on threads (a barrier lines them up): each one's result, or the
    exception it raised."""
    barrier, results = threading.Barrier(len(calls)), [None] * len(calls)

    def go(i: int) -> None:
        barrier.wait()
        try:
            results[i] = calls[i]()
        except Exception as exc:  # the caller judges it
            results[i] = exc

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
