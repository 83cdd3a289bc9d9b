"""A long history read in two halves at once: the newer in this process, the older in the helper.

Filtering a history's commits is Python work, one commit after another; on two cores a forked
helper process takes the older half (``git log --skip=K``: git walks the first K commits without
diffing them) while this process reads the newer K and stops there. The helper first counts the
commits (``git rev-list --count``), while this process already reads; K is what this process has
read by the time the count is in plus half of what is left, so both have as much left to read when
the helper starts, and this process never reads past ``SPLIT_MIN // 2`` commits before it knows K.
Histories shorter than ``SPLIT_MIN`` are read whole, here.

The halves give what one pass gives. Each filter judges a commit alone, so the drop counts add up;
the one stateful filter keeps the newest commit of each query: the older half keeps the newest of
its own, and a kept one whose query the newer half also kept is then dropped as a duplicate
(``merged``): the same commits, the same counts, in the same order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from .candidates import mined_candidates
from .filters import DUPLICATE, Candidate, MineFilters
from .history import LogEntry, count_commits, log_entries

SPLIT_MIN = 20_000  # commits below which splitting pays less than the helper's extra walk
Half = tuple[list[Candidate], Counter[str], int]  # kept candidates (newest first), drops, commits read


def older_half(git_dir: Path, skip: int, options: MineFilters) -> Half:
    """The candidates among the commits after the first ``skip`` (newest first), their drop counts and
    how many commits were read; duplicates are checked within this half only. Runs in the helper."""
    dropped: Counter[str] = Counter()
    entries = Counted(log_entries(git_dir, skip=skip))
    kept = list(mined_candidates(git_dir, entries, options, dropped))
    return kept, dropped, entries.count


class Counted:
    """Log entries passed through, counted."""

    def __init__(self, entries: Iterator[LogEntry]) -> None:
        self._entries = entries
        self.count = 0

    def __iter__(self) -> Iterator[LogEntry]:
        for entry in self._entries:
            self.count += 1
            yield entry


def _total(git_dir: Path, least: int) -> int:
    """How many commits the history holds (0: fewer than ``least``, not split). Runs in the helper."""
    total = count_commits(git_dir)
    return total if total >= least else 0


class Split:
    """The helper's side of one mine: the count, then the older half, and the merge of the two."""

    def __init__(self, helper: Executor, git_dir: Path, options: MineFilters) -> None:
        self._helper, self._git_dir, self._options = helper, git_dir, options
        self._least = SPLIT_MIN
        self._count: Future[int] | None = helper.submit(_total, git_dir, self._least)
        self._older: Future[Half] | None = None
        self._limit: int | None = None  # K once known; 0 when not split

    def newer(self, entries: Iterator[LogEntry]) -> Iterator[LogEntry]:
        """``entries`` up to K (all of them when the history is not split); git log is stopped there."""
        try:
            for index, entry in enumerate(entries):
                if self._limit is None and (index >= self._least // 2 or self._count_done()):
                    self._start(index)
                if self._limit and index >= self._limit:
                    return
                yield entry
        finally:
            close = getattr(entries, "close", None)
            if close is not None:
                close()

    def _count_done(self) -> bool:
        return self._count is None or self._count.done()

    def _start(self, read: int) -> None:
        """Learn K (waiting for the count if need be), ``read`` commits into the history, and hand the
        older half to the helper."""
        try:
            total = self._count.result() if self._count is not None else 0
        except BrokenProcessPool:
            total = 0
        self._limit = (total + read) // 2 if total > read else 0
        if self._limit:
            self._older = self._helper.submit(older_half, self._git_dir, self._limit, self._options)

    def older(self, newer_kept: list[Candidate]) -> Half:
        """The older half's candidates, less those whose query the newer half kept, with its drops
        (those included) and its commit count; nothing when the history was not split. A helper
        that died has its half read here."""
        if self._limit is None:
            self._start(0)  # a history shorter than SPLIT_MIN // 2 ends before K is asked for
        if self._older is None:
            return [], Counter(), 0
        try:
            kept, dropped, commits = self._older.result()
        except BrokenProcessPool:
            kept, dropped, commits = older_half(self._git_dir, self._limit or 0, self._options)
        return merged(newer_kept, kept, dropped), dropped, commits


def merged(newer_kept: list[Candidate], older_kept: list[Candidate], dropped: Counter[str]) -> list[Candidate]:
    """``older_kept`` without the candidates whose query ``newer_kept`` holds (counted as duplicates in
    ``dropped``): what one pass over both halves would have kept of the older one."""
    seen = {candidate.key for candidate in newer_kept}
    out = []
    for candidate in older_kept:
        if candidate.key in seen:
            dropped[DUPLICATE] += 1
        else:
            out.append(candidate)
    return out
