"""The symbol table of an indexed repository: one ranked document per defined symbol.

Each symbol of every file's outline (functions, classes, methods, types, constants,
variables) becomes a BM25F document with four fields: its own name split into words,
its owner (the class of a method), its file's name and folders, and its body (the lines
from the comments and decorators just above it to the next symbol, so doc comments,
docstrings and route decorators count). The lookup keys of every name (``SymbolTable.keys``) are
made at the first lookup: a pack's file ranking reads only the fitted model (``prose``), a search
looks names up. Bodies come from the cold index, which computed
them where it parsed each file (``bodies``); the table is kept in memory per tree and in
the disk cache beside the index. Once this module is loaded, a large tree parsed afresh has its
table built in a forked child while the index links (``prebuild``), so a first search finds it
ready or nearly.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from multiprocessing.process import BaseProcess
from pathlib import Path

import numpy as np

from ..code.collector import collector_paused
from ..code.kinds import extension
from ..code.outline import MAJOR_KINDS
from . import bodies, cache, ranking
from .bodies import Body, Symbol, symbol_bodies
from .extract import FileFacts
from .fields import compound_parts, path_fields
from .index import INDEX_VERSION, LARGE_TREE_PARSED, RepoIndex
from .memo import BoundedMemo
from .text import identifier_terms, split_identifier, stem, terms

TABLE_VERSION = f"{INDEX_VERSION}-{bodies.BODIES_VERSION}-{cache.code_digest('symtable')}"
WEIGHTS = {"name": 6.0, "owner": 2.0, "file": 1.5, "dir": 0.5, "body": 1.0}
B = {"name": 0.3, "owner": 0.3, "file": 0.2, "dir": 0.2, "body": 0.75}
# What a kind of symbol is worth when nothing else tells two symbols apart: a plain variable
# is more often wiring. (Constructors and underscored names used to count 0.6 and 0.75: a reader
# rarely starts there, but edits land there as often as anywhere, issue 21.)
KIND_PRIOR = {"method": 1.0, "constant": 0.9, "variable": 0.8}


@dataclass
class SymbolTable:
    """Symbols of one repository, in file order, with their fitted BM25F model."""

    tree: str
    file: np.ndarray  # index into RepoIndex.files, per symbol
    name: list[str]  # as the outline spells it (methods ``Owner.member``)
    line: np.ndarray
    prior: np.ndarray
    ranker: ranking.Ranker
    bare_files: np.ndarray  # files defining no symbol: they take part as file-level hits
    size: np.ndarray  # lines of each symbol's own text (its span, as the body field reads it)
    lookup: dict[str, list[int]] | None = None  # ``keys``, once something looked a name up

    @property
    def keys(self) -> dict[str, list[int]]:
        """Lookup key (bare or qualified, as written or stemmed) -> symbols. Made on first use: a
        pack's file ranking reads only the fitted model, a search looks names up."""
        if self.lookup is None:
            self.lookup = _lookup_keys([name.rpartition(".") for name in self.name])
        return self.lookup


def _prior(kind: str) -> float:
    return 1.0 if kind in MAJOR_KINDS else KIND_PRIOR.get(kind, 1.0)


def _counts(terms: list[str] | tuple[str, ...], into: dict[str, int] | None = None) -> dict[str, int]:
    out = {} if into is None else into
    for term in terms:
        out[term] = out.get(term, 0) + 1
    return out


def compound_words(names: list[str]) -> frozenset[str]:
    """Words the repository writes as separate parts of longer names (``url`` of ``url_open``):
    what a run-together name (``urlsplit``, ``copytree``) may be made of."""
    return frozenset(
        p
        for name in names
        for parts in [split_identifier(name.rsplit(".", 1)[-1])]
        if len(parts) > 1
        for p in parts
        if len(p) >= 3 and p.isalpha()
    )


def name_terms(member: str, words: frozenset[str], known: dict[str, list[str]] | None = None) -> dict[str, int]:
    """Terms of a symbol's own name, plus the known words a run-together name is made of.
    ``known`` keeps each part's compound terms across the names of one table (parts repeat)."""
    counts = _counts(identifier_terms(member))
    for part in split_identifier(member):
        found = None if known is None else known.get(part)
        if found is None:
            found = [t for w in compound_parts(part, words) for t in terms(w)]
            if known is not None:
                known[part] = found
        _counts(found, counts)
    return counts


@dataclass
class Source:
    """What a table is built from: a tree's files, their content digests and defined symbols, and the
    parts of every defined name (the words run-together file names split into)."""

    root: Path
    tree: str
    files: list[str]
    digests: list[str]
    symbols: list[list[Symbol]]  # per file, as its outline lists them
    words: frozenset[str]
    parsed: dict[str, bytes] = field(default_factory=dict)  # bodies a parse just made (pickled), by digest

    @classmethod
    def of(cls, index: RepoIndex) -> Source:
        symbols = [f.outline.symbols for f in index.facts]
        return cls(index.root, index.tree, index.files, index.digests, symbols, index.words)


def _bodies(source: Source, docs: list[int]) -> list[list[Body]]:
    """Body term counts and line counts of every symbol of ``docs``, as the cold index kept them
    per content digest (``bodies``); a file missing there (a pruned cache) is read and its bodies
    kept beside the others."""
    digests = source.digests
    known = bodies.load({digests[doc] for doc in docs}, source.parsed)
    missed: dict[str, list[Body]] = {}
    out: list[list[Body]] = []
    for doc in docs:
        symbols = source.symbols[doc]
        found = known.get(digests[doc])
        if found is None or len(found) != len(dict.fromkeys(symbols)):
            try:
                data = (source.root / source.files[doc]).read_bytes()
            except OSError:
                data = b""
            found = symbol_bodies(data, symbols)
            if data and cache.digest(data, extension(source.files[doc])) == digests[doc]:
                missed[digests[doc]] = found
        out.append(found)
    bodies.add(source.root, missed)
    return out


@lru_cache(maxsize=1 << 16)
def _joined(name: str) -> tuple[str, str]:
    """A name's parts joined as written and stemmed: kept across the tables of a run (revisions
    share most names)."""
    parts = split_identifier(name)
    return "".join(parts), "".join(stem(p) for p in parts)


def _lookup_keys(split: list[tuple[str, str, str]]) -> dict[str, list[int]]:
    """Lookup key -> symbols (``symbol_keys`` of each member and of ``Owner.member``). A dot parts
    words, so a qualified name's parts are its owner's then its member's: each distinct owner and
    member is split and stemmed once, and the qualified keys are joined from theirs."""
    joined = {
        name: _joined(name) for name in dict.fromkeys(part for owner, _, member in split for part in (owner, member))
    }
    bare = {member: {raw} | {stemmed} for _, _, member in split for raw, stemmed in [joined[member]]}
    keys: dict[str, list[int]] = {}
    for sid, (owner, _, member) in enumerate(split):
        found = bare[member]
        if owner:
            raw, stemmed = (a + b for a, b in zip(joined[owner], joined[member], strict=True))
            found = found | {raw, stemmed}
        for key in found:
            keys.setdefault(key, []).append(sid)
    return keys


class _Names:
    """The name terms of the members of the last tables built (``name_terms``), for as long as the
    repository's compound words stay the same: consecutive revisions share most names and words."""

    LIMIT = 1 << 16  # members remembered before starting afresh

    def __init__(self) -> None:
        self.words: frozenset[str] | None = None
        self.known: dict[str, list[str]] = {}
        self.members: dict[str, dict[str, int]] = {}

    def terms(self, distinct: list[str], words: frozenset[str]) -> dict[str, dict[str, int]]:
        """``name_terms(member, words)`` of each member of ``distinct`` (callers only read them)."""
        if words != self.words or len(self.members) > self.LIMIT:
            self.words, self.known, self.members = words, {}, {}
        found = self.members
        for member in distinct:
            if member not in found:
                found[member] = name_terms(member, words, self.known)
        return {member: found[member] for member in distinct}


_NAMES = _Names()


def build_table(index: RepoIndex) -> SymbolTable:
    """Read the symbols' bodies and fit the symbol-level BM25F model."""
    return _build(Source.of(index))


def _build(source: Source) -> SymbolTable:
    docs = [doc for doc, defined in enumerate(source.symbols) if defined]
    symbols = [(doc, *symbol) for doc in docs for symbol in dict.fromkeys(source.symbols[doc])]
    split = [name.rpartition(".") for _, name, _, _ in symbols]  # (owner, ".", member)
    # Many symbols share a member name (``__init__``, ``get``) or an owner: each is read once.
    distinct = list(dict.fromkeys(member for _, _, member in split))
    words = compound_words(distinct)
    paths = {doc: path_fields(source.files[doc], source.words) for doc in docs}
    body_rows = [body for file_bodies in _bodies(source, docs) for body in file_bodies]
    members = _NAMES.terms(distinct, words)
    owners = {owner: _counts(identifier_terms(owner)) for owner in dict.fromkeys(owner for owner, _, _ in split)}
    fields: dict[str, list[dict[str, int]]] = {
        "name": [members[member] for _, _, member in split],
        "owner": [owners[owner] for owner, _, _ in split],
        "file": [paths[doc][0] for doc, _, _, _ in symbols],
        "dir": [paths[doc][1] for doc, _, _, _ in symbols],
        "body": [terms for terms, _ in body_rows],
    }
    model = ranking.fit(fields, weights=WEIGHTS, b=B, sublinear=frozenset({"body"}), name_field="name")
    return SymbolTable(
        source.tree,
        np.asarray([s[0] for s in symbols], dtype=np.int32),
        [s[1] for s in symbols],
        np.asarray([s[3] for s in symbols], dtype=np.int32),
        np.asarray([_prior(s[2]) for s in symbols], dtype=np.float32),
        model,
        np.setdiff1d(np.arange(len(source.files)), docs).astype(np.int32),
        np.asarray([lines for _, lines in body_rows], dtype=np.int32),
    )


def _parsed(
    root: Path, tree: str, files: list[str], digests: list[str], facts: list[FileFacts], parsed: dict[str, bytes]
) -> None:
    words = frozenset[str]().union(*(f.name_parts for f in facts))
    prebuild(Source(root, tree, files, digests, [f.outline.symbols for f in facts], words, parsed))


def prebuild(source: Source) -> None:
    """Build and cache the table of a freshly parsed tree in a forked child, while this process
    links the index on one core and leaves the other idle; the first ``symbol_table`` of that tree
    waits for the child and reads its table. The child is a daemon: a process that never searches
    does not wait for it on exit."""
    _cancel(str(source.root))
    for key, (_, done) in list(_PENDING.items()):
        if not done.is_alive():  # finished for a tree nobody searched (yet): its table is cached
            _PENDING.pop(key, None)
            done.join()
    child = multiprocessing.get_context("fork").Process(target=_build_and_save, args=(source,), daemon=True)
    child.start()
    _PENDING[str(source.root)] = (source.tree, child)


def _build_and_save(source: Source) -> None:
    with collector_paused():
        table = _build(source)
        table.keys  # noqa: B018  (a table prebuilt for a search: its lookup keys made here, off the parent)
        cache.save(source.root, "symbols", TABLE_VERSION, table)


def _cancel(key: str) -> None:
    pending = _PENDING.pop(key, None)
    if pending is not None:
        pending[1].terminate()
        pending[1].join()


def _await(key: str, tree: str) -> None:
    """Wait for a child building the table of ``tree`` for the root ``key``; stop one building
    the table of another tree (the repository changed since)."""
    pending = _PENDING.get(key)
    if pending is not None and pending[0] == tree:
        _PENDING.pop(key, None)
        pending[1].join()
    elif pending is not None:
        _cancel(key)


_MEMO: BoundedMemo[SymbolTable] = BoundedMemo()
_LOCK = threading.Lock()
_PENDING: dict[str, tuple[str, BaseProcess]] = {}  # root -> (tree, the child building its table)
if hasattr(os, "register_at_fork"):  # a forked process (a --jobs worker) cannot wait for its parent's children
    os.register_at_fork(after_in_child=_PENDING.clear)
LARGE_TREE_PARSED.append(_parsed)  # a process that can search has its large tables prebuilt


def symbol_table(index: RepoIndex) -> SymbolTable:
    """The table of ``index``'s tree: from memory, else the disk cache, else built and saved."""
    key = str(index.root)
    table = _MEMO.get(key)
    if table is not None and table.tree == index.tree:
        return table
    with _LOCK:
        table = _MEMO.get(key)
        if table is None or table.tree != index.tree:
            _await(key, index.tree)
            table = cache.load(index.root, "symbols", TABLE_VERSION)
            if not isinstance(table, SymbolTable) or table.tree != index.tree or not index.tree:
                save_pending()
                with collector_paused():
                    table = build_table(index)
                _UNSAVED[key] = (index.root, table)
            _MEMO[key] = table
    return table


_UNSAVED: dict[str, tuple[Path, SymbolTable]] = {}  # root -> a table built here and not saved yet


def save_pending() -> None:
    """Save the tables built and not saved yet (``symbol_table``): a table is saved once, by its first
    search with its lookup keys, else when the process builds its next table or exits."""
    while _UNSAVED:
        root, table = _UNSAVED.popitem()[1]
        cache.save(root, "symbols", TABLE_VERSION, table)


atexit.register(save_pending)


def searchable(index: RepoIndex) -> SymbolTable:
    """``symbol_table(index)`` with its lookup keys made. A table a pack built or cached without them
    (``SymbolTable.keys``) is saved with them, once, so the next process's search reads them."""
    table = symbol_table(index)
    with _LOCK:
        pending = _UNSAVED.get(str(index.root), (None, None))[1] is table
        if pending:
            _UNSAVED.pop(str(index.root))
    if table.lookup is None or pending:
        with collector_paused():
            table.keys  # noqa: B018
        cache.save(index.root, "symbols", TABLE_VERSION, table)
    return table
