"""Read-only git plumbing: every call names the git dir and only reads objects.

Nothing here ever touches a work tree, an index, HEAD, refs or the worktree list:
commands run with ``--git-dir`` (never a work tree), ``GIT_OPTIONAL_LOCKS=0`` (no
opportunistic index refresh) and no pager or prompt. ``CatFile`` keeps one
``git cat-file --batch`` process open, so reading thousands of objects costs one process.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, cast

from ..errors import GitError

_GROUP_BYTES = 16_384  # requests written at once to git cat-file (a pipe holds 64 KiB)
_FIRST_GROUP_BYTES = 1_024  # the first group's: about 25 blob ids
GIT_TIMEOUT = 600.0  # seconds one git command may take (a whole-history log of a large repository)
_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C"}


def git_env() -> dict[str, str]:
    """The environment git runs with: no locks, no prompt, no pager, stable messages."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(_ENV)
    return env


def git_command(git_dir: Path, *args: str) -> list[str]:
    """``git --git-dir=<dir> <args>`` (quotePath off, so paths come back as bytes, not escapes)."""
    return ["git", f"--git-dir={git_dir}", "-c", "core.quotePath=false", *args]


def run_git(git_dir: Path, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run one read-only git command to completion (``input`` on its stdin), within ``GIT_TIMEOUT``;
    git missing or too slow is a GitError, the exit status is the caller's to judge."""
    try:
        return subprocess.run(
            git_command(git_dir, *args), input=input, capture_output=True, env=git_env(), timeout=GIT_TIMEOUT
        )
    except FileNotFoundError:
        raise GitError("git is not installed (needed to read repository history)") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"{git_dir}: git {args[0]} timed out") from None


def git_bytes(git_dir: Path, *args: str, input: bytes | None = None, check: bool = True) -> bytes:
    """Run one read-only git command and return its stdout; a failure is a GitError."""
    done = run_git(git_dir, *args, input=input)
    if check and done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"{git_dir}: git {args[0]} failed: {message[-1] if message else done.returncode}")
    return done.stdout


def git_text(git_dir: Path, *args: str) -> str:
    return git_bytes(git_dir, *args).decode("utf-8", "replace")


def stream_records(
    git_dir: Path, args: list[str], separator: bytes, chunk: int = 1 << 16, keep_empty: bool = False
) -> Iterator[bytes]:
    """Stream one git command's stdout split on ``separator`` (never held whole in memory); empty
    records are dropped unless ``keep_empty`` (a field-by-field stream, where position is meaning)."""
    try:
        process = subprocess.Popen(
            git_command(git_dir, *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=git_env()
        )
    except FileNotFoundError:
        raise GitError("git is not installed (needed to read repository history)") from None
    stdout, stderr = cast(IO[bytes], process.stdout), cast(IO[bytes], process.stderr)
    pending = b""
    try:
        while block := stdout.read(chunk):
            parts = (pending + block).split(separator)
            pending = parts.pop()
            yield from (p for p in parts if p or keep_empty)
        if pending:
            yield pending
    finally:
        stdout.close()
        error = stderr.read().decode("utf-8", "replace").strip()
        code = process.wait()
    if code != 0:
        raise GitError(f"{git_dir}: git {args[0]} failed: {error.splitlines()[-1] if error else code}")


_PIPE_BYTES = 1 << 20  # what git may write ahead of the reader (Linux's limit for a user's pipe)


def _widen(stream: IO[bytes]) -> None:
    """Let git write up to ``_PIPE_BYTES`` of answers before this process reads them (a pipe holds
    64 KiB, a few source files: git would wait for each read). Linux only; elsewhere a no-op."""
    try:
        import fcntl

        fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass


class CatFile:
    """One ``git cat-file --batch`` process: ``read(spec)`` -> (type, bytes) or None when missing."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir
        try:
            self._process = subprocess.Popen(
                git_command(git_dir, "cat-file", "--batch"),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=git_env(),
            )
        except FileNotFoundError:
            raise GitError("git is not installed (needed to read repository objects)") from None
        self._in = cast(IO[bytes], self._process.stdin)
        self._out = cast(IO[bytes], self._process.stdout)
        _widen(self._out)

    def read(self, spec: str) -> tuple[str, bytes] | None:
        """The object named by ``spec`` (a sha, ``rev:path``, ``rev^{tree}``) as (type, bytes), or None."""
        found = self.read_object(spec)
        return (found[1], found[2]) if found else None

    def read_object(self, spec: str) -> tuple[str, str, bytes] | None:
        """(sha, type, bytes) of the object named by ``spec``, or None when it is missing."""
        return self.read_many([spec])[0]

    def read_many(self, specs: list[str]) -> list[tuple[str, str, bytes] | None]:
        """``read_object`` of each spec (``stream``, read to the end)."""
        return list(self.stream(specs))

    def stream(self, specs: Iterable[str]) -> Iterator[tuple[str, str, bytes] | None]:
        """``read_object`` of each spec, in order, asked a group at a time (one flush and one wait per
        group instead of a round trip per object), the next group asked before this one's answers are
        taken: git reads the next objects while the caller works on these (at most two groups are
        held, far below a pipe's buffer, so writing them cannot block). Read it to the end before
        asking this process anything else: the answers not yet taken come first. Groups start at
        ``_FIRST_GROUP_BYTES`` and double up to ``_GROUP_BYTES``: the first answer waits for two small
        groups of specs, not two full ones (specs may be slow to come: each case's waits on its diff)."""
        waiting: list[bool] | None = None
        group: list[str] = []
        size, bound = 0, _FIRST_GROUP_BYTES
        for spec in specs:
            group.append(spec)
            size += len(spec) + 1
            if size > bound:
                asked = self.ask(group)
                if waiting is not None:
                    yield from self.answers(waiting)
                waiting, group, size, bound = asked, [], 0, min(2 * bound, _GROUP_BYTES)
        asked = self.ask(group)
        if waiting is not None:
            yield from self.answers(waiting)
        yield from self.answers(asked)

    def ask(self, specs: list[str]) -> list[bool]:
        """Send the requests for ``specs`` without waiting for the answers (which of them were asked:
        a spec holding a newline cannot be, and is missing). Read them with ``answers``, keeping the
        requests asked and not yet answered to about two groups of ``_GROUP_BYTES`` (far below a
        pipe's 64 KiB, so neither side blocks): a caller asks its next group, then reads the
        previous one, and git works meanwhile."""
        asked = ["\n" not in spec for spec in specs]
        self._in.write(b"".join(spec.encode() + b"\n" for spec, ok in zip(specs, asked, strict=True) if ok))
        self._in.flush()
        return asked

    def answers(self, asked: list[bool]) -> list[tuple[str, str, bytes] | None]:
        """The answers to one ``ask``, in order (None for a missing object)."""
        return [self._answer() if ok else None for ok in asked]

    def _answer(self) -> tuple[str, str, bytes] | None:
        header = self._out.readline()
        if not header:
            raise GitError(f"{self.git_dir}: git cat-file stopped answering")
        fields = header.split()
        if len(fields) != 3:  # "<spec> missing" or "<spec> ambiguous"
            return None
        size = int(fields[2])
        data = self._out.read(size)
        self._out.read(1)  # the newline after the object
        return fields[0].decode(), fields[1].decode(), data

    def close(self) -> None:
        """End the process. Answers asked for and not read are dropped first: git, blocked writing them
        to a full pipe, would otherwise never see the end of its input (a reader stopped by an error)."""
        self._out.close()
        try:
            self._in.close()
        except OSError:
            pass
        self._process.wait()

    def __enter__(self) -> CatFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def resolve_commits(git_dir: Path, revisions: list[str]) -> dict[str, str | None]:
    """Each revision's full commit sha (None when it names no commit), in one batch-check call."""
    unique = list(dict.fromkeys(r for r in revisions if r and "\n" not in r))
    if not unique:
        return {}
    query = "".join(f"{r}^{{commit}}\n" for r in unique).encode()
    done = run_git(git_dir, "cat-file", "--batch-check", input=query)
    if done.returncode != 0:
        raise GitError(f"{git_dir}: not a readable git repository")
    found: dict[str, str | None] = {}
    for revision, line in zip(unique, done.stdout.decode().splitlines(), strict=False):
        fields = line.split()
        found[revision] = fields[0] if len(fields) == 3 and fields[1] == "commit" else None
    return found
