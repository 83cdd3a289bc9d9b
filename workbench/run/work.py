"""The unit an executor runs: one case, once (a ``WorkItem``), and how running it is recorded."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..contract import metered
from ..corpus import case_fixtures
from ..errors import WorkbenchError
from ..suites import Outcome, RunContext, Suite


@dataclass(frozen=True)
class WorkItem:
    """One case to run once: its position in the batch, its case, its repeat index, and the digest
    of the case's definition (``resume.case_hash``, taken once per case) when the runner has it."""

    index: int
    case: dict[str, Any]
    repeat: int = 0
    digest: str | None = None


def run_one(suite: Suite, target: Any, case: dict[str, Any], ctx: RunContext, repeat: int = 0) -> Outcome:
    """Run one case with its error captured: an engine failing a case is data, not a crash. The
    usage its answers reported (``contract.metered``) goes in its meta, as case-row columns; an
    errored case keeps the tail of the engine's stderr (``meta["stderr"]``) when the target has one."""
    started = time.perf_counter()
    meta: dict[str, Any] = {"repeat": repeat}
    with metered() as usage:
        try:
            observation, error = suite.run_case(target, case, ctx), None
        except Exception as exc:
            observation, error = None, str(exc) or type(exc).__name__
            if not isinstance(exc, WorkbenchError):
                error = f"{type(exc).__name__}: {error}"
            tail = getattr(target, "stderr_tail", None)
            said = tail() if callable(tail) else ""
            if said:  # the engine's own words about the failure (bounded by the target)
                meta["stderr"] = said
    seconds = time.perf_counter() - started
    reported = usage()
    problem = reported.problem() if reported is not None else None
    if problem is not None:  # absurd usage fails the case and is dropped: no sum may overflow
        observation, error = None, f"{error}; {problem}" if error else problem
    elif reported is not None:
        meta.update(reported.columns())
    return Outcome(case, observation, error, seconds, meta)


# Above this many distinct fixtures (or revisions) in one batch, cases are dispatched fixture by
# fixture: an engine that keeps a bounded number of indexes loaded (the reference engine keeps 8)
# then loads each once, instead of once per case when the corpus interleaves them.
GROUP_ABOVE = 8


def fixture_key(case: dict[str, Any]) -> tuple[tuple[str, ...], str]:
    """What a case reads: its fixtures and its revision."""
    return tuple(case_fixtures(case)), str(case.get("revision") or "")


def by_fixture(items: list[WorkItem]) -> list[WorkItem]:
    """``items`` grouped by fixture (groups in order of first appearance, items in order within
    one) when they span more than ``GROUP_ABOVE`` fixtures; else as given. Only the order cases
    are asked in changes: outcomes are put back in corpus order."""
    keys = [fixture_key(item.case) for item in items]
    first = {key: n for n, key in reversed(list(enumerate(keys)))}
    if len(first) <= GROUP_ABOVE:
        return items
    return [item for _, _, item in sorted(zip((first[k] for k in keys), range(len(items)), items, strict=True))]
