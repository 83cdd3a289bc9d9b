"""``--executor ray[:ADDRESS]``: a run's cases as Ray actor tasks, streamed back to the runner.

One actor per target per node builds its own copy of the engine once (from the target's spec),
so the engine's indexes stay warm across every case sent to that node; cases go in chunks (at
most ``MAX_CHUNK``) so a fast engine is not dominated by per-call overhead, and ``--jobs`` sets
how many chunks one actor runs at a time. Outcomes come back as they finish and the runner journals
each exactly as a local run does, so ``--resume``, ``merge`` and the reports do not know where
a case ran. A case whose worker is lost (the actor's process or node died) is sent again, to a
fresh actor, at most ``MAX_RETRIES`` times; the retries are recorded in its case row
(``retries``) and the manifest (``executor.retries``), and a case lost more often errors.

Without an address (and without ``RAY_ADDRESS``) a local Ray instance is started for the run
and stopped after it. Workers on a cluster need workbench installed and the corpus and its
fixtures at the same paths as the driver (a shared filesystem or the same checkout).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ..errors import SuiteError
from ..suites import Outcome, RunContext, Suite, get_suite
from .local import LocalExecutor
from .work import WorkItem, run_one

if TYPE_CHECKING:
    from .options import RunOptions

MAX_RETRIES = 2
IN_FLIGHT_PER_SLOT = 4  # chunks queued per actor thread: enough to keep it busy, few to cancel
MAX_CHUNK = 32  # cases per actor call: one call's overhead is spread over many fast cases


class CaseWorker:
    """The body of one Ray actor: one target, built once, answering cases of any suite."""

    def __init__(self, spec: str, seed: int, timeout: float, corpus: Any) -> None:
        from ..targets import resolve_target

        self.target = resolve_target(spec, seed, timeout)
        self.ctx = RunContext(corpus=corpus, timeout=timeout, seed=seed)
        self.suites: dict[str, Suite] = {}

    def run(self, suite_name: str, case: dict[str, Any], repeat: int) -> tuple[Any, str | None, float]:
        """One case's (observation, error, seconds), as the local executor would record it."""
        suite = self.suites.get(suite_name) or self.suites.setdefault(suite_name, get_suite(suite_name))
        outcome = run_one(suite, self.target, case, self.ctx, repeat)
        return outcome.observation, outcome.error, outcome.seconds

    def run_many(self, suite_name: str, cases: list[tuple[dict[str, Any], int]]) -> list[tuple[Any, str | None, float]]:
        """The answers of a chunk of (case, repeat)s, in order."""
        return [self.run(suite_name, case, repeat) for case, repeat in cases]

    def close(self) -> None:
        from ..targets import close_target

        close_target(self.target)


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise SuiteError("--executor ray needs Ray: pip install 'workbench[ray]'") from None
    return ray


def start_local_ray(ray: Any, num_cpus: int = 2) -> None:
    """Start a Ray instance on this machine whose workers import what this process imports
    (they are started by its raylet, which takes ``PYTHONPATH`` from this process)."""
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
    try:
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


class RayExecutor:
    """Runs work items on Ray actors (one per target per node) and yields outcomes as they finish."""

    def __init__(self, address: str | None, specs: dict[str, str], options: RunOptions) -> None:
        self.ray = _import_ray()
        self.specs, self.options = specs, options
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self.started = False
        self.actors: dict[str, list[Any]] = {}
        self.nodes: list[str | None] = []
        self.retries = self.lost = 0
        self.startup_seconds = 0.0  # connecting (or starting Ray): what a run on a running cluster does not pay
        self._corpus_ref: Any = None
        self._remote: Any = None

    def _connect(self, corpus: Any) -> None:
        ray, started = self.ray, time.perf_counter()
        if not ray.is_initialized():
            if self.address:
                ray.init(address=self.address, log_to_driver=False)
            else:
                start_local_ray(ray)
                self.started = True
        if self._remote is None:
            self._remote = ray.remote(CaseWorker)
            self._corpus_ref = ray.put(corpus)
            self.nodes = [n["NodeID"] for n in ray.nodes() if n.get("Alive")] or [None]
        self.startup_seconds += time.perf_counter() - started

    def _actor(self, target: str, node: str | None) -> Any:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        strategy = NodeAffinitySchedulingStrategy(node, soft=True) if node else "DEFAULT"
        return self._remote.options(
            num_cpus=0, max_concurrency=max(1, self.options.jobs), scheduling_strategy=strategy
        ).remote(self.specs[target], self.options.seed, self.options.timeout, self._corpus_ref)

    def _slots(self, target: str) -> list[Any]:
        if target not in self.actors:
            self.actors[target] = [self._actor(target, node) for node in self.nodes]
        return self.actors[target]

    def run(
        self, suite: Suite, target: Any, items: list[WorkItem], ctx: RunContext
    ) -> Generator[tuple[WorkItem, Outcome], None, None]:
        name = str(getattr(target, "name", ""))
        if name not in self.specs:  # recorded data (findings), not an engine: nothing to distribute
            yield from LocalExecutor(self.options.jobs).run(suite, target, items, ctx)
            return
        self._connect(ctx.corpus)
        ray = self.ray
        slots = self._slots(name)
        generation = [0] * len(slots)
        pending: dict[Any, tuple[list[WorkItem], int, int, int]] = {}  # ref -> chunk, attempt, slot, generation
        size = max(1, min(MAX_CHUNK, len(items) // (IN_FLIGHT_PER_SLOT * len(slots) * max(1, self.options.jobs))))
        queue = iter([items[i : i + size] for i in range(0, len(items), size)])
        turn = 0

        def submit(chunk: list[WorkItem], attempt: int, slot: int) -> None:
            ref = slots[slot].run_many.remote(suite.name, [(item.case, item.repeat) for item in chunk])
            pending[ref] = (chunk, attempt, slot, generation[slot])

        try:
            for chunk in queue:
                submit(chunk, 0, turn % len(slots))
                turn += 1
                if len(pending) >= IN_FLIGHT_PER_SLOT * max(1, self.options.jobs) * len(slots):
                    break
            while pending:
                [ready], _ = ray.wait(list(pending), num_returns=1)
                chunk, attempt, slot, gen = pending.pop(ready)
                try:
                    answers = ray.get(ready)
                except (
                    ray.exceptions.RayActorError,
                    ray.exceptions.WorkerCrashedError,
                    ray.exceptions.ObjectLostError,
                ) as exc:
                    if gen == generation[slot]:  # the first loss seen from this actor: replace it
                        generation[slot] += 1
                        slots[slot] = self._actor(name, self.nodes[slot % len(self.nodes)])
                    if attempt < MAX_RETRIES:  # one case at a time now, so one bad case loses only itself
                        self.retries += len(chunk)
                        for item in chunk:
                            submit([item], attempt + 1, slot)
                        continue
                    self.lost += len(chunk)
                    answers = [(None, f"worker lost {attempt + 1} times ({type(exc).__name__})", 0.0)] * len(chunk)
                following = next(queue, None)
                if following is not None:
                    submit(following, 0, turn % len(slots))
                    turn += 1
                for item, (observation, error, seconds) in zip(chunk, answers, strict=True):
                    meta: dict[str, Any] = {"repeat": item.repeat}
                    if attempt:
                        meta["retries"] = attempt
                    yield item, Outcome(item.case, observation, error, float(seconds), meta)
        finally:  # an early close (--strict, Ctrl-C): drop what has not started
            for ref in pending:
                try:
                    ray.cancel(ref)
                except Exception:  # noqa: BLE001 - already finished or its actor is gone
                    pass

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "ray",
            "address": self.address or "local",
            "nodes": len(self.nodes),
            "actors": {name: len(slots) for name, slots in self.actors.items()},
            "jobs": self.options.jobs,
            "retries": self.retries,
            "lost_cases": self.lost,
            "max_retries": MAX_RETRIES,
            "startup_seconds": round(self.startup_seconds, 2),
        }

    def close(self) -> None:
        """Stop this run's actors, and the Ray instance when this executor started it."""
        ray = self.ray
        if ray.is_initialized():
            for slots in self.actors.values():
                for actor in slots:
                    try:
                        ray.get(actor.close.remote(), timeout=10)
                    except Exception:  # noqa: BLE001 - a dead actor has nothing to close
                        pass
                    ray.kill(actor)
        self.actors.clear()
        if self.started:
            ray.shutdown()
            self.started = False
