"""What mining reads from each gold file at its parent revision, computed once per blob.

A shape needs the symbol names a gold file defines; the gold symbols need its definition
ranges. Both are kept per (blob id, extension), so a file unchanged across sampled commits is
read once however many cases expect it. A blob that needs both is parsed once (``ast`` for
Python, tree-sitter for TypeScript, JavaScript and Go, starting from the tree of the same path's
previous revision: ``reparse``): parsing is most of what mining costs.
A Python blob is read in groups of top-level statements, each checked by the compiler's symbol
pass and parsed with ``ast`` only where a case looks (``pyfacts``: the same names and ranges for
those lines and words as the whole parse); only the last few tree-sitter trees are kept, so memory
stays flat in the number of cases. On two cores or more, the Python blobs of a batch of cases are
read ahead, a share of their bytes in one forked helper process (``parse_helper``) that sends back
only names and ranges, while this process builds the previous batch's cases.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import OrderedDict
from collections.abc import Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..code.enclosing import Range
from ..code.forking import fork_is_safe, workers
from ..code.kinds import PYTHON_EXTENSIONS, extension
from ..code.outline import Outline
from ..code.tsranges import tree_ranges
from ..code.tssymbols import GRAMMARS, outline_from_root
from .pyfacts import Found, read, whole_facts
from .reparse import Reparser
from .shapes import symbol_names

Key = tuple[str, str]  # (blob id, extension)
Facts = tuple[frozenset[str], list[Range]]  # a blob's symbol names and definition ranges
HELPER_MIN_CASES = 64  # fewer cases parse too little to pay for a forked helper
_IGNORE_SIGINT = (signal.SIGINT, signal.SIG_IGN)


def python_facts(data: bytes) -> Facts:
    """Names and definition ranges of one Python blob from one ``ast`` parse (as ``GoldBlobs.names``
    and ``GoldBlobs.ranges`` give them: none of either when it does not parse)."""
    return whole_facts(data)


Need = tuple[bytes, frozenset[int], frozenset[bytes], frozenset[int]]  # data, lines, words, groups done


def _read_many(needs: list[Need]) -> list[Found]:
    """``pyfacts.read`` of each need: what the helper process runs."""
    return [read(*need) for need in needs]


@contextmanager
def parse_helper(cases: int) -> Iterator[Executor | None]:
    """One forked helper process for ``GoldBlobs.parse_ahead`` when it pays: two CPUs or more,
    ``cases`` >= ``HELPER_MIN_CASES``, and a process where forking is safe (``fork_is_safe``: no
    other thread). The helper is forked here, before the caller starts threads of its own; else None."""
    if workers() < 2 or cases < HELPER_MIN_CASES or not fork_is_safe():
        yield None
        return
    context = multiprocessing.get_context("fork")
    # Ctrl-C stops the mine in this process; the helper finishes its share quietly and is joined.
    with ProcessPoolExecutor(1, mp_context=context, initializer=signal.signal, initargs=_IGNORE_SIGINT) as helper:
        helper.submit(int).result()  # the fork happens now
        yield helper


Request = tuple[str, str, bytes, frozenset[int], frozenset[bytes]]  # blob id, path, bytes, lines, query words
_STEP, _LEAST, _MOST = 0.04, 0.2, 0.8  # how the helper's share moves, and its bounds


@dataclass
class Batch:
    """One batch's blobs to read: this process's, the helper's (sent as ``job``), and what each needs."""

    here: list[Key]
    there: list[Key]
    needs: dict[Key, Need]
    job: Future[list[Found]] | None


class GoldBlobs:
    """Symbol names and definition ranges of gold blobs, each computed once per (blob, extension).

    A Python blob's are read from the parts of it the cases look at (``pyfacts``): ``parse_ahead``
    is told each blob's changed lines and its case's query words, and ``names`` and ``ranges`` then
    give what was read, enough for those lines and words (the whole file's when it was read whole,
    or when a blob is asked for before ``parse_ahead`` saw it)."""

    def __init__(self, keep_trees: int = 3, helper: Executor | None = None) -> None:
        self._names: dict[Key, frozenset[str]] = {}
        self._ranges: dict[Key, list[Range]] = {}
        self._done: dict[Key, frozenset[int] | None] = {}  # Python blobs: groups read (None: whole)
        self._trees: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._keep = keep_trees
        self._reparser = Reparser()
        self._helper = helper
        self._side: dict[str, int] = {}  # path -> the process that read it (its groups are cached there)
        self._share = 0.5  # the helper's share of a batch's bytes (``finish`` moves it)
        self.parses = 0  # files parsed or read (what the cache saves is visible in tests)

    def parse_ahead(self, requests: list[Request]) -> None:
        """Read the Python blobs among ``requests`` for their lines and words (``pyfacts.read``), each
        once however many requests name it, part of them in the helper process meanwhile, if there is
        one: ``start``, ``read_here`` and ``finish`` at once."""
        batch = self.start(requests)
        self.read_here(batch)
        self.finish(batch)

    def start(self, requests: list[Request]) -> Batch:
        """Hand the helper its share of ``requests`` (the rest is ``read_here``'s): a share of the bytes
        that follows how far behind it was (``finish``), largest blobs first; a path goes where it went
        before (its groups are known there). Nothing waits here, so the helper may work on the next
        batch while this process builds the last one's cases."""
        todo: dict[Key, tuple[str, bytes, set[int], set[bytes]]] = {}
        for blob, path, data, lines, words in requests:
            key = (blob, extension(path.rsplit("/", 1)[-1]))
            if key[1] not in PYTHON_EXTENSIONS or self._done.get(key, frozenset()) is None:
                continue
            entry = todo.setdefault(key, (path, data, set(), set()))
            entry[2].update(lines)
            entry[3].update(words)
        sides: tuple[list[Key], list[Key]] = ([], [])
        weight = [0, 0]
        target = (1.0 - self._share, self._share)
        for key in sorted(todo, key=lambda k: -len(todo[k][1])):
            path = todo[key][0]
            side = 0
            if self._helper is not None:
                lighter = 0 if weight[0] * target[1] <= weight[1] * target[0] else 1
                side = self._side.setdefault(path, lighter)
            sides[side].append(key)
            weight[side] += len(todo[key][1])
        needs = {key: self._need(key, *todo[key][1:]) for key in todo}
        there = [needs[k] for k in sides[1]]
        job = self._helper.submit(_read_many, there) if there and self._helper is not None else None
        return Batch(sides[0], sides[1], needs, job)

    def read_here(self, batch: Batch) -> None:
        """Read this process's share of ``batch``."""
        for key in batch.here:
            self._store(key, read(*batch.needs[key]))

    def finish(self, batch: Batch) -> None:
        """Take the helper's share of ``batch`` in (read here if the helper died). A helper found done
        already may have idled: it gets a larger share of the next batch; one still at work, less."""
        if batch.job is None:
            return
        self._share = min(self._share + _STEP, _MOST) if batch.job.done() else max(self._share - _STEP, _LEAST)
        try:
            found = batch.job.result()
        except (BrokenProcessPool, OSError):  # the helper died: read its share here
            self._helper = None
            found = _read_many([batch.needs[k] for k in batch.there])
        for key, facts in zip(batch.there, found, strict=True):
            self._store(key, facts)

    def _need(self, key: Key, data: bytes, lines: set[int], words: set[bytes]) -> Need:
        done = self._done.get(key)
        return data, frozenset(lines), frozenset(words), frozenset() if done is None else done

    def _store(self, key: Key, found: Found) -> None:
        """Add what a read found (a blob read in two batches at once may bring a group twice: kept once)."""
        self.parses += 1
        done, names, ranges = found
        before = self._done.get(key, frozenset())
        if before is None:
            return  # already read whole
        if done is None or key not in self._done:
            self._names[key], self._ranges[key] = names, ranges
        else:
            self._names[key] = self._names[key] | names
            known = set(self._ranges[key])
            self._ranges[key] = self._ranges[key] + [found for found in ranges if found not in known]
            done = done | before
        self._done[key] = done

    def _whole(self, key: Key, data: bytes) -> None:
        self.parses += 1
        self._names[key], self._ranges[key] = python_facts(data)
        self._done[key] = None

    def names(self, blob: str, path: str, data: bytes) -> frozenset[str]:
        """The names ``path`` (bytes ``data``, git blob ``blob``) defines, as ``shapes.symbol_names``
        of ``shapes.outline_of`` (of a Python blob read ahead: those of the parts read)."""
        key = (blob, extension(path.rsplit("/", 1)[-1]))
        if key not in self._names:
            if key[1] in PYTHON_EXTENSIONS:
                self._whole(key, data)
            else:
                self._names[key] = frozenset(symbol_names(self._outline(key, path, data)))
        return self._names[key]

    def ranges(self, blob: str, path: str, data: bytes) -> list[Range]:
        """The definition ranges of ``path``, as ``code.enclosing.definition_ranges`` (of a Python blob
        read ahead: those of the parts read)."""
        key = (blob, extension(path.rsplit("/", 1)[-1]))
        if key not in self._ranges:
            if key[1] in PYTHON_EXTENSIONS:
                self._whole(key, data)
            else:
                self._ranges[key] = self._definitions(key, path, data)
        return self._ranges[key]

    def _outline(self, key: Key, path: str, data: bytes) -> Outline:
        tree = self._tree(key, path, data)
        try:
            if tree is None:
                return Outline()
            if key not in self._ranges:  # a TS/JS outline reads the ranges too: worked out once
                self._ranges[key] = tree_ranges(tree.root_node, GRAMMARS[key[1]])
            return outline_from_root(tree.root_node, GRAMMARS[key[1]], self._ranges[key])
        except (ValueError, RecursionError):
            return Outline()

    def _definitions(self, key: Key, path: str, data: bytes) -> list[Range]:
        tree = self._tree(key, path, data)
        if tree is None:
            return []
        try:
            return tree_ranges(tree.root_node, GRAMMARS[key[1]])
        except (ValueError, RecursionError):
            return []

    def _tree(self, key: Key, path: str, data: bytes) -> Any:
        """The tree-sitter ``Tree`` of the file (from the last tree of ``path``, ``reparse``), or None:
        unparsable or a language the engine does not parse (Python goes through ``python_facts``)."""
        kind = GRAMMARS.get(key[1], "")
        if not kind:
            return None
        slot = (key[0], kind)
        if slot in self._trees:
            self._trees.move_to_end(slot)
            return self._trees[slot]
        self.parses += 1
        tree: Any
        try:
            tree = self._reparser.parse(path, kind, data)
        except (ValueError, RecursionError, MemoryError):
            tree = None
        self._trees[slot] = tree
        if len(self._trees) > self._keep:
            self._trees.popitem(last=False)
        return tree
