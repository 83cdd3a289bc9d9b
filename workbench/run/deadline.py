"""``workbench run --deadline S``: a bound on the whole run.

Once ``S`` seconds have passed since the run started no case starts: each case not reached is
recorded as an error saying so (it fails its suite, so the run exits 1), it is not journaled, and
the journal is kept, so ``--resume`` runs exactly those cases later. At the deadline the runner
also closes its ``cmd:`` engines, ends its ``--jobs`` worker processes (``run.forked``) and its Ray
actors (``--executor ray``), so a request in flight there ends then (recorded the same way); an
in-process or ``http://`` request in flight in this process ends within its own ``--timeout``. The summary notes
``{"deadline": {"seconds", "not_run"}}``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
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

    def watch(self, on_expiry: Callable[[], None]) -> threading.Timer | None:
        """A started timer calling ``on_expiry`` at the deadline (None without one); cancel it after."""
        if self.stop_at is None:
            return None
        timer = threading.Timer(max(0.0, self.stop_at - time.monotonic()), on_expiry)
        timer.daemon = True
        timer.start()
        return timer

    def cut_short(self, outcome: Outcome) -> Outcome:
        """A case that failed once the deadline passed: recorded as stopped by it (a resume reruns it)."""
        with self._lock:
            self.not_run += 1
        return Outcome(
            outcome.case,
            None,
            f"stopped: the run's --deadline of {self.seconds:g}s passed during this case ({outcome.error})",
            outcome.seconds,
        )

    def not_reached(self, case: dict[str, Any]) -> Outcome:
        """The outcome of a case the deadline left out."""
        with self._lock:
            self.not_run += 1
        return Outcome(case, None, f"not run: the run's --deadline of {self.seconds:g}s passed", 0.0)


def note_deadline(summary: dict[str, Any], deadline: RunDeadline) -> dict[str, Any]:
    """The summary, marked failed with the deadline noted when the deadline left cases out."""
    if not deadline.not_run:
        return summary
    return dict(
        summary, passed=False, verdict="FAIL", deadline={"seconds": deadline.seconds, "not_run": deadline.not_run}
    )
