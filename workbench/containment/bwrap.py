"""Bubblewrap: what a fixture command sees (see the package doc)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

from .reap import own_reaper_argv

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
    # bwrap exits before its namespace's first process does; that one, orphaned, is collected by the
    # probe's own reaper rather than left to init as a zombie.
    try:
        probe = subprocess.run(
            own_reaper_argv([found, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--", "true"]),
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


SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# the /etc a build needs (users and groups, the dynamic loader, certificates, alternatives); no
# resolv.conf (there is no network), never shadow, ssh keys, credentials or other secrets
ETC: tuple[str, ...] = ("passwd", "group", "nsswitch.conf", "ld.so.cache", "ld.so.conf", "ld.so.conf.d")
ETC += ("alternatives", "ssl", "ca-certificates", "localtime", "mime.types", "os-release")
TOOLS = ("node", "npm", "npx", "pnpm", "yarn", "bun", "go")
# host configuration under the system prefix (npmrc, pip.conf, gitconfig, tokens in them): shown empty
HIDDEN = ("/usr/local/etc", "/usr/etc")


def _system() -> list[str]:
    """bwrap arguments showing the system prefix and the /etc files a build needs, read-only; the
    host configuration under the prefix (``HIDDEN``) is an empty read-only folder."""
    args: list[str] = []
    for path in SYSTEM:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for name in ETC:
        if os.path.exists(f"/etc/{name}"):
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    for path in HIDDEN:
        if os.path.isdir(path) and not os.path.islink(path):
            args += ["--tmpfs", path, "--remount-ro", path]
    return args


def _checkout() -> Path:
    """The folder holding the workbench package (its checkout, or site-packages when installed)."""
    return Path(__file__).resolve().parents[2]


def _toolchains(argv: list[str]) -> list[str]:
    """The read-only folders a command needs beyond the system prefix: this interpreter's prefixes
    (its virtual environment too) and the install roots of the program and of node/npm/go. Never
    the home folder, the workbench checkout or a folder holding either."""
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix]
    for program in [sys.executable, *(argv[:1]), *TOOLS]:
        found = shutil.which(program)
        if found:
            binary = Path(found).resolve()
            candidates.append(str(binary.parent.parent if binary.parent.name == "bin" else binary.parent))
    guarded = [Path.home().resolve(), _checkout()]
    kept: list[str] = []
    for text in sorted({str(Path(c).resolve()) for c in candidates if c}):
        path = Path(text)
        hidden = any(g == path or g.is_relative_to(path) for g in guarded)
        if hidden or len(path.parts) < 3 or path.is_relative_to("/usr") or not path.is_dir():
            continue
        if not any(path.is_relative_to(Path(k)) for k in kept):
            kept.append(text)
    return kept


def contain(argv: list[str], writable: Path) -> list[str]:
    """``argv`` wrapped to run under bubblewrap seeing only what a build needs: the system prefix and
    the toolchains read-only, the /etc files in ``ETC``, ``writable`` (the fixture's copy) and a
    fresh private /tmp (also HOME) writable; no other folder of the host (/root, /home, the
    checkout, caches), no network, its own namespaces and session, dying with workbench.

    Returned unchanged when bubblewrap is not available (``sandbox_kind() == "none"``)."""
    bwrap = _bwrap()
    if bwrap is None:
        return argv
    where = str(writable.resolve())
    shown = sorted(set(_toolchains(argv)) | set(_under_tmp(argv)))
    return [
        bwrap,
        *_system(),
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        *[arg for path in shown for arg in ("--ro-bind", path, path)],
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
