"""Bubblewrap: what a fixture command sees (see the package doc)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

BWRAP = "bwrap"
ENV_DISABLE = "WORKBENCH_NO_BWRAP"


@lru_cache(maxsize=1)
def _bwrap() -> str | None:
    """The bwrap binary, if it is installed and can create its namespaces on this machine."""
    if os.environ.get(ENV_DISABLE):
        return None
    found = shutil.which(BWRAP)
    if found is None:
        return None
    try:
        probe = subprocess.run(
            [found, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--", "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return found if probe.returncode == 0 else None


def sandbox_kind() -> str:
    """``"bwrap"`` when fixture commands run under bubblewrap, else ``"none"``."""
    return "bwrap" if _bwrap() else "none"


def contain(argv: list[str], writable: Path) -> list[str]:
    """``argv`` wrapped to run under bubblewrap with only ``writable`` (and a private /tmp) writable.

    Returned unchanged when bubblewrap is not available (``sandbox_kind() == "none"``)."""
    bwrap = _bwrap()
    if bwrap is None:
        return argv
    where = str(writable.resolve())
    shown = [arg for path in _under_tmp(argv) for arg in ("--ro-bind", path, path)]
    return [
        bwrap,
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        *shown,
        "--bind",
        where,
        where,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--chdir",
        where,
        "--",
        *argv,
    ]


def _under_tmp(argv: list[str]) -> list[str]:
    """What the private ``/tmp`` would hide but a command needs, read-only: this Python's prefixes
    and import paths, and the program it runs, when they live under ``/tmp`` (a clone or virtual
    environment made in a temporary directory)."""
    program = shutil.which(argv[0]) if argv else None
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path]
    candidates += [str(Path(found).resolve().parent) for found in (sys.executable, program) if found]
    tmp = Path("/tmp").resolve()
    kept: list[str] = []
    for text in sorted({str(Path(c).resolve()) for c in candidates if c}):
        path = Path(text)
        if path.is_relative_to(tmp) and path != tmp and path.exists():
            if not any(path.is_relative_to(Path(k)) for k in kept):
                kept.append(text)
    return kept
