"""The sandbox: temp copies of fixtures, allowlisted command execution, and hook-free git.

Nothing here ever runs a command string through a shell. ``allowed_argv`` accepts only the
ordinary forms below and turns them into an argv list; anything else is refused with the reason.

=======================================  ===============================================
form                                     runs
=======================================  ===============================================
``npm install|i|ci``                     ``npm <verb> --ignore-scripts --no-audit --no-fund``
``npm test|t``, ``npm run <script>``     as written
``pnpm install|i [--frozen-lockfile]``   ``pnpm install ... --ignore-scripts``
``pnpm test``, ``pnpm run <script>``     as written
``yarn``, ``yarn install [--frozen-lockfile|--immutable]``   ``yarn install ... --ignore-scripts``
``yarn test``, ``yarn run <script>``     as written
``bun install [--frozen-lockfile]``      ``bun install ... --ignore-scripts``
``bun test``, ``bun run <script>``       as written
``python|python3 -m pytest [args]``      ``<workbench's python> -m pytest [args]``
``pytest [args]``                        ``<workbench's python> -m pytest [args]``
``go test|build|vet ./...``              as written
=======================================  ===============================================

pytest args are a few flags (``-q -x -v -ra``) and relative paths without ``..``. Python forms run
on the workbench's own interpreter, so a fixture's tests find the pytest in its environment.
Commands run with a minimal environment (``PATH``, ``HOME``, locale, temp dir) plus ``CI=1``, in a
new process group that is killed whole on timeout, under bubblewrap when it is available (see
"Containment" below: only the copy is writable, no network, own PID namespace).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .containment import contain, run_contained, sandbox_kind  # noqa: F401  (sandbox_kind: re-exported)
from .errors import SuiteError, WorkbenchError

TAIL_CHARS = 2000
_SCRIPT = r"[A-Za-z0-9][A-Za-z0-9:._-]*"
_PYTEST_ARG = r"(?:-q|-x|-v|-ra|--quiet|--verbose|--exitfirst|(?!.*\.\.)[A-Za-z0-9_][A-Za-z0-9_./-]*)"
_INSTALL = "install"
_PYTHON_WORDS = ("python", "python3", "pytest")
# (pattern over the whitespace-normalised command, flags appended for installs)
FORMS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(pattern), extra)
    for pattern, extra in (
        (r"npm (?:install|i|ci)", ("--ignore-scripts", "--no-audit", "--no-fund")),
        (rf"npm (?:test|t|run {_SCRIPT})", ()),
        (r"pnpm (?:install|i)(?: --frozen-lockfile)?", ("--ignore-scripts",)),
        (rf"pnpm (?:test|run {_SCRIPT})", ()),
        (r"yarn(?: install)?(?: --frozen-lockfile| --immutable)?", ("--ignore-scripts",)),
        (rf"yarn (?:test|run {_SCRIPT})", ()),
        (r"bun install(?: --frozen-lockfile)?", ("--ignore-scripts",)),
        (rf"bun (?:test|run {_SCRIPT})", ()),
        (rf"(?:python3? -m )?pytest(?: {_PYTEST_ARG})*", ()),
        (r"go (?:test|build|vet) \./\.\.\.", ()),
    )
)
_ENV_KEEP = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TEMP", "TMP", "SYSTEMROOT", "USER")
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "workbench",
    "GIT_AUTHOR_EMAIL": "workbench@example.invalid",
    "GIT_COMMITTER_NAME": "workbench",
    "GIT_COMMITTER_EMAIL": "workbench@example.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00+0000",
}
_GIT_CONFIG = (
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "commit.gpgSign=false",
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.quotePath=false",
)


def normalise(command: str) -> str:
    """A command with runs of whitespace collapsed (how expected and inferred commands compare)."""
    return " ".join(command.split())


def allowed_argv(command: str) -> list[str]:
    """The argv an allowlisted command runs as, or a SuiteError saying why it is refused."""
    text = normalise(command)
    for pattern, extra in FORMS:
        if pattern.fullmatch(text):
            words = text.split(" ")
            if words[0] in _PYTHON_WORDS:
                return [sys.executable, "-m", *words[words.index("pytest") :]]
            if extra and words[0] == "yarn" and words[1:2] != [_INSTALL]:
                words.insert(1, _INSTALL)
            return [*words, *extra]
    raise SuiteError(f"refused {text!r}: not an allowlisted install/test/run form (see workbench.sandbox)")


def safe_env() -> dict[str, str]:
    """A minimal environment for fixture commands: no credentials, ``CI=1``, no update checks."""
    env = {key: os.environ[key] for key in _ENV_KEEP if key in os.environ}
    env.update(
        CI="1",
        NO_COLOR="1",
        PYTHONDONTWRITEBYTECODE="1",
        npm_config_update_notifier="false",
        npm_config_fund="false",
        npm_config_audit="false",
    )
    return env


@dataclass(frozen=True)
class Execution:
    """What running one command did: its argv, exit code (None if never started), time, output tails."""

    command: str
    argv: tuple[str, ...]
    exit_code: int | None
    seconds: float
    stdout_tail: str = ""
    stderr_tail: str = ""
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def refused(self) -> bool:
        """Whether the allowlist refused the command (nothing was started)."""
        return not self.argv


def _tail(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")[-TAIL_CHARS:]


def run_allowlisted(command: str, cwd: Path, timeout: float) -> Execution:
    """Run an allowlisted command in ``cwd`` without a shell; refusals and timeouts are data."""
    try:
        argv = allowed_argv(command)
    except SuiteError as exc:
        return Execution(normalise(command), (), None, 0.0, reason=str(exc))
    env = safe_env()
    program = shutil.which(argv[0], path=env.get("PATH"))
    if program is None:
        return Execution(normalise(command), tuple(argv), None, 0.0, reason=f"{argv[0]} not found on PATH")
    started = time.perf_counter()
    done = run_contained(contain([program, *argv[1:]], cwd), cwd, env, timeout)
    code = done.exit_code
    reason = done.killed or (
        f"timed out after {timeout:g} s" if code is None else (None if code == 0 else f"exit code {code}")
    )
    return Execution(
        normalise(command),
        tuple(argv),
        code,
        round(time.perf_counter() - started, 3),
        _tail(done.stdout),
        _tail(done.stderr),
        reason,
    )


def copy_tree(src: Path, dest: Path) -> Path:
    """Copy a fixture tree (without ``.git`` or ``node_modules``) to ``dest``.

    Links are copied as links, never followed, then every link that leads outside the copy (or
    dangles, or loops) is removed, so nothing run in the copy can write through one into the fixture."""
    shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(".git", "node_modules"))
    drop_escaping_links(dest)
    return dest


@contextmanager
def temp_copy(src: Path, parent: Path | None = None) -> Iterator[Path]:
    """A throwaway copy of ``src`` named like it, removed afterwards; ``src`` is only read."""
    with tempfile.TemporaryDirectory(prefix="workbench-", dir=parent) as tmp:
        yield copy_tree(src, Path(tmp) / src.name)


def tree_digest(root: Path) -> str:
    """SHA-256 over every path, file mode, file content and link target under ``root``."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            digest.update(f"L {rel} -> {os.readlink(path)}\n".encode())
        elif path.is_file():
            content = hashlib.sha256(path.read_bytes()).hexdigest()
            digest.update(f"F {rel} {path.stat().st_mode & 0o777:o} {content}\n".encode())
        else:
            digest.update(f"D {rel}\n".encode())
    return digest.hexdigest()


def git(args: list[str], cwd: Path, identity: bool = False, error: type[WorkbenchError] = SuiteError) -> str:
    """Run git without hooks, user config or prompts; ``identity`` pins author, committer and dates.

    A failure raises ``error`` with git's last stderr line.
    """
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        **(GIT_IDENTITY if identity else {}),
    }
    proc = subprocess.run(
        ["git", *_GIT_CONFIG, *args], cwd=cwd, env=env, capture_output=True, stdin=subprocess.DEVNULL, check=False
    )
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise error(f"git {args[0]} in {cwd} failed: {message[-1] if message else proc.returncode}")
    return proc.stdout.decode("utf-8", errors="replace")


def init_baseline(repo: Path) -> str:
    """``git init`` a copied tree and commit it deterministically; returns the commit id."""
    git(["init", "-q", "-b", "main"], repo)
    git(["add", "-A"], repo)
    git(["commit", "-q", "--allow-empty", "-m", "baseline"], repo, identity=True)
    return git(["rev-parse", "HEAD"], repo).strip()


class _Baselines:
    """Committed baselines per base content, built once per process (see ``baseline_copy``)."""

    def __init__(self) -> None:
        self.root: Path | None = None
        self.built: dict[tuple[Path, str], tuple[Path, str]] = {}
        self.lock = threading.Lock()

    def get(self, base: Path) -> tuple[Path, str]:
        key = (base.resolve(), tree_digest(base))
        with self.lock:
            if key not in self.built:
                if self.root is None:
                    self.root = Path(tempfile.mkdtemp(prefix="workbench-baselines-"))
                    atexit.register(shutil.rmtree, self.root, ignore_errors=True)
                built = self.root / str(len(self.built))
                self.built[key] = (built, init_baseline(copy_tree(base, built)))
            return self.built[key]


_BASELINES = _Baselines()


def baseline_copy(base: Path, dest: Path) -> str:
    """A fresh git baseline of ``base`` at ``dest``; returns its commit id.

    Each distinct base content is committed once per process and then copied with its
    ``.git``: the commit is deterministic, so a copy equals a fresh build, 5-10x cheaper.
    """
    built, commit = _BASELINES.get(base)
    shutil.copytree(built, dest, symlinks=True)
    drop_escaping_links(dest)
    git(["update-index", "-q", "--refresh"], dest)  # the copies' stat data differ from the index
    return commit


# ---- Containment ----
# What contains a fixture command: bubblewrap when it works here, and copies without escaping links.
#
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
