"""Wall and CPU time of the test suite as ``make test`` runs it, the whole process tree counted.

    python bench/tests.py [--workers auto] [--durations 20] [--tree DIR] [-- PYTEST ARGS...]

Runs pytest with ``make test``'s options (xdist, ``--dist loadfile``, bytecode cached under
``.venv``) in ``--tree`` (default: this checkout, with this interpreter), as a child subreaper, so
processes orphaned on the way (Ray's workers, a killed run's children) are reaped here and their
CPU time counted too; ``/usr/bin/time`` misses those. Prints the wall time, the CPU seconds (user +
sys) of the tree, the load average before and after, pytest's last line and the slowest tests.
A shared machine inflates wall time much more than CPU time: compare runs by CPU, or alternate.
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PR_SET_CHILD_SUBREAPER = 36
REAP_GRACE = 30.0  # seconds to wait for orphans still exiting after pytest returned


def _become_subreaper() -> None:
    """Orphaned descendants are re-parented to this process instead of init (Linux only)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def _reap_orphans(grace: float) -> int:
    """Wait for every remaining descendant (orphans re-parented here); how many were still there."""
    left, give_up = 0, time.monotonic() + grace
    while time.monotonic() < give_up:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return left
        except OSError as exc:  # pragma: no cover - EINTR
            if exc.errno != errno.EINTR:
                raise
            continue
        if pid:
            left += 1
        else:
            time.sleep(0.05)
    return left


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="auto", help="pytest-xdist -n (0: one process)")
    parser.add_argument("--durations", type=int, default=20)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose tests run")
    parser.add_argument("--log", type=Path, help="write pytest's whole output here too")
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    tree = args.tree.resolve()
    python = tree / ".venv" / "bin" / "python"
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(tree / ".venv" / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [str(python if python.exists() else sys.executable), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["-n", args.workers, "--dist", "loadfile", "--no-loadscope-reorder", f"--durations={args.durations}"]
    _become_subreaper()
    load_before = os.getloadavg()
    started = time.perf_counter()
    done = subprocess.run(command + args.pytest_args, cwd=tree, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    orphans = _reap_orphans(REAP_GRACE)
    cpu, load_after = _cpu(), os.getloadavg()
    if args.log:
        args.log.write_text(done.stdout + done.stderr)
    lines = done.stdout.splitlines()
    slowest = [line for line in lines if line.split("s ", 1)[0].replace(".", "").isdigit()]
    print("\n".join(slowest + [line for line in lines if line.startswith(("FAILED", "ERROR"))]))
    print(lines[-1] if lines else done.stderr[-2000:])
    print(
        f"wall {wall:.1f} s, CPU (user+sys, whole tree) {cpu:.1f} s, exit {done.returncode}, "
        f"orphans reaped {orphans}, load {load_before[0]:.2f} -> {load_after[0]:.2f}"
    )
    sys.exit(done.returncode)


if __name__ == "__main__":
    main()
