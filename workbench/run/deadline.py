"""``workbench run --deadline S``: a bound on the whole run.

Once ``S`` seconds have passed since the run started no case starts: each case not reached is
recorded as an error saying so (it fails its suite, so the run exits 1), it is not journaled, and
the journal is kept, so ``--resume`` runs exactly those cases later. A case already in flight
finishes within its own ``--timeout``. The summary notes ``{"deadline": {"seconds", "not_run"}}``.
"""
from __future__ import annotations

import threading
import time
from typing import Any

from ..suites import Outcome


class RunDeadline:
    """When a run must stop starting cases, and how many it left out (thread-safe for ``--jobs``)."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.stop_at = None if seconds is None else time.monotonic() + seconds
        self.not_run = 0
        self._lock = threading.Lock()

    def passed(self) -> bool:
        return self.stop_at is not None and time.monotonic() >= self.stop_at

    def not_reached(self, case: dict[str, Any]) -> Outcome:
        """The outcome of a case the deadline left out."""
        with self._lock:
            self.not_run += 1
        return Outcome(case, None, f"not run: the run's --deadline of {self.seconds:g}s passed", 0.0)


def note_deadline(summary: dict[str, Any], deadline: RunDeadline) -> dict[str, Any]:
    """The summary, marked failed with the deadline noted when the deadline left cases out."""
    if not deadline.not_run:
        return summary
    return dict(summary, passed=False, deadline={"seconds": deadline.seconds, "not_run": deadline.not_run})
