"""``workbench lab``: JupyterLab on the report notebooks, as a child that stops when we stop.

As root (containers, CI boxes) JupyterLab refuses to start without ``--allow-root``, so it is
added. The server runs in its own session: Ctrl-C, SIGTERM or a closed terminal reach only this
process, which then asks the server to shut down (SIGTERM: it stops its kernels and exits), and
kills its process group if it has not exited within ``GRACE`` seconds. Before, an interrupted
``workbench lab`` could leave the server (and its kernels) running.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

GRACE = 10.0
EXIT_INTERRUPTED = 130


class _Stop(Exception):
    """A termination signal arrived while the server ran."""


def lab_argv(args: Sequence[str], notebook_dir: Path, as_root: bool | None = None) -> list[str]:
    """The JupyterLab command line: the notebook directory, ``--allow-root`` when running as root,
    then the user's own arguments."""
    root = (os.geteuid() == 0) if as_root is None and hasattr(os, "geteuid") else bool(as_root)
    extra = ["--allow-root"] if root and "--allow-root" not in args else []
    return [sys.executable, "-m", "jupyterlab", f"--notebook-dir={notebook_dir}", *extra, *args]


def stop(proc: subprocess.Popen[bytes], grace: float = GRACE) -> None:
    """Ask the server to shut down, then kill its process group if it has not exited in ``grace`` s."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def serve_lab(argv: Sequence[str], grace: float = GRACE) -> int:
    """Run ``argv`` in its own session until it exits, or until we are told to stop (then stop it)."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        raise _Stop(signum)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGHUP)}
    proc: subprocess.Popen[bytes] | None = None
    try:  # the handlers are in place before the server starts: a stop right after it is not missed
        proc = subprocess.Popen(list(argv), start_new_session=True)
        return proc.wait()
    except (KeyboardInterrupt, _Stop):
        return EXIT_INTERRUPTED
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if proc is not None:
            stop(proc, grace)
