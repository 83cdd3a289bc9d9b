"""Build (or load) the index of one repository.

Cold: list the files, parse each (in worker processes when there is a lot to
parse; the same pass reads each symbol's body for the symbol table, cached apart),
then link them: imports resolved to files, mount prefixes applied to routes, kinds
refined by what files serve or call, BM25F fitted. Warm: the facts
of unchanged files come from the per-blob store by content digest, and a work tree seen
before loads its built index in one read (the index cache is keyed by content, so a temp
copy of a tree reuses the entry of the original). A revision snapshot is linked from what
the revisions before it left in memory (``blobparts``: each blob's part, each path's counts,
each import resolved while what it looked up is unchanged), which costs less than reading a
saved index back, so none is saved. Within a process, an index is reused while nothing in
its tree changed: inotify says so without touching the tree (``watch``), else a stat of its
files and directories.
"""

from __future__ import annotations

import os
import pickle
import posixpath
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from stat import S_ISDIR
from typing import Any

from ..code.collector import collector_paused
from ..code.kinds import file_kind, is_code
from ..code.tsranges import Range
from ..code.walk import list_directories, list_files
from ..paths import is_snapshot
from . import blobstore, bodies, cache, ranking
from . import watch as watching
from .blobparts import LINKING, BlobPart
from .cache import code_digest
from .entry import entry_points
from .extract import EXTRACTOR_VERSION, RANGES, FileFacts, facts_key
from .fields import path_signature
from .memo import BoundedMemo
from .messages import MessageIndex
from .parallel import extract_batches, forking_pays
from .routes import Route
from .templates import template_edges
from .text import identifier_terms, terms
from .watch import Watch

# The built index is only valid for the code that built it; the version names that code.
INDEX_VERSION = (
    f"{EXTRACTOR_VERSION}-{code_digest('index', 'blobparts', 'imports', 'ranking', 'entry', 'walk', 'templates')}"
)
# Read by entry_points at the root whether or not the walk lists them.
ROOT_INPUTS = ("package.json", "pyproject.toml")
# Called with (root, tree, files, digests, facts, the bodies just parsed by digest) of a large tree parsed
# afresh, before it is saved and linked (which leave a core idle). Symbol search registers its
# table's build here (``symtable``), so a process that has loaded it gets the table built meanwhile.
LARGE_TREE_PARSED: list[Callable[[Path, str, list[str], list[str], list[FileFacts], dict[str, bytes]], None]] = []
_ENGINE_CODE = code_digest("pack", "query", "signals", "related", "render", "roles", "cochange", "prose")
ENGINE_VERSION = f"1.0+{_ENGINE_CODE}.{INDEX_VERSION}"


@dataclass
class RepoIndex:
    """Everything the pack builder asks about one repository."""

    root: Path
    files: list[str]
    kinds: list[str]
    facts: list[FileFacts]
    imports: list[tuple[int, ...]]
    importers: list[tuple[int, ...]]
    ranker: ranking.Ranker
    symbols: dict[str, list[int]]
    routes: list[tuple[int, Route]]
    messages: MessageIndex
    entries: list[int]
    key_users: dict[str, list[int]]
    tree: str = ""
    digests: list[str] = field(default_factory=list)  # content digest per file (what caches key files by)
    words: frozenset[str] = frozenset()  # parts of every defined name: what run-together names split into
    # Query-independent values computed from the fields above on first use (``filetable``): never
    # pickled, and a copy made with ``replace`` starts without them.
    derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if key != "derived"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, derived={})


def _refined_kind(rel: str, routes: tuple[Route, ...]) -> str:
    kind = file_kind(rel)
    if kind not in ("source", "other") or not is_code(rel):
        return kind
    roles = {route.role for route in routes}
    if "serve" in roles:
        return "route"
    return "api client" if "call" in roles else kind


def _mounted(
    files: list[str], routes: list[tuple[Route, ...]], imports: list[tuple[int, ...]]
) -> list[tuple[int, Route]]:
    """Routes with mount prefixes applied: ``app.use('/orders', ordersRouter)`` prefixes the
    imported file whose name shares the most words with ``ordersRouter``."""
    prefix: dict[int, tuple[str, ...]] = {}
    for i, found in enumerate(routes):
        for route in (r for r in found if r.role == "mount"):
            wanted = set(identifier_terms(route.handler.rsplit(".", 1)[-1]))
            best = max(imports[i], default=None, key=lambda j: len(wanted & set(terms(files[j]))))
            if best is not None and wanted & set(terms(files[best])):
                prefix[best] = route.segments
    return [
        (i, r._replace(segments=prefix.get(i, ()) + r.segments) if r.role == "serve" else r)
        for i, found in enumerate(routes)
        for r in found
        if r.role != "mount"
    ]


def link(root: Path, files: list[str], facts: list[FileFacts], digests: list[str]) -> RepoIndex:
    """Everything that depends on more than one file, built from per-file facts (of the contents
    whose digests are ``digests``)."""
    keys = [facts_key(rel, digest) for rel, digest in zip(files, digests, strict=True)]
    with LINKING.lock:
        LINKING.begin()
        made = LINKING.add(dict(zip(keys, facts, strict=True)))
        LINKING.fit(made)
        return link_parts(root, files, [made[key] for key in keys], keys, digests)


def link_parts(root: Path, files: list[str], parts: list[BlobPart], keys: list[str], digests: list[str]) -> RepoIndex:
    """``link`` from each file's ``BlobPart`` (its facts key ``keys[i]``, content digest ``digests[i]``)."""
    imports = _imports(root, files, parts, keys, digests)
    importers: list[list[int]] = [[] for _ in files]
    for i, targets in enumerate(imports):
        for j in targets:
            importers[j].append(i)
    words = frozenset[str]().union(*(p.name_parts for p in parts))
    splits: dict[str, tuple[str, ...]] = {}
    paths = LINKING.path_counts(files, words, [path_signature(rel, words, splits) for rel in files])
    ranker = ranking.fit_counts(paths, [p.counts for p in parts], LINKING.interner.strings)
    symbols: dict[str, list[int]] = {}
    key_users: dict[str, list[int]] = {}
    for i, p in enumerate(parts):
        for key in p.lookup_keys:
            symbols.setdefault(key, []).append(i)
        for key in p.keys:
            key_users.setdefault(key.replace(":", "."), []).append(i)
    routes = [p.routes for p in parts]
    return RepoIndex(
        root,
        files,
        [_refined_kind(rel, p.routes) for rel, p in zip(files, parts, strict=True)],
        [p.slim for p in parts],
        imports,
        [tuple(x) for x in importers],
        ranker,
        symbols,
        _mounted(files, routes, imports),
        MessageIndex.joined(list(enumerate(p.messages for p in parts)), LINKING.interner.strings),
        entry_points(root, files, [p.package for p in parts]),
        key_users,
        words=words,
    )


def _imports(
    root: Path, files: list[str], parts: list[BlobPart], keys: list[str], digests: list[str]
) -> list[tuple[int, ...]]:
    """Per file, the files it imports or renders, by position."""
    resolved = LINKING.resolutions.resolve(root, files, keys, [p.imports for p in parts], digests)
    rendered = template_edges(files, [list(p.templates) for p in parts])
    ids = {rel: i for i, rel in enumerate(files)}
    return [tuple(sorted({ids[rel] for rel in found} | extra)) for found, extra in zip(resolved, rendered, strict=True)]


def stat_paths(root: Path, files: list[str]) -> list[str]:
    """Absolute paths whose stats prove a tree unchanged: its directories, then its files."""
    base = str(root)
    dirs = sorted({""} | {posixpath.dirname(rel) for rel in files})
    return [os.path.join(base, rel) if rel else base for rel in dirs + files]


def snapshot(paths: list[str]) -> tuple:
    """Sizes and mtimes of ``paths`` (adding or removing a file changes its directory's)."""
    stamps = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            return ()
        stamps.append((st.st_size, st.st_mtime_ns))
    return tuple(stamps)


def build(root: Path) -> RepoIndex:
    """Index ``root``, reusing the disk cache for every file whose content is unchanged."""
    with collector_paused():
        return _build(root)


FACTS: blobstore.Part[FileFacts] = blobstore.Part("facts", EXTRACTOR_VERSION)


def _build(root: Path) -> RepoIndex:
    files = list_files(root)
    snapshot = is_snapshot(root)
    sizes, digests = cache.file_digests(root, files, fixed=snapshot)
    tree = cache.digest("\n".join(f"{r}\t{d}" for r, d in zip(files, digests, strict=True)).encode())
    source = _source_key(root, files, tree)
    if not snapshot:  # a snapshot's index is linked from parts held in memory: cheaper than a read
        built = cache.load_shared(source, "index", INDEX_VERSION)
        if isinstance(built, RepoIndex) and getattr(built, "tree", None) == tree:
            try:
                return replace(built, root=root)
            except AttributeError:
                pass  # pickled by an older shape of RepoIndex
    keys = [facts_key(rel, d) for rel, d in zip(files, digests, strict=True)]
    with LINKING.lock:
        LINKING.begin()
        parts, parsed = _parts(root, files, sizes, digests, keys)
        LINKING.fit(parts)
        if parsed and forking_pays(sum(sizes)):
            facts = [parts[k].facts() for k in keys]
            for hook in LARGE_TREE_PARSED:
                hook(root, tree, files, digests, facts, parsed)
        index = replace(link_parts(root, files, [parts[k] for k in keys], keys, digests), tree=tree, digests=digests)
    if snapshot:
        return index  # a snapshot never changes: no tree of it before an edit to drop
    cache.save_shared(source, "index", INDEX_VERSION, index, root)
    previous = cache.load(root, "tree", INDEX_VERSION)
    if previous != source:
        cache.save(root, "tree", INDEX_VERSION, source)
        if isinstance(previous, str):
            cache.drop_shared(previous, "index", INDEX_VERSION)  # this repository's tree before the edit
    return index


def _parts(
    root: Path, files: list[str], sizes: list[int], digests: list[str], keys: list[str]
) -> tuple[dict[str, BlobPart], dict[str, bytes]]:
    """The part of every file by facts key: held in memory, else made from facts kept in the blob
    store, else parsed (a blob held twice is parsed once); and the bodies parsed, by digest."""
    parts = LINKING.known(keys)
    missing = [key for key in dict.fromkeys(keys) if key not in parts]
    known = FACTS.get_many(missing)
    first = {key: i for i, key in reversed(list(enumerate(keys)))}
    todo = [(first[key], key, digests[first[key]]) for key in missing if key not in known]
    fresh, parsed = _parse(root, files, sizes, todo)
    parts.update(LINKING.add({key: known[key] if key in known else fresh[key] for key in missing}))
    return parts, parsed


def _parse(
    root: Path, files: list[str], sizes: list[int], todo: list[tuple[int, str, str]]
) -> tuple[dict[str, FileFacts], dict[str, bytes]]:
    """The facts of the files ``todo`` names (position, facts key, content digest), by facts key, kept
    in the per-blob store as the workers pickled them (never pickled twice), and their bodies by
    digest, still pickled (also stored: the symbol table reads them from there, if ever). A Python
    blob's definition ranges, from the same parse, are stored too (``extract.RANGES``)."""
    fresh: dict[str, FileFacts] = {}
    pickled: dict[str, bytes] = {}
    parsed: dict[str, bytes] = {}
    ranges: dict[str, list[Range]] = {}
    for batch, facts, spans, defined in extract_batches(
        root, [files[i] for i, _, _ in todo], [sizes[i] for i, _, _ in todo]
    ):
        for j, one, body, found in zip(batch, facts, spans, defined, strict=True):
            _, key, digest = todo[j]
            fresh[key] = pickle.loads(one)
            pickled[key] = one
            parsed[digest] = body
            if found is not None:
                ranges[digest] = found
    FACTS.put_many(fresh, root, pickled)
    bodies.add(root, pickled=parsed)
    RANGES.put_many(ranges, root)  # for the ``bm25`` control: no second parse of these blobs
    return fresh, parsed


def _source_key(root: Path, files: list[str], tree: str) -> str:
    """What a built index is made of: the tree, plus the root files ``entry_points`` reads even
    when the walk skipped them. Copies of one tree anywhere share the cached index."""
    extra = []
    for name in ROOT_INPUTS:
        if name not in files:
            try:
                extra.append(f"{name}\t{cache.digest((root / name).read_bytes())}")
            except OSError:
                continue
    return "\n".join([tree, *extra])


IMMUTABLE = ("immutable tree",)  # the stamp of a revision snapshot: never checked again


@dataclass
class _Loaded:
    """An index in memory, and how to tell that it still describes its tree."""

    index: RepoIndex
    identity: tuple[int, int]  # the root directory's device and inode: a tree put in its place is another
    watch: Watch | None = None  # inotify watches set before the tree was read, ...
    paths: list[str] = field(default_factory=list)  # ... else what to stat ...
    stamp: tuple = ()  # ... and their sizes and mtimes from before the tree was read (IMMUTABLE: a snapshot)

    def close(self) -> None:
        if self.watch is not None:
            self.watch.close()


_MEMO: BoundedMemo[_Loaded] = BoundedMemo(on_drop=_Loaded.close)  # a bounded number stay loaded
_BUILDING = threading.Lock()  # one build at a time: concurrent cases of a run share it


_RESOLVED: dict[str, str] = {}  # a root as a caller names it -> resolved (trusted while its identity holds)


def load_index(root: Path | str) -> RepoIndex:
    """The index of ``root``: from memory while unchanged, else from the disk cache or built."""
    given = os.fspath(root)
    try:
        st = os.stat(given)
    except OSError:
        st = None
    if st is None or not S_ISDIR(st.st_mode):
        from ..errors import TargetError

        raise TargetError(f"{Path(given).resolve()}: repository directory not found")
    identity = (st.st_dev, st.st_ino)
    known = _RESOLVED.get(given)
    loaded = _MEMO.get(known) if known is not None else None
    if loaded is not None and _unchanged(loaded, identity):
        return loaded.index  # a path resolves to the same directory while that directory is the one named
    resolved = Path(given).resolve()
    if len(_RESOLVED) >= 4 * _MEMO.limit:
        _RESOLVED.clear()
    _RESOLVED[given] = key = str(resolved)
    loaded = _MEMO.get(key)
    if loaded is not None and _unchanged(loaded, identity):
        return loaded.index
    with _BUILDING:
        loaded = _MEMO.get(key)  # another thread may have built it meanwhile
        if loaded is None or not _unchanged(loaded, identity):
            loaded = _MEMO[key] = _load(resolved, identity)
    return loaded.index


def _load(root: Path, identity: tuple[int, int]) -> _Loaded:
    """Build ``root``'s index, noting how a change will be seen: never for a revision snapshot;
    by inotify watches set on every directory before the tree is listed and read; else by the
    sizes and mtimes of its files and directories, taken before it is read (an edit made while
    the index is built is seen at the next query either way)."""
    if is_snapshot(root):
        return _Loaded(build(root), identity, stamp=IMMUTABLE)
    watch = watching.watch(str(root))
    if watch is not None:
        try:
            list_directories(root, watch.add)
            if watch.ok:
                return _Loaded(build(root), identity, watch=watch)
        except BaseException:
            watch.close()
            raise
        watch.close()  # a directory could not be watched (the watch limit, a race): stat instead
    listed = list_files(root)
    paths = stat_paths(root, listed)
    stamp = snapshot(paths)
    index = build(root)
    return _Loaded(index, identity, paths=paths, stamp=stamp if index.files == listed else ())


def _unchanged(loaded: _Loaded, identity: tuple[int, int]) -> bool:
    """Whether a loaded index still describes the tree at its root: the same directory, and a
    revision snapshot (never changes), or no inotify event, or every size and mtime as before."""
    if loaded.identity != identity:
        return False
    if loaded.stamp is IMMUTABLE:
        return True
    if loaded.watch is not None:
        return not loaded.watch.changed()
    return bool(loaded.stamp) and loaded.stamp == snapshot(loaded.paths)
