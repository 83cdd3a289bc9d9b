"""``workbench run --budget-usd X --budget-seconds S``: stop a run once it has spent its budget.

Money is the ``cost_usd`` the engines' answers reported (``usage``); time is engine time, the
sum of the cases' own seconds (not the wall clock: ``--deadline`` bounds that). Each outcome that
arrives is counted; once either budget is spent no case starts. The cases already running
finish and are kept (in-flight cases on Ray are cut off instead, as at a ``--deadline``). Each
case not reached is recorded as an error saying so (it fails its suite), it is not journaled,
and the journal is kept, so ``--resume`` runs exactly those cases later. The summary says
``{"budget": {"usd", "seconds", "spent_usd", "spent_seconds", "stopped": true, "unreached": N}}``,
its ``verdict`` is ``BUDGET`` and it never passes. Cached outcomes (``--cache``) cost nothing.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from ..store.verdicts import BUDGET
from ..suites import Outcome
from .work import WorkItem


class RunBudget:
    """What a run may spend, what it has spent, and how many cases it left out (thread-safe)."""

    def __init__(self, usd: float | None = None, seconds: float | None = None) -> None:
        self.usd, self.seconds = usd, seconds
        self.spent_usd = 0.0
        self.spent_seconds = 0.0
        self.unreached = 0
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        return self.usd is not None or self.seconds is not None

    def spend(self, outcome: Outcome) -> None:
        """Count one arrived outcome's reported cost and engine seconds (a cached one costs nothing)."""
        if not self.active or outcome.meta.get("cached"):
            return
        cost = outcome.meta.get("cost_usd")
        with self._lock:
            if isinstance(cost, int | float) and math.isfinite(cost):
                self.spent_usd += float(cost)
            self.spent_seconds += float(outcome.seconds)

    def spent(self) -> bool:
        """Whether either budget is used up: no case may start now."""
        return (self.usd is not None and self.spent_usd >= self.usd) or (
            self.seconds is not None and self.spent_seconds >= self.seconds
        )

    def feed(self, items: list[WorkItem]) -> Iterable[WorkItem]:
        """``items`` for an executor to start, stopping at the first one asked for once spent."""
        if not self.active:
            return items
        return self._until_spent(items)

    def _until_spent(self, items: list[WorkItem]) -> Iterator[WorkItem]:
        for item in items:
            if self.spent():
                return
            yield item

    def what(self) -> str:
        """The budget that was spent, as the user typed it."""
        parts = []
        if self.usd is not None and self.spent_usd >= self.usd:
            parts.append(f"--budget-usd {self.usd:g}")
        if self.seconds is not None and self.spent_seconds >= self.seconds:
            parts.append(f"--budget-seconds {self.seconds:g}")
        return " and ".join(parts) or "budget"

    def not_reached(self, case: dict[str, Any]) -> Outcome:
        """The outcome of a case the budget left out."""
        with self._lock:
            self.unreached += 1
        return Outcome(case, None, f"not run: the run's {self.what()} was spent", 0.0)

    def section(self) -> dict[str, Any]:
        """The summary's ``budget`` section."""
        return {
            "usd": self.usd,
            "seconds": self.seconds,
            "spent_usd": round(self.spent_usd, 9),
            "spent_seconds": round(self.spent_seconds, 4),
            "stopped": bool(self.unreached),
            "unreached": self.unreached,
        }


def note_budget(summary: dict[str, Any], budget: RunBudget) -> dict[str, Any]:
    """The summary with its ``budget`` section; stopped at its budget, it is failed with verdict BUDGET."""
    if not budget.active:
        return summary
    noted = dict(summary, budget=budget.section())
    if budget.unreached:
        noted.update(passed=False, verdict=BUDGET)
    return noted


def budget_line(summary: dict[str, Any], run_id: str) -> str | None:
    """The last line of a run stopped at its budget (None for any other run)."""
    section = summary.get("budget") or {}
    if not section.get("stopped"):
        return None
    spent = [f"${section['spent_usd']:g} of ${section['usd']:g}" if section.get("usd") is not None else ""]
    if section.get("seconds") is not None:
        spent.append(f"{section['spent_seconds']:g}s of {section['seconds']:g}s engine time")
    return (
        f"BUDGET: the run stopped at its budget ({', '.join(s for s in spent if s)} spent): "
        f"{section['unreached']} case(s) not reached; run them with --resume {run_id}"
    )
