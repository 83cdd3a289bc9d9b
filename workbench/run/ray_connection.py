"""Ray, connected (or started) in a background thread while a run goes on: ``RayConnection``.

Starting a local Ray instance takes 5-12 s on a 2-core machine and joining a cluster 1-3 s (much of
it importing Ray), so the executor starts it here and keeps running cases meanwhile (see
``ray_executor``). The thread that starts an instance also stops it: Ray's own processes die with
the thread that started them.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import RunError

SWITCH_INTERVAL = 0.0005  # seconds: the GIL switch interval while Ray starts beside the driver's cases
CONNECT_TIMEOUT = 60.0  # seconds to join a cluster at an address (``ray.init`` itself waits for ever)


def start_local_ray(ray: Any, num_cpus: int = 1) -> None:
    """Start a Ray instance on this machine whose workers import what this process imports
    (they are started by its raylet, which takes ``PYTHONPATH`` from this process). The actors
    need no CPU; Ray prestarts one worker per CPU, so one is started, for the first actor.
    ``address="local"``: never join the cluster ``/tmp/ray/ray_current_cluster`` names, which
    outlives the head that wrote it."""
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
    try:
        ray.init(
            address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, configure_logging=False
        )
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


@contextmanager
def _quiet(name: str) -> Iterator[None]:
    """Only errors from the logger ``name`` while inside."""
    log = logging.getLogger(name)
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


class RayConnection:
    """Ray, connected (or started) in a background thread, so the run goes on meanwhile.

    A Ray instance started here is stopped by the same thread, when ``close`` asks: Ray's own
    processes die with the thread that started them (``PR_SET_PDEATHSIG`` names a thread, not
    the process), so that thread stays until the run is over."""

    def __init__(self, address: str | None, corpus: Any, worker: type) -> None:
        self.address, self.worker = address, worker
        self.ray: Any = None  # the module, once connected
        self.started = False  # whether this connection started the instance (and so stops it)
        self.joined = False  # whether it joined a running one (and so leaves it)
        self.seconds = 0.0
        self.remote: Any = None  # ray.remote(worker): the actor class
        self.corpus_ref: Any = None
        self.nodes: list[str | None] = []
        self._up, self._stop = threading.Event(), threading.Event()
        self._failure: BaseException | None = None
        self._gave_up = False
        # The start (importing Ray is 1-2 s of Python) shares the GIL with the cases the driver
        # runs meanwhile; at the default 5 ms switch interval each of its many file reads waits
        # one out and the import takes ten times as long. A short interval while it lasts.
        self._interval = sys.getswitchinterval()
        sys.setswitchinterval(min(self._interval, SWITCH_INTERVAL))
        self._thread = threading.Thread(target=self._own, args=(corpus,), name="workbench-ray", daemon=True)
        self._thread.start()

    def _own(self, corpus: Any) -> None:
        began = time.perf_counter()
        try:
            import ray

            if not ray.is_initialized():
                # Off the main thread Ray sets no SIGTERM handler and warns so; the default action
                # (the process ends, its journal already on disk) is the one wanted.
                with _quiet("ray._private.worker"):
                    if self.address:
                        ray.init(address=self.address, log_to_driver=False)
                        self.joined = True
                    else:
                        start_local_ray(ray)
                        self.started = True
            self.remote = ray.remote(self.worker)
            self.corpus_ref = ray.put(corpus)
            self.nodes = [n["NodeID"] for n in ray.nodes() if n.get("Alive")] or [None]
            self.ray = ray
        except BaseException as exc:  # noqa: BLE001 - raised in the thread running cases, by wait()
            self._failure = exc
        finally:
            sys.setswitchinterval(self._interval)
            self.seconds = time.perf_counter() - began
            self._up.set()
        if self.started:
            self._stop.wait()
            sys.modules["ray"].shutdown()

    @property
    def up(self) -> bool:
        return self._up.is_set()

    @property
    def failure(self) -> str | None:
        """Why Ray could not be reached, once that is known."""
        if self._failure is not None:
            return str(self._failure) or type(self._failure).__name__
        if self.address and not self._up.is_set() and self._gave_up:
            return f"no answer from Ray at {self.address} within {CONNECT_TIMEOUT:g} s"
        return None

    def settle(self) -> bool:
        """Wait until the start is over (a local start always ends; joining an address is given
        ``CONNECT_TIMEOUT``); whether it is over."""
        if self._gave_up:  # waited the whole timeout once already
            return self._up.is_set()
        if self._up.wait(None if self.address is None else CONNECT_TIMEOUT):
            return True
        self._gave_up = True
        return False

    def wait(self, spec: str) -> Any:
        """The Ray module once connected, or a RunError saying why not."""
        self.settle()
        if self.failure is not None:
            raise RunError(f"--executor {spec}: {self.failure}") from self._failure
        return self.ray

    def close(self) -> None:
        """Stop the instance this connection started (after its start, if still under way), or
        leave the one it joined: now, not at exit, where Ray sleeps half a second first to let
        logs this run never forwards finish printing. A join that never answered is left to its
        daemon thread: it started nothing."""
        if not self.settle():
            return
        self._stop.set()
        self._thread.join()
        if self.joined and self.ray is not None:
            self.ray.shutdown()
            self.joined = False
