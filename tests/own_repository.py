"""Helpers for the tests that use workbench as another project would: a wheel built from this
checkout, a fresh virtual environment holding only that wheel, and a git repository that is not
workbench, with a history to mine and an engine of its own.

The environment is offline: it is made without pip, its dependencies are this checkout's ``.venv``
packages, seen through a ``.pth`` file that points at a folder of links to them *minus* workbench's
own editable install, and ``pip`` is this environment's ``python -m pip`` with ``PIP_NO_INDEX``. So
the wheel is the only thing that provides ``workbench`` there, and nothing reaches the network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from tests.git_history import commit, init

ROOT = Path(__file__).resolve().parent.parent
ENGINE_SOURCE = ROOT / "examples" / "engines" / "grep_engine.py"
NOTEBOOK_NAMES = ("scoreboard", "retrieval", "classifiers", "ranking", "baseline_diff", "significance")
RETRIEVAL_PAGES = ("index", "scoreboard", "retrieval", "baseline_diff", "significance")  # a retrieval run's

# Modules of a small service, each with the words its later changes are described by.
MODULES = {
    "src/upload.py": "upload client: retry, header, chunk",
    "src/login.py": "login: password, token, session expiry",
    "src/invoice.py": "invoice: totals, rounding, cents, tax",
    "src/export.py": "csv export: quotes, escaping, columns",
    "src/webhook.py": "webhook delivery: backoff, signature",
    "src/users.py": "users: name lookup, whitespace, email",
}
CHANGES = [
    ("src/upload.py", "retry the upload when the chunk header is missing"),
    ("src/login.py", "reject an empty password at login"),
    ("src/invoice.py", "round invoice totals to whole cents"),
    ("src/export.py", "escape quotes in the csv export columns"),
    ("src/webhook.py", "back off before the next webhook delivery"),
    ("src/users.py", "trim whitespace around user names on lookup"),
    ("src/login.py", "expire the login session token after an hour"),
    ("src/invoice.py", "add the tax line to invoice totals"),
    ("src/upload.py", "send the upload client header once per chunk"),
    ("src/webhook.py", "check the webhook signature before delivery"),
    ("src/export.py", "keep the column order of the csv export"),
    ("src/users.py", "look up users by email as well as name"),
]


def build_dist(out: Path) -> tuple[Path, Path]:
    """An sdist of this checkout and a wheel built from that sdist (offline: no build isolation)."""
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return next(out.glob("*.tar.gz")), next(out.glob("*.whl"))


def wheel_names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def dependencies_folder(where: Path) -> Path:
    """A folder of links to every package of this process's site-packages except workbench itself."""
    site = Path(sysconfig.get_paths()["purelib"])
    folder = where / "deps"
    folder.mkdir()
    for entry in site.iterdir():
        if entry.name.startswith(("__editable__", "context_workbench", "workbench")) or entry.suffix == ".pth":
            continue
        (folder / entry.name).symlink_to(entry)
    return folder


def fresh_venv(where: Path, deps: Path) -> Path:
    """A virtual environment without workbench, whose ``pip`` installs offline; returns its bin/."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    purelib = subprocess.run(
        [str(where / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(purelib) / "workbench-test-deps.pth").write_text(f"{deps}\n")
    # The dependencies' data files, as pip would have installed them (nbconvert's templates, the lab's
    # assets), but not the kernel `make setup` registered: the native kernel runs this venv's python.
    jupyter = Path(sys.prefix) / "share" / "jupyter"
    (where / "share" / "jupyter").mkdir(parents=True)
    for entry in jupyter.iterdir():
        if entry.name != "kernels":
            (where / "share" / "jupyter" / entry.name).symlink_to(entry)
    pip = where / "bin" / "pip"
    pip.write_text('#!/bin/sh\nexec "$(dirname "$0")/python" -m pip "$@"\n')
    pip.chmod(0o755)
    return where / "bin"


def venv_env(bin_dir: Path, cache: Path) -> dict[str, str]:
    """The environment a user's shell has with the venv activated: its bin/ first, nothing of this
    checkout (no PYTHONPATH, not .venv/bin), pip offline."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_"))}
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if Path(p).resolve() != Path(sys.executable).parent]
    return {
        **keep,
        "PATH": os.pathsep.join([str(bin_dir), *path]),
        "VIRTUAL_ENV": str(bin_dir.parent),
        "PIP_NO_INDEX": "1",
        "PIP_NO_BUILD_ISOLATION": "0",  # pip reads this as --no-build-isolation: setuptools from the deps
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "WORKBENCH_CACHE_DIR": str(cache),
        "JUPYTER_DATA_DIR": str(cache / "jupyter"),  # no kernel of the user's home
    }


def user_repository(repo: Path) -> Path:
    """A git repository of a small service (not workbench): modules, a dozen described changes,
    and the engine the README runs, ``tools/my_engine.py`` (the grep example engine)."""
    init(repo)
    files = {path: f'"""{words}."""\n\n\ndef handle(value):\n    return value\n' for path, words in MODULES.items()}
    commit(repo, "initial import of the service", {**files, "README.md": "# service\n"}, 0)
    for step, (path, subject) in enumerate(CHANGES, start=1):
        files[path] += f"\n\ndef step_{step}(value):\n    # {subject}\n    return value + {step}\n"
        commit(repo, subject, {path: files[path]}, step)
    (repo / "tools").mkdir()
    shutil.copy(ENGINE_SOURCE, repo / "tools" / "my_engine.py")
    commit(repo, "add the context engine", {}, len(CHANGES) + 1)
    return repo


def run_script(script: str, cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    """``script`` in bash, stopping at the first failing command."""
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
