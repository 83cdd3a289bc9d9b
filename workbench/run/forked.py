"""``--jobs N`` for a target that runs in this process: its cases in N forked worker processes.

Threads cannot run two Python cases at once (the GIL), so for the targets built into workbench
(``builtin`` and the controls, see ``LocalExecutor``) ``--jobs N`` forks N workers, each a copy
of this process holding the target, the suite and the run's context, taking one case at a time
over a pipe and sending its outcome back; this process journals and yields each one exactly as
it would a case it ran itself, so a run's results do not depend on where its cases ran.

The items come ordered by fixture and revision (``work.by_fixture``), and consecutive revisions
share almost every file, so each worker is dealt one *contiguous* range of them: it parses only
its own revisions' new blobs. A worker whose range is done takes the back half of the largest
range left (work stealing), so no worker idles while another has a queue. Items given as a lazy
feed (a ``--budget-usd`` or ``--budget-seconds`` run) are taken one at a time, in order, only as a
worker is free to start them, so a spent budget starts no more.

A worker that dies fails the case it was running (``its worker process died``) and is replaced;
what it had not started runs on. ``stop`` (the run's deadline, passed by the runner or reached
while waiting here) ends the workers: their cases in flight come back as errors and nothing is
started again. Closing the stream early (``--strict``, Ctrl-C) ends the workers too: what they
were running would not be recorded. A worker forks no helpers of its own (``forking.mark_worker``).
"""

from __future__ import annotations

import gc
import multiprocessing
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from typing import Any

from ..code import forking
from ..corpus.snapshots import close_readers
from ..suites import Outcome, RunContext, Suite
from .work import WorkItem, run_one

# What a worker sends back for one case: observation, error, seconds, meta.
Answer = tuple[Any, str | None, float, dict[str, Any]]

IN_FLIGHT = 2  # items sent to a worker ahead of its answers (one running, one waiting): no pipe round trip idles it
JOIN_SECONDS = 5.0  # how long an ended worker is waited for before it is killed


def _serve(conn: Connection, inherited: list[Connection], suite: Suite, target: Any, ctx: RunContext) -> None:
    """A worker's body: run each item received with ``run_one`` and send its answer, until told to stop.
    The parent's ends of the pipes are closed here first, so a parent that dies reads as EOF."""
    for end in inherited:
        end.close()
    forking.mark_worker()
    gc.freeze()  # the parent's objects stay out of this worker's collections: their pages stay shared
    try:
        while True:
            try:
                item = conn.recv()
            except EOFError:  # the parent is gone or done
                return
            if item is None:
                return
            outcome = run_one(suite, target, item.case, ctx, item.repeat)
            answer: Answer = (outcome.observation, outcome.error, outcome.seconds, outcome.meta)
            try:
                conn.send(answer)  # pickled whole before a byte is written: a failure sends nothing
            except Exception as exc:  # noqa: BLE001 - an answer that does not pickle fails its case only
                why = f"its outcome could not be sent back from its worker process ({type(exc).__name__}: {exc})"
                conn.send((None, why, outcome.seconds, {"repeat": item.repeat}))
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group: the parent decides what happens
        return
    finally:
        close_readers()  # a worker ends without exit handlers: its git readers are waited for here


def _how(exitcode: int | None) -> str:
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        import signal

        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


def ranges(count: int, parts: int) -> list[range]:
    """``range(count)`` cut into ``parts`` contiguous ranges whose lengths differ by at most one."""
    size, extra = divmod(count, parts)
    bounds = [n * size + min(n, extra) for n in range(parts + 1)]
    return [range(bounds[n], bounds[n + 1]) for n in range(parts)]


class _Worker:
    """One worker process: its pipe, the items of its range not yet sent, and those sent, unanswered."""

    def __init__(self, process: Any, conn: Connection, queue: deque[WorkItem]) -> None:
        self.process, self.conn, self.queue = process, conn, queue
        self.flight: deque[WorkItem] = deque()
        self.alive = True


class ForkedCases:
    """One (suite, target)'s items run by ``jobs`` forked workers, outcomes yielded as they arrive."""

    def __init__(
        self, suite: Suite, target: Any, ctx: RunContext, jobs: int, stop_at: Callable[[], float | None]
    ) -> None:
        self.suite, self.target, self.ctx, self.jobs = suite, target, ctx, jobs
        self.stop_at = stop_at  # the monotonic time the run's deadline passes (None: no deadline)
        self.workers: list[_Worker] = []
        self.feed: Iterator[WorkItem] | None = None
        self.stopped = False
        self.lost = 0  # cases whose worker died under them

    def _start(self, queue: deque[WorkItem]) -> _Worker:
        context = multiprocessing.get_context("fork")
        ours, theirs = context.Pipe()
        inherited = [ours, *(w.conn for w in self.workers if w.alive)]
        process = context.Process(
            target=_serve, args=(theirs, inherited, self.suite, self.target, self.ctx), daemon=True
        )
        process.start()
        theirs.close()  # only the worker holds its end: its death reads as EOF here
        return _Worker(process, ours, queue)

    def start(self, items: Iterable[WorkItem]) -> None:
        """Fork the workers, each with its range of ``items`` (a list) or none (a feed). A fork that
        fails (``OSError``: no memory, no processes left) ends those started and is raised: the
        caller runs the items another way."""
        if isinstance(items, list):
            queues = [deque(items[r.start : r.stop]) for r in ranges(len(items), self.jobs)]
        else:
            self.feed = iter(items)
            queues = [deque() for _ in range(self.jobs)]
        try:
            for queue in queues:
                self.workers.append(self._start(queue))
        except OSError:
            self._end()
            raise

    def run(self) -> Generator[tuple[WorkItem, Outcome], None, None]:
        """Each item with its outcome, as the workers answer (``start`` first)."""
        depth = IN_FLIGHT if self.feed is None else 1  # a feed's item is taken only as it starts
        try:
            for worker in self.workers:
                self._send(worker, depth)
            while True:
                busy = {w.conn: w for w in self.workers if w.alive and w.flight}
                if not busy:
                    break
                for conn in wait(list(busy), timeout=self._until_deadline()) or self._deadline_passed():
                    worker = busy[conn]  # type: ignore[index]
                    try:
                        observation, error, seconds, meta = worker.conn.recv()
                    except (EOFError, OSError):
                        yield from self._lost(worker, depth)
                        continue
                    item = worker.flight.popleft()
                    yield item, Outcome(item.case, observation, error, float(seconds), meta)
                    self._send(worker, depth)  # after the yield: an outcome that spent the budget starts nothing
            yield from self._leftovers()
        finally:
            self._end()

    def _until_deadline(self) -> float | None:
        stop_at = self.stop_at()
        return None if stop_at is None or self.stopped else max(0.0, stop_at - time.monotonic())

    def _deadline_passed(self) -> list[Connection]:
        """Nothing answered by the deadline: end the workers (their EOFs answer next)."""
        stop_at = self.stop_at()
        if stop_at is not None and time.monotonic() >= stop_at:
            self.stop()
        return []

    def _next(self, worker: _Worker) -> WorkItem | None:
        """The next item for ``worker``: the feed's next, else its range's next, else the back half of
        the largest range left."""
        if self.feed is not None:
            return next(self.feed, None)
        if not worker.queue:
            victim = max(self.workers, key=lambda w: len(w.queue))
            take = (len(victim.queue) + 1) // 2
            stolen = [victim.queue.pop() for _ in range(take)]
            worker.queue.extend(reversed(stolen))
        return worker.queue.popleft() if worker.queue else None

    def _send(self, worker: _Worker, depth: int) -> None:
        while worker.alive and not self.stopped and len(worker.flight) < depth:
            item = self._next(worker)
            if item is None:
                return
            worker.flight.append(item)
            try:
                worker.conn.send(item)
            except OSError:  # it died before taking this item, which goes back for another to run
                worker.flight.pop()
                if self.feed is not None:
                    self.feed = _chain(deque([item]), self.feed)
                else:
                    worker.queue.appendleft(item)
                worker.alive = bool(worker.flight)  # a case it was running is found (and fails) by its EOF
                return

    def _lost(self, worker: _Worker, depth: int) -> Generator[tuple[WorkItem, Outcome], None, None]:
        """``worker`` died: the case it was running fails, what it had not started waits in its queue,
        and a fresh worker takes over (unless the run is stopping, or forking is no longer safe)."""
        worker.alive = False
        worker.conn.close()
        worker.process.join(JOIN_SECONDS)
        how = "ended at the run's deadline" if self.stopped else _how(worker.process.exitcode)
        running = worker.flight.popleft() if worker.flight else None
        worker.queue.extendleft(reversed(worker.flight))
        worker.flight.clear()
        if self.feed is not None and worker.queue:  # a feed's items were taken to start: start them here
            self.feed = _chain(worker.queue, self.feed)
            worker.queue = deque()
        if running is not None:
            self.lost += 1
            error = f"its worker process died ({how})"
            yield running, Outcome(running.case, None, error, 0.0, {"repeat": running.repeat})
        if not self.stopped and forking.fork_is_safe():
            try:
                self.workers[self.workers.index(worker)] = self._start(worker.queue)
            except OSError:  # no fork now: the others take its range, or this process does at the end
                pass
        for other in self.workers:  # the fresh worker, or an idle one that may now take what is left
            self._send(other, depth)

    def _leftovers(self) -> Generator[tuple[WorkItem, Outcome], None, None]:
        """Items no worker is left to run (each died and could not be replaced): run here, in order."""
        while not self.stopped:
            item = self._next(self.workers[0]) if self.workers else None
            if item is None:
                return
            yield item, run_one(self.suite, self.target, item.case, self.ctx, item.repeat)

    def stop(self) -> None:
        """End every worker now (the run's deadline): their cases in flight come back as errors. Safe
        to call from another thread."""
        self.stopped = True
        for worker in list(self.workers):
            if worker.process.is_alive():
                worker.process.kill()

    def _end(self) -> None:
        """Tell idle workers to go, end busy ones (an early close: their outcomes would not be recorded)."""
        for worker in self.workers:
            if worker.alive and worker.flight:
                worker.process.terminate()
            elif worker.alive:
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
            worker.conn.close()
        for worker in self.workers:
            worker.process.join(JOIN_SECONDS)
            if worker.process.exitcode is None:
                worker.process.kill()
                worker.process.join()


def _chain(first: deque[WorkItem], rest: Iterator[WorkItem]) -> Iterator[WorkItem]:
    yield from list(first)
    yield from rest
