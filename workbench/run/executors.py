"""Where a run's cases run: an ``Executor`` takes the work items of one (suite, target) and
yields each item's outcome as it finishes, in whatever order they finish.

The runner journals every outcome as it arrives and puts them back in corpus order, so an
executor decides only where and how concurrently cases run, never what a run records:
``local`` runs them on this machine (``--jobs`` forked workers for the built-in targets, threads
for the others: ``workbench.run.local``), ``ray[:ADDRESS]`` on a Ray cluster
(``workbench.run.ray_executor``, imported only when asked for).
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from ..options import parse_executor
from ..suites import Outcome, RunContext, Suite
from .local import LocalExecutor
from .work import WorkItem

__all__ = ["Executor", "LocalExecutor", "WorkItem", "make_executor", "parse_executor"]

if TYPE_CHECKING:
    from ..options import RunOptions


class Executor(Protocol):
    """Runs work items and streams their outcomes back as they finish."""

    def run(
        self, suite: Suite, target: Any, items: Iterable[WorkItem], ctx: RunContext
    ) -> Generator[tuple[WorkItem, Outcome], None, None]:
        """Each item with its outcome, as they finish. Closing the iterator early (``--strict``,
        Ctrl-C) lets the cases in flight end and starts no more. ``items`` may be a generator
        that ends early (a spent ``--budget-usd``); an executor with ``starts_lazily`` set takes
        each item only when it is about to start it."""
        ...

    def describe(self) -> dict[str, Any]:
        """What the manifest records about where the run ran (kind, nodes, retries)."""
        ...

    def stop_workers(self) -> None:
        """End the workers now, engines and requests in flight with them (the run's deadline):
        what they were running comes back as errors. Called from another thread."""
        ...

    def close(self) -> None:
        """Release workers (and a Ray instance this executor started)."""
        ...


def make_executor(options: RunOptions, specs: dict[str, str], stop_at: float | None = None) -> Executor:
    """The executor ``options.executor`` names; ``specs`` maps each target's name to its spec,
    so remote workers can build their own copy of the engine (and the local executor knows which
    targets run in this process: those it may fork); ``stop_at`` is the run's deadline (monotonic)."""
    kind, address = parse_executor(options.executor)
    if kind == "local":
        from ..targets import NAMED

        return LocalExecutor(options.jobs, {name for name, spec in specs.items() if spec.strip() in NAMED}, stop_at)
    from .ray_executor import RayExecutor

    return RayExecutor(address, specs, options)
