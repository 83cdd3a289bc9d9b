"""The local executor: a run's cases in this process, one at a time or in ``--jobs`` threads."""

from __future__ import annotations

from collections.abc import Generator, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from ..suites import Outcome, RunContext, Suite
from .work import WorkItem, run_one


class LocalExecutor:
    """Today's loop: cases in this process, one at a time or in ``jobs`` threads."""

    starts_lazily = True  # takes each item as it starts it: a spent budget stops it by itself

    def __init__(self, jobs: int = 1) -> None:
        self.jobs = jobs

    def run(
        self, suite: Suite, target: Any, items: Iterable[WorkItem], ctx: RunContext
    ) -> Generator[tuple[WorkItem, Outcome], None, None]:
        if self.jobs <= 1:
            for item in items:
                yield item, run_one(suite, target, item.case, ctx, item.repeat)
            return
        pool = ThreadPoolExecutor(max_workers=self.jobs)
        pending: dict[Future[Outcome], WorkItem] = {}
        queue = iter(items)
        # A list is queued two per thread, to keep them busy; a feed that may end (a spent budget)
        # one per free thread, so no case waits queued past the moment it ends.
        depth = 2 * self.jobs if isinstance(items, list) else self.jobs
        try:
            for item in queue:  # keep a bounded number queued: closing early starts no more
                pending[pool.submit(run_one, suite, target, item.case, ctx, item.repeat)] = item
                if len(pending) >= depth:
                    break
            failure: BaseException | None = None  # a Ctrl-C raised in a worker: finish the rest, then raise
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    item = pending.pop(future)
                    try:
                        outcome = future.result()
                    except BaseException as exc:
                        failure = failure or exc
                        continue
                    yield item, outcome  # first, so the next item is taken once this outcome is counted
                    following = next(queue, None) if failure is None else None
                    if following is not None:
                        pending[pool.submit(run_one, suite, target, following.case, ctx, following.repeat)] = following
            if failure is not None:
                raise failure
        finally:  # an early close (Ctrl-C, --strict): let the cases in flight finish, start no more
            pool.shutdown(wait=True, cancel_futures=True)

    def describe(self) -> dict[str, Any]:
        return {"kind": "local", "jobs": self.jobs}

    def stop_workers(self) -> None:
        """Nothing to stop: the cases run in this process's threads (see ``RunDeadline``)."""

    def close(self) -> None:
        """Nothing to release: threads end with each batch."""
