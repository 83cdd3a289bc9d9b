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
(``surviving``): the same commits, the same counts, in the same order.

The helper keeps its half's candidates and sends back only their keys (``older_keys``): thousands of
pickled commits would cross the pipe while both processes wait, and a sample takes few of them. The
merge needs the keys; the sample's picks among the older half are then asked for (``Kept.take``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from pathlib import Path

from .candidates import mined_candidates
from .filters import DUPLICATE, Candidate, MineFilters
from .history import LogEntry, count_commits, log_entries

SPLIT_MIN = 20_000  # commits below which splitting pays less than the helper's extra walk
Half = tuple[list[Candidate], Counter[str], int]  # kept candidates (newest first), drops, commits read
Keys = tuple[list[str], Counter[str], int]  # the keys of a half's kept candidates, drops, commits read
Fetch = Callable[[list[int]], list[Candidate]]  # the older half's candidates at some indices
_held: list[Candidate] = []  # the older half's candidates, kept in the helper until its picks are asked


def older_half(git_dir: Path, skip: int, options: MineFilters) -> Half:
    """The candidates among the commits after the first ``skip`` (newest first), their drop counts and
    how many commits were read; duplicates are checked within this half only. Runs in the helper."""
    dropped: Counter[str] = Counter()
    entries = Counted(log_entries(git_dir, skip=skip))
    kept = list(mined_candidates(git_dir, entries, options, dropped))
    return kept, dropped, entries.count


def older_keys(git_dir: Path, skip: int, options: MineFilters) -> Keys:
    """``older_half``, its candidates kept in this process (the helper) and only their keys sent back."""
    kept, dropped, count = older_half(git_dir, skip, options)
    _held[:] = kept
    return [candidate.key for candidate in kept], dropped, count


def held(indices: list[int]) -> list[Candidate]:
    """The candidates ``older_keys`` kept at ``indices``; the rest are let go. Runs in the helper."""
    out = _at(_held, indices)
    _held.clear()
    return out


class Kept:
    """Every candidate kept, as positions oldest first: the newer half's are here (``newer``, newest
    first); the older half's are indices into the helper's list (``older``, newest first), fetched
    (``fetch``) for the positions ``take`` is asked for, in one round trip. ``take`` is asked once: the
    helper lets its half go then."""

    def __init__(self, newer: list[Candidate], older: list[int] | None = None, fetch: Fetch | None = None) -> None:
        self._newer, self._older, self._fetch = newer, older or [], fetch

    def __len__(self) -> int:
        return len(self._newer) + len(self._older)

    def take(self, positions: Iterable[int]) -> list[Candidate]:
        """The candidates at ``positions`` (0 is the oldest), in that order."""
        newest_first = [len(self) - 1 - position for position in positions]
        split = len(self._newer)
        wanted = sorted({self._older[at - split] for at in newest_first if at >= split})
        # Asked even for none: the helper then lets its half go.
        found = dict(zip(wanted, self._fetch(wanted), strict=True)) if self._older and self._fetch else {}
        return [self._newer[at] if at < split else found[self._older[at - split]] for at in newest_first]


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
        self._older: Future[Keys] | None = None
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
            self._older = self._helper.submit(older_keys, self._git_dir, self._limit, self._options)

    def older(self, newer_kept: list[Candidate]) -> tuple[Kept, Counter[str], int]:
        """Every candidate kept (``newer_kept`` and the older half's, less those whose query the newer
        half kept), the older half's drops (those included) and its commit count; the newer half's
        alone when the history was not split. A helper that died has its half read here."""
        if self._limit is None:
            self._start(0)  # a history shorter than SPLIT_MIN // 2 ends before K is asked for
        if self._older is None:
            return Kept(newer_kept), Counter(), 0
        fetch: Fetch = self._held
        try:
            keys, dropped, commits = self._older.result()
        except BrokenProcessPool:
            here, dropped, commits = self._reread()
            keys = [candidate.key for candidate in here]
            fetch = partial(_at, here)
        return Kept(newer_kept, surviving(newer_kept, keys, dropped), fetch), dropped, commits

    def _held(self, indices: list[int]) -> list[Candidate]:
        """The helper's candidates at ``indices``; read here if the helper died since it sent the keys."""
        try:
            return self._helper.submit(held, indices).result()
        except BrokenProcessPool:
            return _at(self._reread()[0], indices)

    def _reread(self) -> Half:
        return older_half(self._git_dir, self._limit or 0, self._options)


def _at(candidates: list[Candidate], indices: list[int]) -> list[Candidate]:
    return [candidates[index] for index in indices]


def surviving(newer_kept: list[Candidate], older_keys: list[str], dropped: Counter[str]) -> list[int]:
    """The indices of the older half's candidates (by their keys, ``older_keys``) whose query
    ``newer_kept`` does not hold, the others counted as duplicates in ``dropped``: what one pass over
    both halves would have kept of the older one."""
    seen = {candidate.key for candidate in newer_kept}
    out = []
    for index, key in enumerate(older_keys):
        if key in seen:
            dropped[DUPLICATE] += 1
        else:
            out.append(index)
    return out
