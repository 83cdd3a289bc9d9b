"""The local executor: a run's cases on this machine, one at a time or ``--jobs`` at once.

With ``--jobs N`` the cases of a target that runs in this process (``builtin`` and the controls:
Python, so threads would take turns on the GIL) go to N forked worker processes (``forked``);
a target that talks to an engine process (``cmd:``, ``http://``, a ``python:`` or entry-point
target, whose objects may hold connections a fork must not share) runs in N threads. Where
forking is not safe (another thread runs here, or the platform has no ``fork``) threads run
every target: the results are the same either way, only slower.
"""

from __future__ import annotations

from collections.abc import Collection, Generator, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from ..code.forking import fork_is_safe
from ..suites import Outcome, RunContext, Suite
from .forked import ForkedCases
from .work import WorkItem, run_one


class LocalExecutor:
    """Cases on this machine: one at a time, or ``jobs`` at once in forked workers (the targets
    named in ``forkable``) or threads (any other)."""

    starts_lazily = True  # takes each item as it starts it: a spent budget stops it by itself

    def __init__(self, jobs: int = 1, forkable: Collection[str] = (), stop_at: float | None = None) -> None:
        self.jobs = jobs
        self.forkable = frozenset(forkable)
        self.stop_at = stop_at  # the run's deadline (monotonic): forked workers are ended at it
        self.forked: set[str] = set()  # the targets whose cases ran in worker processes
        self._workers: ForkedCases | None = None

    def _forks(self, target: Any, items: Iterable[WorkItem]) -> bool:
        many = not isinstance(items, list) or len(items) >= 2
        return self.jobs >= 2 and many and str(getattr(target, "name", "")) in self.forkable and fork_is_safe()

    def run(
        self, suite: Suite, target: Any, items: Iterable[WorkItem], ctx: RunContext
    ) -> Generator[tuple[WorkItem, Outcome], None, None]:
        workers = self._started(suite, target, items, ctx) if self._forks(target, items) else None
        if workers is not None:
            self.forked.add(str(target.name))
            self._workers = workers
            try:
                yield from workers.run()
            finally:
                self._workers = None
        elif self.jobs <= 1:
            for item in items:
                yield item, run_one(suite, target, item.case, ctx, item.repeat)
        else:
            yield from self._threads(suite, target, items, ctx)

    def _started(self, suite: Suite, target: Any, items: Iterable[WorkItem], ctx: RunContext) -> ForkedCases | None:
        """Forked workers holding ``items``, or None when forking failed (nothing was taken from them)."""
        workers = ForkedCases(suite, target, ctx, self.jobs, lambda: self.stop_at)
        try:
            workers.start(items)
        except OSError:
            return None
        return workers

    def _threads(
        self, suite: Suite, target: Any, items: Iterable[WorkItem], ctx: RunContext
    ) -> Generator[tuple[WorkItem, Outcome], None, None]:
        """``items`` run in ``jobs`` threads, each outcome yielded as it finishes."""
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
        return {"kind": "local", "jobs": self.jobs, **({"processes": sorted(self.forked)} if self.forked else {})}

    def stop_workers(self) -> None:
        """End the forked workers now (their cases in flight come back as errors); threads are left
        to finish (see ``RunDeadline``)."""
        workers = self._workers
        if workers is not None:
            workers.stop()

    def close(self) -> None:
        """Nothing to release: threads end with each batch."""
