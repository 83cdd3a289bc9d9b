"""Which commits become cases: named predicates, applied in order, first failure drops.

Each filter says why a commit is not a task (a merge, a release, a bot, a change to
docs only, ...). The name of the first filter a commit fails is counted, so ``workbench mine
--dry-run`` can print how many commits each one dropped. The filters that read only git log's
entry (its parents and changed files) come first: the commits they drop, a third to two thirds of
a history's, are never read. Which commits are kept does not depend on the order; only which
filter a dropped commit is counted under does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ..code.kinds import CODE_EXTENSIONS, excluded_by, extension, file_kind, is_test_path
from ..corpus.scope import MINED_SCOPE
from .history import Commit
from .messages import (
    CHORE_SUBJECT,
    DEPENDENCY_SUBJECT,
    RELEASE_SUBJECT,
    REVERT,
    STYLE_SUBJECT,
    VAGUE,
    cut_off,
    dangles,
    is_bot,
)
from .queries import build_query, query_key

if TYPE_CHECKING:
    import pathspec

# Kinds of code file that are not the product's source (the engine's file kinds).
NOT_SOURCE_KINDS = frozenset({"test", "fixture", "doc", "translation", "migration", "manifest", "script"})
TEST_KINDS = frozenset({"test", "fixture"})
MANIFESTS = frozenset(
    {
        "package.json",
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "go.mod",
        "go.sum",
        "pyproject.toml",
        "setup.cfg",
        "setup.py",
        "Pipfile",
        "Pipfile.lock",
        "poetry.lock",
        "uv.lock",
        "Cargo.toml",
        "Cargo.lock",
        "Gemfile",
        "Gemfile.lock",
        "composer.json",
        "composer.lock",
        "tox.ini",
        "bun.lockb",
        "deno.json",
        "deno.lock",
    }
)
# A build output that mirrors the source tree (``deno/lib/x.ts`` beside ``src/x.ts``): generated.
_MIRROR_DIRS = frozenset({"lib", "dist", "esm", "cjs", "es", "deno", "build", "out", "types", "umd", "bundle"})


@dataclass
class MineFilters:
    """What counts as a case: date range, paths, languages, file count, query form."""

    since: int | None = None  # Unix seconds, inclusive
    until: int | None = None
    paths: tuple[str, ...] = ()  # gitwildmatch globs a source file must match
    extensions: frozenset[str] = CODE_EXTENSIONS
    max_files: int = 3
    min_words: int = 3
    with_body: bool = False

    _kinds: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)
    _kinds_of: frozenset[str] = field(default=frozenset(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._spec: pathspec.PathSpec | None = None
        if self.paths:
            import pathspec

            self._spec = pathspec.PathSpec.from_lines("gitignore", self.paths)

    def in_paths(self, path: str) -> bool:
        return self._spec is None or self._spec.match_file(path)

    def path_role(self, path: str) -> str:
        """``test``, ``source`` or why ``path`` is neither (``not_source_reason``), worked out once per
        path (and ``extensions``): the same files change again and again over a history."""
        if self._kinds_of is not self.extensions:
            self._kinds, self._kinds_of = {}, self.extensions
        role = self._kinds.get(path)
        if role is None:
            role = "test" if is_test(path) else "source" if is_source(path, self) else not_source_reason(path, self)
            self._kinds[path] = role
        return role


class Candidate:
    """A commit with its files sorted into modified source, added/deleted source and tests, and its
    query; the query is worked out the first time a filter (or a case) asks, so a commit an earlier
    filter drops never pays for it. ``files`` are given when the log stage sorted them already."""

    __slots__ = ("_files", "_key", "_options", "_query", "commit")

    def __init__(self, commit: Commit, options: MineFilters, files: SortedFiles | None = None) -> None:
        self.commit = commit
        self._options = options
        self._files = files
        self._query: str | None = None
        self._key: str | None = None

    @property
    def files(self) -> SortedFiles:
        if self._files is None:
            self._files = sort_files(self.commit.changes, self._options)
        return self._files

    @property
    def source(self) -> tuple[str, ...]:
        return self.files.source

    @property
    def new_or_gone(self) -> tuple[str, ...]:
        return self.files.new_or_gone

    @property
    def tests(self) -> tuple[str, ...]:
        return self.files.tests

    @property
    def query(self) -> str:
        if self._query is None:
            self._query = build_query(self.commit.subject, self.commit.body, self._options.with_body)
        return self._query

    @property
    def key(self) -> str:
        if self._key is None:
            self._key = query_key(self.query)
        return self._key


def is_source(path: str, options: MineFilters) -> bool:
    """A non-test source file in one of the languages mined that ``MINED_SCOPE`` allows as gold (the
    engine's kinds decide what is a test, a doc, an example or generated)."""
    return (
        extension(path.rsplit("/", 1)[-1]) in options.extensions
        and file_kind(path) not in NOT_SOURCE_KINDS
        and excluded_by(path, MINED_SCOPE.exclude) is None
    )


def is_test(path: str) -> bool:
    """A test or fixture by the engine's kinds, or one they miss: under a ``testsuite/``-like
    directory, or named like ``index.test-d.ts`` (type tests)."""
    return is_test_path(path)


@dataclass(frozen=True)
class SortedFiles:
    """A change's files: modified source (the gold), added/deleted source, tests, and the rest with why."""

    source: tuple[str, ...]
    new_or_gone: tuple[str, ...]
    tests: tuple[str, ...]
    dropped: dict[str, str]  # path -> why it is not gold

    @property
    def out_of_scope(self) -> bool:
        """Whether a modified file was kept from the gold by the corpus rule (an example, generated)."""
        return any(why.startswith(OUT_OF_SCOPE) for why in self.dropped.values())


def not_source_reason(path: str, options: MineFilters) -> str:
    """Why ``path`` (neither a test nor gold source) is not gold: its kind, the corpus rule, or not a
    mined language."""
    kind = file_kind(path)
    if kind in NOT_SOURCE_KINDS:
        return f"{kind} file"
    suffix = extension(path.rsplit("/", 1)[-1])
    excluded = excluded_by(path, MINED_SCOPE.exclude)
    if excluded is not None and suffix in options.extensions:
        return f"{OUT_OF_SCOPE}: {excluded}"  # a source file the corpus rule keeps from the gold
    return f"not a source language ({suffix or 'no extension'})"


def sort_files(changes: Iterable[tuple[str, str]], options: MineFilters) -> SortedFiles:
    """Sort ``(status, path)`` changes (``M`` modified, anything else added, deleted or renamed) the one
    way ``mine`` and ``import swebench`` both use: tests, modified source, other source, dropped."""
    source: list[str] = []
    gone: list[str] = []
    tests: list[str] = []
    dropped: dict[str, str] = {}
    for status, path in changes:
        role = options.path_role(path)
        if role == "test":
            tests.append(path)
        elif role == "source":
            (source if status == "M" else gone).append(path)
        else:
            dropped[path] = role
    for path, original in mirrors(source).items():
        source.remove(path)
        dropped[path] = f"{OUT_OF_SCOPE}: generated (a build mirror of {original})"
    return SortedFiles(tuple(sorted(set(source))), tuple(sorted(set(gone))), tuple(sorted(set(tests))), dropped)


def mirrors(paths: list[str]) -> dict[str, str]:
    """The paths that are a build output's copy of another changed path, each with its original:
    ``deno/lib/types.ts`` beside ``src/types.ts`` (the same path below the source root, under a
    directory builds write to: ``lib``, ``dist``, ``esm``, ``deno``, ...)."""
    found: dict[str, str] = {}
    by_tail: dict[str, list[str]] = {}
    for path in paths:
        parts = path.split("/")
        if "src" in parts[:-1]:
            by_tail.setdefault("/".join(parts[parts.index("src") + 1 :]), []).append(path)
    for path in paths:
        parts = path.split("/")
        for cut in range(len(parts) - 1):
            if parts[cut] in _MIRROR_DIRS and "src" not in parts[: cut + 1]:
                originals = [o for o in by_tail.get("/".join(parts[cut + 1 :]), []) if o != path]
                if originals:
                    found[path] = originals[0]
                    break
    return found


def classify(commit: Commit, options: MineFilters) -> Candidate:
    return Candidate(commit, options)


class Listed(Protocol):
    """What ``git log`` alone says of a commit (a ``LogEntry``, or the ``Commit`` read from it)."""

    @property
    def parents(self) -> tuple[str, ...]: ...

    @property
    def odd_paths(self) -> bool: ...


Predicate = Callable[[Candidate, MineFilters], bool]  # True keeps the commit


@dataclass(frozen=True)
class Filter:
    name: str
    description: str
    keep: Predicate


@dataclass(frozen=True)
class LogFilter:
    """A filter that needs only what ``git log`` lists (run before the commit object is read)."""

    name: str
    description: str
    keep: Callable[[Listed], bool]


@dataclass(frozen=True)
class FileFilter:
    """A filter that reads only the commit's changed files, sorted (``sort_files``): it too runs on git
    log's entry, so the commits it drops are never read."""

    name: str
    description: str
    keep: Callable[[SortedFiles, MineFilters], bool]


def _only_manifests(c: Candidate) -> bool:
    names = [path.rsplit("/", 1)[-1] for path in c.commit.paths()]
    return bool(names) and all(n in MANIFESTS or n.startswith("requirements") for n in names)


# The first filters, in order: they read only the log entry, so a commit they drop is never read.
LOG_FILTERS: tuple[LogFilter, ...] = (
    LogFilter(
        "odd-path",
        "a changed file name with a newline, control character or bytes that are not UTF-8",
        lambda e: not e.odd_paths,
    ),
    LogFilter("merge", "merge commits", lambda e: len(e.parents) <= 1),
    LogFilter("root", "the first commit (no parent revision to run at)", lambda e: len(e.parents) == 1),
)
# Then, in order, the filters of the changed files (from the log entry too).
FILE_FILTERS: tuple[FileFilter, ...] = (
    FileFilter(
        "out-of-scope",
        "modifies only files the corpus rule keeps from the gold (examples, generated mirrors)",
        lambda f, o: bool(f.source) or not f.out_of_scope,
    ),
    FileFilter(
        "no-source", "no existing source file modified (docs-, config- or test-only)", lambda f, o: bool(f.source)
    ),
    FileFilter("new-or-deleted-source", "adds, deletes or renames a source file", lambda f, o: not f.new_or_gone),
    FileFilter(
        "too-many-files",
        "modifies more source files than the maximum (3 by default)",
        lambda f, o: len(f.source) <= o.max_files,
    ),
    FileFilter("path", "a source file outside --path", lambda f, o: all(o.in_paths(p) for p in f.source)),
)
# The rest, in order, on the commit object (author, time, message).
FILTERS: tuple[Filter, ...] = (
    Filter("bot", "commits by bots", lambda c, o: not (is_bot(c.commit.author) or is_bot(c.commit.email))),
    Filter(
        "date",
        "outside --since/--until",
        lambda c, o: (o.since is None or c.commit.time >= o.since) and (o.until is None or c.commit.time <= o.until),
    ),
    Filter("revert", "reverts", lambda c, o: not REVERT.search(c.commit.subject)),
    Filter("release", "releases and version bumps", lambda c, o: not RELEASE_SUBJECT.search(c.commit.subject)),
    Filter(
        "dependency",
        "dependency-only changes",
        lambda c, o: not (DEPENDENCY_SUBJECT.search(c.commit.subject) or _only_manifests(c)),
    ),
    Filter(
        "docs-ci-chore", "docs, CI, test and chore changes", lambda c, o: not CHORE_SUBJECT.search(c.commit.subject)
    ),
    Filter(
        "style-only",
        "style, formatting, import order, comment and typo changes",
        lambda c, o: not STYLE_SUBJECT.search(c.commit.subject),
    ),
    Filter(
        "vague-query",
        "the cleaned subject is too short or says nothing",
        lambda c, o: len(c.key.split()) >= o.min_words and not VAGUE.match(c.key),
    ),
    Filter(
        "dangling-query",
        "the query ends in a preposition or article, or the subject stops mid-sentence",
        lambda c, o: not (dangles(c.query) or cut_off(c.commit)),
    ),
)
OUT_OF_SCOPE = "out of goldScope"  # why a modified file the corpus rule excludes is not gold
DUPLICATE = "duplicate-query"  # the last, stateful filter: one case per distinct query


def log_failure(listed: Listed) -> str | None:
    """The name of the first log filter that drops a commit, or None."""
    for item in LOG_FILTERS:
        if not item.keep(listed):
            return item.name
    return None


def files_failure(files: SortedFiles, options: MineFilters) -> str | None:
    """The name of the first file filter that drops a commit with these changed files, or None."""
    for item in FILE_FILTERS:
        if not item.keep(files, options):
            return item.name
    return None


def message_failure(candidate: Candidate, options: MineFilters) -> str | None:
    """The name of the first filter of the commit object that drops ``candidate``, or None."""
    for item in FILTERS:
        if not item.keep(candidate, options):
            return item.name
    return None


def first_failure(candidate: Candidate, options: MineFilters) -> str | None:
    """The name of the first filter that drops ``candidate``, or None when it is kept."""
    return (
        log_failure(candidate.commit) or files_failure(candidate.files, options) or message_failure(candidate, options)
    )


def filter_names() -> list[str]:
    """Every filter name in the order applied (for the dry-run table)."""
    return [f.name for f in LOG_FILTERS] + [f.name for f in FILE_FILTERS] + [f.name for f in FILTERS] + [DUPLICATE]
