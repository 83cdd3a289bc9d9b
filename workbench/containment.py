"""What contains a fixture command: bubblewrap when it works here, and copies without escaping links.

Under bubblewrap (``bwrap``, found on PATH and checked once to start) a harness or validation
command sees the whole file system read-only, its temporary copy as the only writable directory
besides a private ``/tmp`` (also its ``HOME``), no network, its own PID, IPC and UTS namespaces and a
new session, and it dies with workbench. Without it, ``sandbox_kind()`` is ``"none"`` (the run's
summary and report say so) and commands run as the user, confined only by the allowlist, the
minimal environment and the timeout.

Either way ``drop_escaping_links`` leaves no symlink in a copy that resolves outside the copy,
dangles or loops: a fixture cannot be modified through a link, whatever its scripts write.
"""
from __future__ import annotations

import os
import shutil
import subprocess
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
        probe = subprocess.run([found, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--", "true"],
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=10, check=False)
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
    return [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
            "--bind", where, where, "--unshare-all", "--die-with-parent", "--new-session",
            "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp", "--chdir", where, "--", *argv]


def drop_escaping_links(root: Path) -> list[str]:
    """Remove every symlink under ``root`` that leads outside it, dangles or loops; returns their paths.

    Repeats until a pass drops nothing: a link to a dropped link dangles in turn."""
    dropped: list[str] = []
    while True:
        found = _drop_pass(root, root.resolve())
        if not found:
            return dropped
        dropped += found


def _drop_pass(root: Path, inside: Path) -> list[str]:
    dropped = []
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(folder, name)
            if not path.is_symlink():
                continue
            try:
                target = path.resolve(strict=True)
            except (OSError, RuntimeError):  # dangling, or a loop (a -> a, a -> b -> a)
                target = None
            if target is None or not target.is_relative_to(inside):
                path.unlink()
                dropped.append(path.relative_to(root).as_posix())
    return dropped
