"""Execute report notebooks with papermill on kernels that a worker thread reuses.

A ``KernelSlot`` owns one kernel and one client to it. Between two notebooks the kernel's
namespace is reset (names gone, imported modules kept: the saving) and its execution count
restarts at 1. The ``workbench`` papermill engine runs a notebook on the slot's kernel through the
slot's client, so no notebook pays for a kernel start or a client handshake. A notebook has one
deadline for all its cells: the cell still running at the deadline is interrupted and the notebook
fails there. A kernel that died or stopped answering is replaced before the next notebook.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _import_nbformat() -> None:
    """Import nbformat (and jsonschema under it) without jsonschema's optional IRI format checker:
    ``rfc3987_syntax`` compiles a grammar at import (0.9 s), and a notebook never holds an IRI to
    check. Skipped when jsonschema is already loaded; the module stays importable afterwards."""
    if "jsonschema" in sys.modules or "rfc3987_syntax" in sys.modules:
        return
    sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # makes its import fail
    try:
        import nbformat  # noqa: F401
    finally:
        if sys.modules.get("rfc3987_syntax", 0) is None:
            del sys.modules["rfc3987_syntax"]


_import_nbformat()

import nbformat  # noqa: E402
import papermill  # noqa: E402
from jupyter_client.manager import AsyncKernelManager  # noqa: E402
from jupyter_core.utils import run_sync  # noqa: E402
from papermill.clientwrap import PapermillNotebookClient  # noqa: E402
from papermill.engines import Engine, papermill_engines  # noqa: E402
from papermill.exceptions import PapermillExecutionError  # noqa: E402
from papermill.log import logger  # noqa: E402

KERNEL = "python3"
ENGINE = "workbench"
RESET = "get_ipython().reset(new_session=True, aggressive=False)"
# No "running over TCP" warning per kernel, and no history database writes per cell.
KERNEL_ARGS = ["--IPKernelApp.log_level=ERROR", "--HistoryManager.enabled=False"]
# A kernel that dies on start is started once more: the ports jupyter_client picked for it are free
# when picked, and another kernel starting meanwhile may bind one first ("Address already in use").
START_TRIES = 2


class KernelSlot:
    """One kernel (started in ``cwd`` on first use) and one client, reused until shut down.

    ``warmup`` is code run once per kernel right after it starts (imports every notebook needs),
    so that work overlaps whatever the caller does before handing over the first notebook."""

    def __init__(self, cwd: Path, warmup: str = "") -> None:
        self.cwd = cwd
        self.warmup = warmup
        self.km: AsyncKernelManager | None = None
        self.kc: Any = None
        self.used = False
        self.started_ns = 0  # wall clock when the kernel was started (files changed after it are newer)
        self.env: dict[str, str] = {}  # the environment it was given
        self.key: Any = None  # how ``_kernel_pool`` finds the slot again

    def start(self) -> KernelSlot:
        """Start the kernel and connect the client, unless a live kernel is already there."""
        if self.km is not None and not run_sync(self.km.is_alive)():
            self.shutdown()
        if self.km is None:
            for tries_left in reversed(range(START_TRIES)):
                try:
                    self._start()
                    break
                except RuntimeError:  # it died before replying, or never replied (alive: not tried again)
                    died = self.km is not None and not run_sync(self.km.is_alive)()
                    self.shutdown()
                    if not died or not tries_left:
                        raise
        return self

    def _start(self) -> None:
        self.started_ns, self.env = time.time_ns(), dict(os.environ)
        self.km = AsyncKernelManager(kernel_name=KERNEL)
        run_sync(self.km.start_kernel)(cwd=str(self.cwd), extra_arguments=KERNEL_ARGS)
        self.kc = self.km.client()
        self.kc.start_channels()
        run_sync(self.kc.wait_for_ready)(timeout=60)
        if self.warmup:  # a failure here resurfaces, with its cell, in the notebook that needs it
            self.run(self.warmup, timeout=60)

    def run(self, code: str, expressions: dict[str, str] | None = None, timeout: float = 30) -> dict[str, Any]:
        """Execute ``code`` on the kernel, its output dropped; the reply's content (``status``, and
        ``user_expressions`` evaluated afterwards)."""
        reply = run_sync(self.kc.execute_interactive)(
            code, store_history=False, user_expressions=expressions or {}, timeout=timeout, output_hook=lambda msg: None
        )
        return dict(reply["content"])

    def alive(self) -> bool:
        """Whether the kernel is started and its process still running."""
        return self.km is not None and bool(run_sync(self.km.is_alive)())

    def ready(self) -> KernelSlot:
        """The slot with a live kernel whose namespace is empty."""
        self.start()
        if self.used:
            self.run(RESET)
        self.used = True
        return self

    def shutdown(self) -> None:
        """Stop the client and the kernel; the next ``ready()`` starts fresh ones."""
        try:
            if self.kc is not None:
                self.kc.stop_channels()
            if self.km is not None:
                run_sync(self.km.shutdown_kernel)(now=True)
        finally:
            self.km, self.kc, self.used = None, None, False


class SlotEngine(Engine):
    """papermill engine: nbclient on a ``KernelSlot``'s kernel and client. It hands the notebook
    being executed to ``keep`` so that a crash still leaves the partial outputs."""

    @classmethod
    def execute_managed_notebook(
        cls,
        nb_man: Any,
        kernel_name: str,
        slot: KernelSlot | None = None,
        keep: dict[str, Any] | None = None,
        start_timeout: float = 60,
        execution_timeout: float | None = None,
        log_output: bool = False,
        stdout_file: Any = None,
        stderr_file: Any = None,
        **kwargs: Any,
    ) -> Any:
        if slot is None:
            raise ValueError("the workbench engine needs a KernelSlot (slot=...)")
        if keep is not None:
            keep["nb"] = nb_man.nb
        kwargs.pop("input_path", None)
        client = PapermillNotebookClient(
            nb_man,
            km=slot.km,
            kernel_name=kernel_name,
            timeout=execution_timeout,
            startup_timeout=start_timeout,
            log=logger,
            log_output=log_output,
            stdout_file=stdout_file,
            stderr_file=stderr_file,
            **kwargs,
        )
        client.kc = slot.kc
        return client.execute()


papermill_engines.register(ENGINE, SlotEngine)


def declared(source: Path, params: dict[str, Any]) -> dict[str, Any]:
    """The subset of ``params`` the notebook's parameters cell declares."""
    names = papermill.inspect_notebook(str(source))
    return {name: value for name, value in params.items() if name in names}


def execute_notebook(
    source: Path, dest: Path, params: dict[str, Any], slot: KernelSlot, timeout: float
) -> tuple[Any, str | None]:
    """Run ``source`` into ``dest`` on ``slot``; return the executed notebook (partial on failure)
    and the failure, naming the cell, or None."""
    deadline, keep = time.monotonic() + timeout, {}  # type: tuple[float, dict[str, Any]]
    try:
        nb = papermill.execute_notebook(
            str(source),
            str(dest),
            parameters=declared(source, params),
            engine_name=ENGINE,
            kernel_name=KERNEL,
            progress_bar=False,
            request_save_on_cell_execute=False,
            slot=slot.ready(),
            keep=keep,
            interrupt_on_timeout=True,
            timeout_func=lambda cell: max(1.0, deadline - time.monotonic()),
        )
        return nb, None
    except PapermillExecutionError as exc:
        what = f"timed out after {timeout:g}s" if time.monotonic() >= deadline else f"{exc.ename}: {exc.evalue}"
        return keep.get("nb"), f"In [{exc.exec_count}] `{_first_line(exc.source)}`: {what}"
    except Exception as exc:  # a dead kernel or a hung interrupt fails this notebook only
        slot.shutdown()
        nb = keep.get("nb")
        if nb is not None:
            nbformat.write(nb, str(dest))
        return nb, f"{type(exc).__name__}: {exc}"


def _first_line(source: str) -> str:
    lines = [line for line in source.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return (lines[0][:80] if lines else "").strip()


# A notebook that reuses what another computed in its kernel (the comparison ``_kernel_cache``
# holds) goes to the worker that ran that one, unless it is the last notebook left and that worker
# is still busy. Only a speed-up: a page rendered on any kernel is the same page.
FOLLOWS = {"baseline_diff": "significance"}


@dataclass(frozen=True)
class Job:
    """One notebook to execute into ``out`` with ``params``."""

    source: Path
    out: Path
    params: dict[str, Any]


class JobBoard:
    """Notebooks waiting for a worker, taken in the order put; ``FOLLOWS`` keeps a notebook on
    the kernel of the one it follows when another notebook can be given out instead."""

    def __init__(self) -> None:
        self._jobs: list[Job] = []
        self._ran_on: dict[str, int] = {}
        self._closed = False
        self._changed = threading.Condition()

    def put(self, job: Job) -> None:
        with self._changed:
            self._jobs.append(job)
            self._changed.notify_all()

    def close(self) -> None:
        """No more jobs: a worker with nothing left to take gets None."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def cancel(self) -> None:
        """Drop the jobs not taken yet."""
        with self._changed:
            self._jobs.clear()

    def take(self, worker: int) -> Job | None:
        """The next job for ``worker``, waiting for one; None once closed and empty."""
        with self._changed:
            while not self._jobs and not self._closed:
                self._changed.wait()
            if not self._jobs:
                return None
            job = next(
                (j for j in self._jobs if self._ran_on.get(FOLLOWS.get(j.source.stem, ""), worker) == worker),
                self._jobs[0],
            )
            self._jobs.remove(job)
            self._ran_on[job.source.stem] = worker
            return job
