"""The engines of one run and what drives them, held for the run's ``with`` block: the target
objects, the executor, the result cache (``--cache``) and the deadline's watchdog (``--deadline``,
a thread started only when there are engine processes or remote workers to end)."""

from __future__ import annotations

import threading
from typing import Any

from ..options import RunOptions
from ..targets import close_target
from ..targets.protocol import ProtocolTarget
from .cache import ResultCache
from .deadline import RunDeadline
from .executors import Executor, LocalExecutor, make_executor


class Engines:
    """The engines of one run and what drives them: the targets, the executor, the result cache
    and the deadline's watchdog; leaving the ``with`` block releases them all."""

    def __init__(self, options: RunOptions, targets: list[Any], deadline: RunDeadline) -> None:
        self.targets, self.deadline = targets, deadline
        self.executor: Executor | None = None
        self.cache = ResultCache() if options.cache else None
        self.watchdog: threading.Timer | None = None
        self.specs = dict(zip((t.name for t in targets), options.targets, strict=True))
        self.options = options

    def __enter__(self) -> Engines:
        try:
            self.executor = make_executor(self.options, self.specs, self.deadline.stop_at)
        except BaseException:
            self.__exit__()
            raise
        if _needs_watchdog(self.targets, self.executor):
            self.watchdog = self.deadline.watch(lambda: _close_engines(self.targets, self.executor))
        return self

    def __exit__(self, *exc: object) -> None:
        if self.watchdog is not None:
            self.watchdog.cancel()
        if self.executor is not None:
            self.executor.close()
        if self.cache is not None:
            self.cache.close()
        for target in self.targets:
            close_target(target)


def _needs_watchdog(targets: list[Any], executor: Executor) -> bool:
    """Whether the deadline needs a thread of its own: to end engine processes (``cmd:``) or remote
    workers mid-request. The local executor ends its forked workers itself, and no thread then
    stands in the way of forking them (``forking.fork_is_safe``)."""
    return not isinstance(executor, LocalExecutor) or any(isinstance(t, ProtocolTarget) for t in targets)


def _close_engines(targets: list[Any], executor: Executor | None) -> None:
    """At the run's deadline: end the protocol engines' processes (``cmd:``; closing an ``http://``
    target holds nothing) and the executor's workers (Ray actors), so a request in flight returns
    now. In-process targets in this process are left alone."""
    if executor is not None:
        executor.stop_workers()
    for target in targets:
        if isinstance(target, ProtocolTarget):
            target.close()
