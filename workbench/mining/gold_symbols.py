"""Gold symbols from a diff: the definitions a change edits, as ``path:Name`` (``expectedSymbols``).

One rule for ``workbench mine`` (the commit's diff against its parent) and ``workbench import
swebench`` (the gold patch against ``base_commit``), read from a unified diff with any context:

- every non-blank line a hunk removes or replaces is looked up at the old revision; the
  innermost definition enclosing it (``workbench.code.enclosing``: classes, functions and
  methods, everything inside a function body belonging to that function) is a gold symbol;
- a run of added lines that replaces no non-blank line is an insertion after old line ``a``: it
  belongs to the innermost definition holding both ``a`` and ``a + 1`` (code added before a
  closing brace, or between two statements of a body); in Python, where a body has no closing
  line, lines added right after a definition's last line and indented deeper than its ``def``
  or ``class`` line continue it (a statement appended to a method gives the method, a method
  appended to a class gives the class, a new top-level function gives nothing);
- blank lines, module-level lines, new files and languages the reference engine does not parse
  give nothing. The old path names the file (a renamed file keeps its old name: the case runs
  at the old revision).
"""

from __future__ import annotations

import re
import subprocess
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from ..code.enclosing import Range, definition_ranges, enclosing
from ..code.kinds import PYTHON_EXTENSIONS
from ..corpus.gitio import git_command, git_env
from ..errors import GitError

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_INDEX = re.compile(r"^index ([0-9a-f]{40}|[0-9a-f]{64})\.\.[0-9a-f]+(?: [0-7]+)?$")
_OLD = re.compile(r"^--- (?:a/)?(.+?)\t?$")
_INDENT_LANGUAGES = PYTHON_EXTENSIONS


@dataclass(frozen=True)
class Change:
    """One old line a diff removes (``inserted`` False), or an insertion after old line ``line``
    (``indent``: the columns of its first non-blank added line)."""

    line: int
    inserted: bool = False
    indent: int = 0


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" \t"))


def _flush(removed: list[tuple[int, str]], added: list[str], before: int, out: list[Change]) -> None:
    """The changes of one block of ``-`` lines then ``+`` lines that follows old line ``before``."""
    kept = [line for line, text in removed if text.strip()]
    out.extend(Change(line) for line in kept)
    content = [text for text in added if text.strip()]
    if content and not kept:
        out.append(Change(before, True, _indent(content[0])))


def diff_changes(patch: str) -> dict[str, list[Change]]:
    """The changes of each old path of a unified diff (any context), in diff order. Hunk line
    counts are followed, so content that looks like a header (``--- x`` removed) is content."""
    out: dict[str, list[Change]] = {}
    lines = patch.split("\n")
    index = 0
    path: str | None = None
    while index < len(lines):
        line = lines[index].rstrip("\r")
        index += 1
        if line.startswith("--- "):
            match = _OLD.match(line)
            path = match.group(1) if match and match.group(1) != "/dev/null" else None
            continue
        hunk = _HUNK.match(line) if path is not None else None
        if hunk is None or path is None:
            continue
        old_left = 1 if hunk.group(2) is None else int(hunk.group(2))
        new_left = 1 if hunk.group(3) is None else int(hunk.group(3))
        old = int(hunk.group(1)) if old_left else int(hunk.group(1)) + 1
        changes = out.setdefault(path, [])
        removed: list[tuple[int, str]] = []
        added: list[str] = []
        while index < len(lines) and (old_left > 0 or new_left > 0):
            body = lines[index]
            index += 1
            mark, text = body[:1], body[1:]
            if mark == "\\":
                continue  # "\ No newline at end of file"
            if mark == "-" and old_left > 0:
                if added:  # "+" lines then "-" lines: two blocks
                    _flush(removed, added, (removed[0][0] if removed else old) - 1, changes)
                    removed, added = [], []
                removed.append((old, text))
                old, old_left = old + 1, old_left - 1
            elif mark == "+" and new_left > 0:
                added.append(text)
                new_left -= 1
            elif mark not in (" ", ""):
                index -= 1  # not hunk content (a malformed count): the hunk ends here
                break
            else:  # context (" ", or an empty line some tools write for a blank context line)
                _flush(removed, added, (removed[0][0] if removed else old) - 1, changes)
                removed, added = [], []
                old, old_left, new_left = old + 1, old_left - 1, new_left - 1
        _flush(removed, added, (removed[0][0] if removed else old) - 1, changes)
    return out


def old_blob_ids(patch: str) -> dict[str, str]:
    """The old blob id of each old path of a ``--full-index`` diff: the ``index`` line of a file's header,
    when the header's ``--- a/path`` line follows it (a binary file or a mode change has none). No hunk
    line can pass for the pair: each starts with a mark (`` ``, ``+``, ``-``, ``\\``), never ``index``,
    and a removed ``-- x`` line reads as ``--- x`` only after the header's own was taken."""
    out: dict[str, str] = {}
    blob: str | None = None
    for raw in patch.split("\n"):
        line = raw.rstrip("\r")
        if (found := _INDEX.match(line)) is not None:
            blob = found.group(1)
        elif line.startswith("--- ") and blob is not None:
            match = _OLD.match(line)
            if match and match.group(1) != "/dev/null":
                out[match.group(1)] = blob
            blob = None
        elif line.startswith("diff "):
            blob = None
    return out


def _continued(ranges: list[Range], rows: list[bytes], line: int, indent: int, outer: str | None) -> str | None:
    """The innermost definition ending at old line ``line`` (the last non-blank line up to it)
    whose header is indented less than ``indent``: an indented insertion continues its body."""
    last = line
    while last > 0 and last <= len(rows) and not rows[last - 1].strip():
        last -= 1
    best: Range | None = None
    for found in ranges:
        name, start, end = found
        if end != last or start > len(rows) or name == outer:
            continue
        header = rows[start - 1].decode("utf-8", "replace")
        if _indent(header) < indent and (best is None or end - start < best[2] - best[1]):
            best = found
    return best[0] if best else None


def symbols_of_changes(path: str, data: bytes, changes: list[Change], ranges: list[Range] | None = None) -> list[str]:
    """``path:Name`` of each definition of ``data`` (the file at the old revision) that ``changes``
    edit, in the order of their first change, without repeats. ``ranges``: the file's definition
    ranges when the caller has them (cached), else they are computed here."""
    ranges = definition_ranges(path, data) if ranges is None else ranges
    if not ranges:
        return []
    indented = path.endswith(_INDENT_LANGUAGES)
    found: dict[str, None] = {}
    rows: list[bytes] | None = None
    for change in changes:
        if not change.inserted:
            name = enclosing(ranges, change.line, change.line)
        else:
            name = enclosing(ranges, change.line, change.line + 1)
            if indented:
                rows = data.split(b"\n") if rows is None else rows
                name = _continued(ranges, rows, change.line, change.indent, name) or name
        if name is not None:
            found.setdefault(name, None)
    return [f"{path}:{name}" for name in found]


def patch_symbols(patch: str, files: dict[str, bytes]) -> list[str]:
    """The gold symbols of ``patch`` over ``files`` (old path -> bytes at the old revision), in the
    order of ``files``; a file the patch does not change gives none."""
    changes = diff_changes(patch)
    return [symbol for path, data in files.items() for symbol in symbols_of_changes(path, data, changes.get(path, []))]


def commit_patches(git_dir: Path, pairs: list[tuple[str, str]], paths: list[str]) -> dict[str, str]:
    """The ``-U0`` diff of each ``(commit, parent)``, keyed by commit, from one ``git diff-tree --stdin``
    process, for at least ``paths`` (a commit with no change to them may be absent). A file's patch
    does not depend on the others, so it is the same however the diff is limited."""
    reader = PatchReader(git_dir, pairs, paths)
    reader.run()
    return reader.upto(len(pairs))


class PatchReader:
    """``commit_patches`` read as git writes them: ``run`` (in a thread) fills them in, pair by pair,
    and ``upto(n)`` waits only until the first ``n`` pairs' diffs are in, so the first cases need not
    wait for the last one's (git answers in the order it is asked)."""

    def __init__(
        self, git_dir: Path, pairs: list[tuple[str, str]], paths: list[str], others: Iterable[str] = ()
    ) -> None:
        self._git_dir, self._pairs, self._paths, self._others = git_dir, pairs, paths, others
        self._index = {commit: index for index, (commit, _) in enumerate(pairs)}
        self._lines: dict[str, list[str]] = {}
        self._settled = 0  # pairs whose diff is complete (or absent)
        self._error: BaseException | None = None
        self._ready = threading.Condition()

    def run(self) -> None:
        """Run git and take its output in; an error is raised by ``upto``."""
        try:
            if self._pairs and self._paths:
                self._read()
        except BaseException as error:  # handed to the waiting thread
            self._error = error
        with self._ready:
            self._settled = len(self._pairs)
            self._ready.notify_all()

    def upto(self, count: int, commits: list[str] | None = None) -> dict[str, str]:
        """The diffs of ``commits`` (by default all) among the first ``count`` pairs, keyed by commit,
        once those pairs are in."""
        with self._ready:
            self._ready.wait_for(lambda: self._settled >= count)
            if self._error is not None:
                raise self._error
            wanted = [c for c, _ in self._pairs[:count]] if commits is None else commits
            return {commit: "\n".join(self._lines[commit]) for commit in wanted if commit in self._lines}

    def _read(self) -> None:
        args = ["diff-tree", "--stdin", "-p", "-U0", "--full-index", "--no-renames", "--no-color", "--no-ext-diff"]
        args += ["--no-textconv"]
        specs = suffix_pathspecs(self._paths)
        if any(spec.startswith("*") for spec in specs):
            specs += [f":(exclude,literal){folder}" for folder in excluded_folders(self._paths, self._others)]
        args += ["--src-prefix=a/", "--dst-prefix=b/", "--", *specs]
        feed = "".join(f"{commit} {parent}\n" for commit, parent in self._pairs).encode()
        pending = set(self._index)
        current: list[str] | None = None
        for line in feed_lines(self._git_dir, args, feed):
            if line in pending:  # a commit's id line (no diff line is 40 or 64 bare hex digits)
                pending.discard(line)
                with self._ready:
                    current = self._lines.setdefault(line, [])
                    self._settled = self._index[line]  # the pairs before it are complete
                    self._ready.notify_all()
            elif current is not None:
                current.append(line)


def feed_lines(git_dir: Path, args: list[str], feed: bytes) -> Iterator[str]:
    """The lines of one git command's stdout (``stdout.decode("utf-8", "replace").split("\n")``, as
    git writes them), ``feed`` written to its stdin meanwhile; its failure is a GitError at the end."""
    try:
        process = subprocess.Popen(
            git_command(git_dir, *args), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=git_env(),
        )  # fmt: skip
    except FileNotFoundError:
        raise GitError("git is not installed (needed to read repository history)") from None
    stdin, stdout, stderr = (
        cast(IO[bytes], process.stdin),
        cast(IO[bytes], process.stdout),
        cast(IO[bytes], process.stderr),
    )
    writer = threading.Thread(target=_write_and_close, args=(stdin, feed), daemon=True)
    writer.start()
    last = b"\n"
    for raw in stdout:
        last = raw
        yield (raw[:-1] if raw.endswith(b"\n") else raw).decode("utf-8", "replace")
    if last.endswith(b"\n"):
        yield ""
    writer.join()
    message = stderr.read().decode("utf-8", "replace").strip().splitlines()
    if process.wait() != 0:
        raise GitError(f"{git_dir}: git {args[0]} failed: {message[-1] if message else process.returncode}")


def _write_and_close(stream: IO[bytes], data: bytes) -> None:
    try:
        stream.write(data)
        stream.close()
    except OSError:  # git stopped reading: its exit status says why
        pass


_GLOB_CHARS = frozenset("*?[]\\")
_EXCLUDED = 32  # folders left out of the diffs at most (git matches each changed file against each)


def suffix_pathspecs(paths: list[str]) -> list[str]:
    """Pathspecs matching every one of ``paths``: one ``*<suffix>`` per file-name suffix (``*.py``), else
    the paths themselves. Git matches each changed file against every pathspec, so thousands of
    literal paths (a 2,000-case mine) cost seconds a handful of suffixes does not (a pathspec's ``*``
    crosses ``/``)."""
    suffixes: set[str] = set()
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        dot = name.rfind(".")
        if dot <= 0 or _GLOB_CHARS.intersection(name[dot:]):
            return sorted(set(paths))
        suffixes.add("*" + name[dot:])
    return sorted(suffixes)


def excluded_folders(paths: Iterable[str], others: Iterable[str], most: int = _EXCLUDED) -> list[str]:
    """Folders holding none of ``paths`` where ``others`` (other files the commits change: their tests)
    lie, the shallowest of each and the ``most`` holding most of them: diffs limited by suffix can leave
    them out, and git then reads and diffs none of their files (a file's patch is the same either way)."""
    held = {path[:at] for path in paths for at in range(len(path)) if path[at] == "/"}
    counts: Counter[str] = Counter()
    for other in others:
        at = other.find("/")
        while at >= 0 and other[:at] in held:
            at = other.find("/", at + 1)
        if at >= 0:
            counts[other[:at]] += 1
    return sorted(folder for folder, _ in counts.most_common(most))
