"""``--executor ray[:ADDRESS]``: a run's cases as Ray actor tasks, streamed back to the runner.

One actor per target per node builds its own copy of the engine once (from the target's spec),
so the engine's indexes stay warm across every case sent to that node; cases go in chunks (at
most ``MAX_CHUNK``) so a fast engine is not dominated by per-call overhead, and ``--jobs`` sets
how many chunks one actor runs at a time. Outcomes come back as they finish and the runner journals
each exactly as a local run does, so ``--resume``, ``merge`` and the reports do not know where
a case ran. A case whose worker is lost (the actor's process or node died) is sent again, to a
fresh actor, at most ``MAX_RETRIES`` times; the retries are recorded in its case row
(``retries``) and the manifest (``executor.retries``), and a case lost more often errors.

Starting Ray takes seconds (5-12 s on a 2-core machine), so it happens in the background: until
all of a target's actors answer, this process runs that target's cases itself, one at a time,
while each actor gets chunks as soon as it is up (``warm_start``; the manifest counts the cases
run here as ``driver_cases``). Work only ever goes to an actor that is up, so a run that ends
before Ray is up never waits for it to do work (only, at its end, for an instance it
started to come up, so that it can stop it). Without an address (and without
``RAY_ADDRESS``) a local Ray instance is started for the run and stopped after it. Workers on a
cluster need workbench installed and the corpus and its fixtures at the same paths as the driver
(a shared filesystem or the same checkout).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from collections import deque
from collections.abc import Generator, Iterable
from typing import TYPE_CHECKING, Any

from ..contract import USAGE_COLUMNS
from ..errors import RunError
from ..suites import Outcome, RunContext, Suite, get_suite
from .local import LocalExecutor
from .ray_connection import RayConnection
from .work import WorkItem, run_one

if TYPE_CHECKING:
    from ..options import RunOptions

# What an actor sends back for one case: observation, error, seconds, usage columns.
Answer = tuple[Any, str | None, float, dict[str, Any]]

MAX_RETRIES = 2
IN_FLIGHT_PER_SLOT = 4  # chunks queued per actor thread: enough to keep it busy, few to cancel
MAX_CHUNK = 32  # cases per actor call: one call's overhead is spread over many fast cases
READY_POLL = 0.05  # seconds between looks at whether the actors are up, while the driver runs cases


class CaseWorker:
    """The body of one Ray actor: one target, built once, answering cases of any suite."""

    def __init__(self, spec: str, seed: int, timeout: float, corpus: Any, jobs: int = 1) -> None:
        from ..targets import resolve_target

        self.target = resolve_target(spec, seed, timeout, jobs)
        self.ctx = RunContext(corpus=corpus, timeout=timeout, seed=seed)
        self.suites: dict[str, Suite] = {}

    def ready(self) -> str:
        """Answered once the engine is built (the actor can take cases): the id of its node, so the
        manifest can say over how many nodes a target's actors landed."""
        import ray

        return str(ray.get_runtime_context().get_node_id())

    def run(self, suite_name: str, case: dict[str, Any], repeat: int) -> Answer:
        """One case's (observation, error, seconds, usage columns), as the local executor records it."""
        suite = self.suites.get(suite_name) or self.suites.setdefault(suite_name, get_suite(suite_name))
        outcome = run_one(suite, self.target, case, self.ctx, repeat)
        usage = {key: outcome.meta[key] for key in USAGE_COLUMNS if key in outcome.meta}
        return outcome.observation, outcome.error, outcome.seconds, usage

    def run_many(self, suite_name: str, cases: list[tuple[dict[str, Any], int]]) -> list[Answer]:
        """The answers of a chunk of (case, repeat)s, in order."""
        return [self.run(suite_name, case, repeat) for case, repeat in cases]

    def close(self) -> None:
        from ..targets import close_target

        close_target(self.target)


def _check_ray_installed() -> None:
    if importlib.util.find_spec("ray") is None:
        raise RunError("--executor ray needs Ray: pip install 'workbench[ray]'")


def _outcomes(
    chunk: list[WorkItem], answers: list[Answer], attempt: int
) -> Generator[tuple[WorkItem, Outcome], None, None]:
    """Each item of a chunk with the outcome its answer stands for (retries and usage recorded)."""
    for item, (observation, error, seconds, usage) in zip(chunk, answers, strict=True):
        meta: dict[str, Any] = {"repeat": item.repeat, **usage}
        if attempt:
            meta["retries"] = attempt
        yield item, Outcome(item.case, observation, error, float(seconds), meta)


class RayExecutor:
    """Runs work items on Ray actors (one per target per node) and yields outcomes as they finish."""

    def __init__(self, address: str | None, specs: dict[str, str], options: RunOptions) -> None:
        _check_ray_installed()
        self.specs, self.options = specs, options
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self.connection: RayConnection | None = None
        self.actors: dict[str, list[Any]] = {}
        self.retries = self.lost = self.driver_cases = 0
        self._pings: dict[str, list[Any]] = {}  # per target: its actors' ``ready`` calls
        self._ready: set[str] = set()  # targets whose actors are all up
        self._seen: dict[str, set[int]] = {}  # per target: the slots seen up so far
        self._looked = 0.0
        self._stopped = False  # stop_workers() was called: lost chunks are not sent again

    @property
    def _conn(self) -> RayConnection:
        if self.connection is None:  # run() connects before anything asks for Ray
            raise RunError("--executor ray: not connected yet")
        return self.connection

    def _ray(self) -> Any:
        return self._conn.wait(self.options.executor)

    def _actor(self, target: str, node: str | None) -> Any:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        strategy = NodeAffinitySchedulingStrategy(node, soft=True) if node else "DEFAULT"
        jobs = max(1, self.options.jobs)
        return self._conn.remote.options(num_cpus=0, max_concurrency=jobs, scheduling_strategy=strategy).remote(
            self.specs[target], self.options.seed, self.options.timeout, self._conn.corpus_ref, jobs
        )

    def _slots(self, target: str) -> list[Any]:
        if target not in self.actors:
            self.actors[target] = [self._actor(target, node) for node in self._conn.nodes]
            self._pings[target] = [actor.ready.remote() for actor in self.actors[target]]
        return self.actors[target]

    def _ready_slots(self, target: str) -> set[int]:
        """Which of ``target``'s actors have built their engines (looked at every ``READY_POLL`` s;
        none before Ray is up, every one once all are)."""
        slots = self.actors.get(target, [])
        if target in self._ready:
            return set(range(len(slots)))
        known = self._seen.setdefault(target, set())
        now = time.monotonic()
        if self.connection is None or not self.connection.up or now - self._looked < READY_POLL:
            return known
        self._looked = now
        ray = self._ray()
        self._slots(target)
        pings = self._pings[target]
        done, _ = ray.wait(pings, num_returns=len(pings), timeout=0)
        known |= {i for i, ping in enumerate(pings) if ping in set(done)}
        if len(known) == len(pings):
            self._ready.add(target)
        return known

    def run(
        self, suite: Suite, target: Any, items: Iterable[WorkItem], ctx: RunContext
    ) -> Generator[tuple[WorkItem, Outcome], None, None]:
        name = str(getattr(target, "name", ""))
        if name not in self.specs:  # recorded data (findings), not an engine: nothing to distribute
            yield from LocalExecutor(self.options.jobs).run(suite, target, items, ctx)
            return
        if self.connection is None:
            self.connection = RayConnection(self.address, ctx.corpus, CaseWorker)
        yield from self._dispatch(suite, target, ctx, deque(items))

    def _dispatch(
        self, suite: Suite, target: Any, ctx: RunContext, left: deque[WorkItem]
    ) -> Generator[tuple[WorkItem, Outcome], None, None]:
        """Send ``left`` to the target's actors in chunks, each actor once it is up, and yield each
        outcome as its chunk returns; until every actor is up, this process runs cases too (the
        warm start). A lost worker's chunk is sent again, one case at a time, to a fresh actor."""
        name = str(target.name)
        warm = self.options.warm_start
        per_slot = IN_FLIGHT_PER_SLOT * max(1, self.options.jobs)
        size = 1
        slots: list[Any] = []
        generation: list[int] = []
        pending: dict[Any, tuple[list[WorkItem], int, int, int]] = {}  # ref -> chunk, attempt, slot, generation
        busy: dict[int, int] = {}  # slot -> chunks in flight
        ray: Any = None  # the Ray module, once it is up

        def submit(chunk: list[WorkItem], attempt: int, slot: int) -> None:
            ref = slots[slot].run_many.remote(suite.name, [(item.case, item.repeat) for item in chunk])
            pending[ref] = (chunk, attempt, slot, generation[slot])
            busy[slot] = busy.get(slot, 0) + 1

        try:
            while left or pending:
                ready = self._ready_slots(name) if warm else None
                if not slots and (not warm or self._conn.up):
                    ray = self._ray()
                    slots = self._slots(name)
                    generation = [0] * len(slots)
                    size = max(1, min(MAX_CHUNK, len(left) // (per_slot * len(slots))))
                if slots:
                    for slot in range(len(slots)) if ready is None else sorted(ready):
                        while left and busy.get(slot, 0) < per_slot:
                            submit([left.popleft() for _ in range(min(size, len(left)))], 0, slot)
                if left and warm and name not in self._ready:
                    item = left.popleft()  # this process works too while actors come up
                    self.driver_cases += 1
                    yield item, run_one(suite, target, item.case, ctx, item.repeat)
                    done = ray.wait(list(pending), num_returns=len(pending), timeout=0)[0] if pending else []
                elif pending:
                    done = ray.wait(list(pending), num_returns=1)[0]
                else:  # cases left, no actor up yet, this process not running cases: wait for one
                    ray.wait(self._pings[name], num_returns=1)
                    continue
                for ref in done:
                    yield from self._collect(ref, pending, busy, slots, generation, submit, name)
        finally:  # an early close (--strict, Ctrl-C): drop what has not started
            for ref in pending:
                try:
                    ray.cancel(ref)
                except Exception:  # noqa: BLE001 - already finished or its actor is gone
                    pass

    def _collect(
        self,
        ref: Any,
        pending: dict[Any, tuple[list[WorkItem], int, int, int]],
        busy: dict[int, int],
        slots: list[Any],
        generation: list[int],
        submit: Any,
        name: str,
    ) -> Generator[tuple[WorkItem, Outcome], None, None]:
        """The outcomes of one returned chunk; a chunk lost with its worker is sent again."""
        ray = self._ray()
        chunk, attempt, slot, gen = pending.pop(ref)
        busy[slot] -= 1
        try:
            answers = ray.get(ref)
        except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError, ray.exceptions.ObjectLostError) as exc:
            if self._stopped:  # the deadline ended the actors: nothing is sent again
                stopped: Answer = (None, f"stopped with its worker ({type(exc).__name__})", 0.0, {})
                yield from _outcomes(chunk, [stopped] * len(chunk), attempt)
                return
            if gen == generation[slot]:  # the first loss seen from this actor: replace it
                generation[slot] += 1
                nodes = self._conn.nodes
                slots[slot] = self._actor(name, nodes[slot % len(nodes)])  # slots is self.actors[name]
            if attempt < MAX_RETRIES:  # one case at a time now, so one bad case loses only itself
                self.retries += len(chunk)
                for item in chunk:
                    submit([item], attempt + 1, slot)
                return
            self.lost += len(chunk)
            answers = [(None, f"worker lost {attempt + 1} times ({type(exc).__name__})", 0.0, {})] * len(chunk)
        yield from _outcomes(chunk, answers, attempt)

    def describe(self) -> dict[str, Any]:
        connection = self.connection
        if connection is not None:
            connection.settle()  # so the manifest says whether Ray was reached
        return {
            "kind": "ray",
            "address": self.address or "local",
            "nodes": len(connection.nodes) if connection else 0,
            "actors": {name: len(slots) for name, slots in self.actors.items()},
            "actor_nodes": self._actor_nodes(),
            "jobs": self.options.jobs,
            "retries": self.retries,
            "lost_cases": self.lost,
            "max_retries": MAX_RETRIES,
            "startup_seconds": round(connection.seconds, 2) if connection else 0.0,
            "warm_start": self.options.warm_start,
            "driver_cases": self.driver_cases,
            **({"unreachable": connection.failure} if connection and connection.failure else {}),
        }

    def _actor_nodes(self) -> dict[str, int]:
        """Per target, on how many distinct nodes its actors answered ``ready`` (0 for none yet)."""
        ray = self.connection.ray if self.connection is not None and self.connection.up else None
        if ray is None:
            return {}
        out = {}
        for name, pings in self._pings.items():
            nodes = set()
            for ping in pings:
                try:
                    nodes.add(ray.get(ping, timeout=0))
                except Exception:  # noqa: BLE001 - not answered yet, or its actor was lost first
                    pass
            out[name] = len(nodes)
        return out

    def stop_workers(self) -> None:
        """End this run's actors now, their engines with them (the run's deadline): the chunks
        they held come back as errors and are not sent again."""
        self._stopped = True
        connection = self.connection
        ray = connection.ray if connection is not None and connection.up else None
        if ray is not None:
            self._end_actors(ray, graceful=False)

    def _end_actors(self, ray: Any, graceful: bool) -> None:
        """Kill every actor of this run; ``graceful``: first let each close its engine."""
        for actor in [actor for slots in list(self.actors.values()) for actor in slots]:
            if graceful:
                try:
                    ray.get(actor.close.remote(), timeout=10)
                except Exception:  # noqa: BLE001 - a dead actor has nothing to close
                    pass
            try:
                ray.kill(actor)
            except Exception:  # noqa: BLE001 - already gone
                pass

    def close(self) -> None:
        """Stop this run's actors, and the Ray instance when this executor started it (a start
        still under way is waited for first, so nothing it starts is left running)."""
        if self.connection is None:
            return
        self.connection.settle()
        if self.connection.failure is not None and self.driver_cases:
            print(
                f"workbench: --executor {self.options.executor}: {self.connection.failure}; "
                f"{self.driver_cases} case(s) ran in this process instead",
                file=sys.stderr,
            )
        ray = self.connection.ray
        if ray is not None and ray.is_initialized():
            self._end_actors(ray, graceful=True)
        self.actors.clear()
        self.connection.close()
