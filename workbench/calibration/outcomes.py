"""What history did next to each change: reverted, or repaired by a later fix.

The rules (EVALS.md, "Calibration"):

- **reverted**: a later commit within the window whose message says ``This reverts commit <sha>``
  naming the change (a 7-64 hex prefix of it), or whose diff is the exact inverse of the change's
  (``git patch-id --stable`` of the later commit's reversed diff equals the change's; patch ids ignore
  whitespace and line numbers, so this is "the same lines put back", not a byte-level comparison).
- **fixed**: a later non-merge commit within the window whose subject looks like a fix (``FIX_RULE``:
  the words fix/fixes/fixed/fixing, bug/bugfix, hotfix, regression, crash, broken, or ``oops``;
  a revert is never a fix) removed or changed a line that ``git blame --porcelain`` at the fix's
  parent attributes to the change (``--root``: the first commit's lines too). Only modified files
  count (a deleted file's lines are not read).

Everything is read through a handful of streaming git calls (``git log -p`` twice into
``git patch-id``, one ``git log -p -U0`` for the fixes' hunks) plus one ``git blame`` per
(fix, file); git is only ever read.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, cast

from ..corpus.gitio import GIT_TIMEOUT, git_bytes, git_command, git_env, run_git
from ..errors import GitError

FIX_RULE = re.compile(r"\b(fix(e[sd])?|fixing|bugs?|bugfix|hotfix|regressions?|crash(es|ed)?|broken|oops)\b", re.I)
REVERTS = re.compile(r"This reverts commit ([0-9a-f]{7,64})")
_REVERT_SUBJECT = re.compile(r"^\s*revert\b", re.I)
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")
_BLAME = re.compile(rb"^([0-9a-f]{40}|[0-9a-f]{64}) \d+ \d+")


@dataclass(frozen=True)
class Window:
    """How far after a change an outcome counts: ``days`` of commit time, or ``commits`` later commits."""

    days: float | None = 90.0
    commits: int | None = None

    @property
    def label(self) -> str:
        return f"{self.commits} commits" if self.commits is not None else f"{self.days:g} days"


def parse_window(text: str) -> Window:
    """``90d`` or ``90`` (days) or ``200c`` (commits); a ValueError says what was expected."""
    value = text.strip().lower()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(d|days?|c|commits?)?", value)
    if not match or float(match.group(1)) <= 0:
        raise ValueError(f"expected a window such as 90d (days) or 200c (commits), got {text!r}")
    unit = (match.group(2) or "d")[0]
    if unit == "c":
        if "." in match.group(1):
            raise ValueError(f"a window in commits must be a whole number, got {text!r}")
        return Window(days=None, commits=int(match.group(1)))
    return Window(days=float(match.group(1)))


@dataclass
class Found:
    """Outcomes by change sha: who reverted it, which fixes repaired its lines."""

    reverted_by: dict[str, set[str]] = field(default_factory=dict)
    fixed_by: dict[str, set[str]] = field(default_factory=dict)
    fixes: int = 0  # commits matching FIX_RULE that were examined
    blames: int = 0  # git blame calls made


def patch_ids(git_dir: Path, count: int, reverse: bool = False) -> dict[str, str]:
    """sha -> ``git patch-id --stable`` of the newest ``count`` non-merge commits (of their reversed
    diff with ``reverse``). Commits with an empty diff have none."""
    log = git_command(
        git_dir, "log", "HEAD", "-p", "--no-prefix", "--no-merges", "--no-color", "--no-renames", "--no-ext-diff"
    )
    log += [f"-n{count}", "--format=commit %H"] + (["-R"] if reverse else []) + ["--"]
    try:
        producer = subprocess.Popen(log, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=git_env())
    except FileNotFoundError:
        raise GitError("git is not installed (needed to read repository history)") from None
    source = cast(IO[bytes], producer.stdout)
    try:
        consumer = subprocess.run(
            git_command(git_dir, "patch-id", "--stable"),
            stdin=source,
            capture_output=True,
            env=git_env(),
            timeout=GIT_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        producer.kill()
        raise GitError(f"{git_dir}: git patch-id timed out") from None
    finally:
        source.close()
    if producer.wait() != 0 or consumer.returncode != 0:
        raise GitError(f"{git_dir}: git log -p | git patch-id failed")
    ids: dict[str, str] = {}
    for line in consumer.stdout.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) == 2:
            ids[parts[1]] = parts[0]
    return ids


def removed_lines(git_dir: Path, fixes: Iterable[str]) -> dict[str, dict[str, list[tuple[int, int]]]]:
    """fix sha -> path -> (first line, count) of each hunk it removes from the path at its parent
    (one ``git log -p -U0 --no-walk`` over all the fixes)."""
    wanted = list(fixes)
    if not wanted:
        return {}
    args = ["log", "--no-walk=unsorted", "-p", "-U0", "--no-color", "--no-renames", "--no-ext-diff"]
    args += ["--diff-filter=M", "--format=commit %H", "--stdin"]
    done = run_git(git_dir, *args, input="".join(f"{sha}\n" for sha in wanted).encode())
    if done.returncode != 0:
        raise GitError(f"{git_dir}: git log -p of the fix commits failed")
    return _parse_hunks(done.stdout.split(b"\n"))


def _parse_hunks(lines: Iterable[bytes]) -> dict[str, dict[str, list[tuple[int, int]]]]:
    found: dict[str, dict[str, list[tuple[int, int]]]] = {}
    sha, path = "", None
    for line in lines:
        if line.startswith(b"commit ") and len(line) in (47, 71):
            sha, path = line[7:].decode("ascii", "replace"), None
        elif line.startswith(b"--- "):
            name = line[4:].rstrip(b"\t")
            path = name[2:].decode("utf-8", "replace") if name.startswith(b"a/") else None
        elif line.startswith(b"@@ ") and sha and path and (match := _HUNK.match(line)):
            first, count = int(match.group(1)), int(match.group(2) or b"1")
            if count:
                found.setdefault(sha, {}).setdefault(path, []).append((first, count))
    return found


def blamed(git_dir: Path, fix: str, path: str, hunks: list[tuple[int, int]], since: int | None) -> set[str]:
    """Commits ``git blame`` at ``fix^`` gives for the hunks' lines (boundary commits left out: their
    lines are older than ``since``)."""
    args = ["blame", "--porcelain", "--root"]  # a root commit is a change too, not a boundary
    for first, count in hunks:
        args += ["-L", f"{first},+{count}"]
    if since is not None:
        args.append("--since=" + datetime.fromtimestamp(since, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    out = git_bytes(git_dir, *args, f"{fix}^", "--", path, check=False)
    shas: set[str] = set()
    current, boundary = "", set()
    for line in out.split(b"\n"):
        if match := _BLAME.match(line):
            current = match.group(1).decode()
            shas.add(current)
        elif line == b"boundary":
            boundary.add(current)
    return shas - boundary


def find_outcomes(
    git_dir: Path, order: list[tuple[str, int, str, bool]], window: Window, workers: int = 2, progress: bool = False
) -> Found:
    """Outcomes of every commit in ``order`` (newest first: sha, time, message, is_merge) caused by
    later commits of ``order`` within ``window`` (a bar on stderr over the blame calls with ``progress``)."""
    from tqdm import tqdm

    position = {sha: i for i, (sha, *_rest) in enumerate(order)}
    times = {sha: when for sha, when, *_rest in order}
    found = Found()

    def within(change: str, later: str) -> bool:
        a, b = position[change], position[later]
        if b >= a:
            return False  # not later in the log
        if window.commits is not None:
            return a - b <= window.commits
        return times[later] - times[change] <= (window.days or 0) * 86400

    for sha, named in _named_reverts(order):
        if named in position and within(named, sha):
            found.reverted_by.setdefault(named, set()).add(sha)
    forward, backward = patch_ids(git_dir, len(order)), patch_ids(git_dir, len(order), reverse=True)
    by_patch: dict[str, list[str]] = {}
    for sha, pid in forward.items():
        by_patch.setdefault(pid, []).append(sha)
    for sha, pid in backward.items():
        for change in by_patch.get(pid, ()):
            if change != sha and change in position and sha in position and within(change, sha):
                found.reverted_by.setdefault(change, set()).add(sha)

    fixes = [sha for sha, _, message, merge in order if not merge and is_fix(message)]
    found.fixes = len(fixes)
    hunks = removed_lines(git_dir, fixes)
    jobs = [(fix, path, ranges) for fix in fixes for path, ranges in hunks.get(fix, {}).items()]
    found.blames = len(jobs)

    def since(fix: str) -> int | None:
        if window.commits is not None:
            edge = position[fix] + window.commits
            return order[edge][1] if edge < len(order) else None
        return times[fix] - int((window.days or 0) * 86400)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = pool.map(lambda job: (job[0], blamed(git_dir, job[0], job[1], job[2], since(job[0]))), jobs)
        shown = None if progress else True  # tqdm: None shows the bar only on a terminal
        bar = tqdm(
            results, total=len(jobs), desc="blaming", unit="blame", delay=1, disable=shown, file=sys.stderr, leave=False
        )
        for fix, changes in bar:
            for change in changes:
                if change in position and within(change, fix):
                    found.fixed_by.setdefault(change, set()).add(fix)
        bar.close()
    return found


def is_fix(message: str) -> bool:
    """Whether a commit message looks like a fix (``FIX_RULE`` on the subject; never a revert)."""
    subject = message.split("\n", 1)[0]
    return bool(FIX_RULE.search(subject)) and not _REVERT_SUBJECT.match(subject) and not REVERTS.search(message)


def _named_reverts(order: list[tuple[str, int, str, bool]]) -> Iterator[tuple[str, str]]:
    """(revert sha, full sha it names) for each ``This reverts commit`` line that names a commit of ``order``."""
    import bisect

    shas = sorted(sha for sha, *_rest in order)
    for sha, _, message, _merge in order:
        for prefix in REVERTS.findall(message):
            at = bisect.bisect_left(shas, prefix)
            hits = [s for s in shas[at : at + 2] if s.startswith(prefix)]
            if len(hits) == 1:  # an ambiguous prefix names nothing
                yield sha, hits[0]


__all__ = ["FIX_RULE", "Found", "Window", "find_outcomes", "is_fix", "parse_window"]
