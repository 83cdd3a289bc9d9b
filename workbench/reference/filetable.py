"""What a query asks about every file of an index, computed once per index and kept on it.

The pack, its related files and its evidence need, for any file, its kind, path depth and
order, whether it is code, the tests named like it, which file a path, a base name or a
name spelled in any convention denotes, its Go package siblings, and its routes. None of that
depends on the query, so it is built on first use as numpy arrays and lookups, and a query's
own work grows with its answer (the files it matches, the few it picks), not with the
repository. Values that depend on a module setting (the priors) are cached per setting.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..code.kinds import allowed_by, extension, is_code
from .routes import Route
from .text import symbol_keys

if TYPE_CHECKING:
    import numpy as np

    from ..contract import GoldScope
    from .index import RepoIndex

TEST_AFFIXES = ("test_", "_test", "_spec", "spec_")
_PATH_WORDS = re.compile(r"[/._-]")


def module_stem(path: str) -> str:
    """``test_parser.py``, ``parser_test.go`` and ``parser.spec.ts`` -> ``parser``: what a test is named after."""
    base = posixpath.basename(path).split(".")[0]
    for affix in TEST_AFFIXES:
        base = base.removeprefix(affix) if affix.endswith("_") else base.removesuffix(affix)
    return base.lower()


def name_stem(path: str) -> str:
    """The file's name without its extension (``users-service.ts`` -> ``users-service``)."""
    base = posixpath.basename(path)
    return base[: -len(extension(base))] if extension(base) else base


@dataclass
class FileTable:
    """Per-file facts of one index that no query changes."""

    kinds: list[str]  # the distinct kinds, first seen first
    kind_of: np.ndarray  # per file, its kind's position in ``kinds``
    depth: np.ndarray  # per file, the number of ``/`` in its path
    rank: np.ndarray  # per file, its path's position among the paths sorted
    code: np.ndarray  # per file, whether it is source code
    lines: np.ndarray  # per file, its line count
    tests: dict[str, list[int]]  # test stem -> the test files named so
    test_stems: dict[int, str]  # test file -> its stem
    by_suffix: dict[str, list[int]]  # a path and each of its ``/``-anchored tails -> the files
    by_basename: dict[str, list[int]]
    by_name_key: dict[str, list[int]]  # ``symbol_keys`` of a file's name stem -> the files
    by_path: dict[str, int]
    go_packages: dict[str, list[int]]  # folder -> its .go files that are not tests
    catalogs: list[tuple[int, frozenset[str]]]  # translation catalogs and the words of their paths
    routes_of: dict[int, list[Route]]  # file -> the routes it serves, calls or mounts
    settled: dict[Any, np.ndarray] = field(default_factory=dict)  # values per module setting

    def per_kind(self, value: Callable[[str], Any], dtype: Any, docs: np.ndarray | None = None) -> np.ndarray:
        """``value(kind)`` of every file (or of ``docs``), computed once per distinct kind."""
        import numpy as np

        return np.asarray([value(kind) for kind in self.kinds], dtype=dtype)[
            self.kind_of if docs is None else self.kind_of[docs]
        ]

    def setting(self, key: Any, compute: Callable[[], np.ndarray]) -> np.ndarray:
        """``compute()``, once per ``key`` (a name and the settings it reads)."""
        found = self.settled.get(key)
        if found is None:
            found = self.settled[key] = compute()
        return found


def _lookup(pairs: list[tuple[str, int]]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for key, doc in pairs:
        docs = found.setdefault(key, [])
        if not docs or docs[-1] != doc:
            docs.append(doc)
    return found


def build_table(index: RepoIndex) -> FileTable:
    """The file table of ``index`` (a pass over its paths, kinds and routes)."""
    import numpy as np

    files, kinds = index.files, index.kinds
    distinct = list(dict.fromkeys(kinds))
    position = {kind: i for i, kind in enumerate(distinct)}
    tests = [(module_stem(path), d) for d, path in enumerate(files) if kinds[d] == "test"]
    suffixes = []
    for d, path in enumerate(files):
        parts = path.split("/")
        suffixes += [("/".join(parts[i:]), d) for i in range(len(parts))]
    routes_of: dict[int, list[Route]] = {}
    for doc, route in index.routes:
        routes_of.setdefault(doc, []).append(route)
    return FileTable(
        kinds=distinct,
        kind_of=np.asarray([position[kind] for kind in kinds], dtype=np.int32),
        depth=np.asarray([path.count("/") for path in files], dtype=np.int32),
        rank=np.argsort(np.asarray(sorted(range(len(files)), key=files.__getitem__), dtype=np.int64)),
        code=np.asarray([is_code(path) for path in files], dtype=bool),
        lines=np.asarray([f.lines for f in index.facts], dtype=np.int64),
        tests=_lookup(tests),
        test_stems={d: stem for stem, d in tests},
        by_suffix=_lookup(suffixes),
        by_basename=_lookup([(posixpath.basename(path), d) for d, path in enumerate(files)]),
        by_name_key=_lookup([(key, d) for d, path in enumerate(files) for key in symbol_keys(name_stem(path))]),
        by_path={path: d for d, path in enumerate(files)},
        go_packages=_lookup(
            [(posixpath.dirname(p), d) for d, p in enumerate(files) if p.endswith(".go") and kinds[d] != "test"]
        ),
        catalogs=[
            (d, frozenset(part.lower() for part in _PATH_WORDS.split(path)))
            for d, path in enumerate(files)
            if kinds[d] == "translation"
        ],
        routes_of=routes_of,
    )


def file_table(index: RepoIndex) -> FileTable:
    """The file table of ``index``, built on first use and kept on the index."""
    table = index.derived.get("files")
    if not isinstance(table, FileTable):
        table = index.derived["files"] = build_table(index)
    return table


Masks = list["np.ndarray | None"]  # per repository: the files a goldScope allows (None: every file)


def allowed(masks: Masks, r: int, d: int) -> bool:
    """Whether file ``d`` of repository ``r`` is one ``masks`` (``in_scope`` of each) allow."""
    return (mask := masks[r]) is None or bool(mask[d])


def in_scope(index: RepoIndex, gold_scope: GoldScope | None) -> np.ndarray | None:
    """Per file, whether the corpus's ``goldScope`` lets it be gold (None: every file may be).
    An evaluation corpus labelled by such a rule (mined history: no tests, docs, examples or
    generated files) sends it to every target; the engine then ranks only those files, though
    the others still lend their words (a test credits the code it tests, ``prose.credited``)."""
    import numpy as np

    if gold_scope is None or not gold_scope.exclude:
        return None
    files = index.files
    return file_table(index).setting(
        ("gold scope", tuple(gold_scope.exclude)),
        lambda: np.fromiter((allowed_by(gold_scope, path) for path in files), dtype=bool, count=len(files)),
    )
