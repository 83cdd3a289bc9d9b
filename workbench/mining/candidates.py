"""A history's candidates: the filters (``filters``) applied to git log's stream, cheapest first.

The log and file filters judge each entry as git log lists it; only the commits they keep are read
(one ``git cat-file --batch``, a batch ahead) and judged by the filters of the commit object, then
by the one stateful filter: one case per distinct query, the newest. ``dropped`` counts each drop
under the first filter that fails.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Iterator
from pathlib import Path

from .filters import (
    DUPLICATE,
    Candidate,
    MineFilters,
    SortedFiles,
    files_failure,
    log_failure,
    message_failure,
    sort_files,
)
from .history import LogEntry, read_commits


def listed_commits(
    entries: Iterable[LogEntry], options: MineFilters, dropped: Counter[str]
) -> Iterator[tuple[LogEntry, SortedFiles]]:
    """The log entries no log or file filter drops, with their sorted files (``dropped`` counts the
    rest): the commits worth reading."""
    for entry in entries:
        reason = log_failure(entry)
        if reason is None:
            files = sort_files(entry.decoded[0], options)
            reason = files_failure(files, options)
            if reason is None:
                yield entry, files
                continue
        dropped[reason] += 1


def read_candidates(
    git_dir: Path, listed: Iterable[tuple[LogEntry, SortedFiles]], options: MineFilters
) -> Iterator[Candidate]:
    """A ``Candidate`` of each listed entry, its commit object read (``read_commits``, which answers
    one commit per entry, in order, reading a batch ahead)."""
    waiting: deque[SortedFiles] = deque()  # the files of entries read ahead, not yet answered

    def entries() -> Iterator[LogEntry]:
        for entry, files in listed:
            waiting.append(files)
            yield entry

    for commit in read_commits(git_dir, entries()):
        yield Candidate(commit, options, waiting.popleft())


def apply_filters(candidates: Iterable[Candidate], options: MineFilters, dropped: Counter[str]) -> Iterator[Candidate]:
    """The candidates (past the log and file filters) that pass the filters of the commit object, one
    per distinct query (the newest); ``dropped`` counts the rest."""
    seen: set[str] = set()
    for candidate in candidates:
        reason = message_failure(candidate, options)
        if reason is None and candidate.key in seen:
            reason = DUPLICATE
        if reason is not None:
            dropped[reason] += 1
            continue
        seen.add(candidate.key)
        yield candidate


def mined_candidates(
    git_dir: Path, entries: Iterable[LogEntry], options: MineFilters, dropped: Counter[str]
) -> Iterator[Candidate]:
    """The candidates among ``entries`` (newest first): the log and file filters on git log's entries,
    then the commit objects of those they keep read and filtered (``dropped`` counts every drop)."""
    return apply_filters(read_candidates(git_dir, listed_commits(entries, options, dropped), options), options, dropped)
