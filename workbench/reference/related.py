"""Related files of a pack: route pairs across repositories, import neighbours, tests.

Order of preference: the other side of a route a primary file serves or calls
(the web client's call for an API handler, and back), then the first test that
exercises a primary file, then files a primary imports or is imported by (Go: its
package siblings), best ranked first, then further tests. ``graph_fill`` offers the
same neighbours to fill the primary files of a pack the ranking left short.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..code.kinds import LIFTED_BY, extension
from .cochange import partners
from .filetable import file_table, module_stem
from .query import Query
from .routes import Route, match, render
from .text import terms

if TYPE_CHECKING:
    import numpy as np

    from .index import RepoIndex
    from .scored import Scored

COCHANGE = True  # with git history, files that changed together with a primary file are its neighbours
MAX_GRAPH = 3
MAX_TESTS = 2
MAX_PAIRS = 3
MAX_PAIR_FILL = 2  # route counterparts that may fill primary places
GENERIC_STEMS = frozenset(
    {
        "__init__",
        "__main__",
        "index",
        "main",
        "mod",
        "init",
        "app",
        "utils",
        "util",
        "types",
        "base",
        "common",
        "helpers",
        "lib",
        "core",
    }
)
QUIET_KINDS = frozenset({"translation", "fixture", "doc", "test", "migration", "other", "manifest", "config"})


def _on_topic(route_segments: tuple[str, ...], q: Query) -> float:
    """How many of a route's literal segments the task mentions (``refund`` in ``/orders/:/refund``)."""
    wanted = set(q.terms)
    return float(sum(1 for seg in route_segments if seg != ":" and set(terms(seg)) & wanted))


def _counterparts(
    scored: list[Scored], r: int, d: int, route: Route, q: Query
) -> Iterator[tuple[int, int, float, str]]:
    """(repo, doc, quality, reason) of files on the other side of one route of ``(r, d)``."""
    other_role = "call" if route.role == "serve" else "serve"
    verb = "calls" if other_role == "call" else "handles"
    for r2, s in enumerate(scored):
        for doc, theirs in s.index.routes:
            if theirs.role != other_role or (r2, doc) == (r, d) or _quiet(s, doc, q):
                continue
            if route.method and theirs.method and route.method != theirs.method:
                continue
            quality = match(route.segments, theirs.segments)
            if quality > 1.0:
                quality += (0.5 if r2 != r else 0.0) + _on_topic(theirs.segments, q)
                yield r2, doc, quality, f"{verb} {render(theirs)} (pairs with {scored[r].index.files[d]})"


def _pairs(scored: list[Scored], sources: list[tuple[int, int]], q: Query) -> list[tuple[int, int, str]]:
    """Files on the other side of the routes ``sources`` serve or call, best match first
    (another repository before the same one, routes the task mentions before others)."""
    found: dict[tuple[int, int], tuple[float, str]] = {}
    for r, d in sources:
        for route in (route for route in file_table(scored[r].index).routes_of.get(d, []) if route.role != "mount"):
            for r2, doc, quality, reason in _counterparts(scored, r, d, route, q):
                if quality > found.get((r2, doc), (0.0, ""))[0]:
                    found[(r2, doc)] = (quality, reason)
    ranked = sorted(found.items(), key=lambda kv: -kv[1][0])
    return [(r, d, reason) for (r, d), (_, reason) in ranked[:MAX_PAIRS]]


Neighbour = tuple[int, int, str]  # repo, doc, why it joins a pack
IMPORTED_BY, IMPORTS, STUB, CHANGED_WITH, GO_PACKAGE = range(5)  # how a neighbour relates to its file


def _neighbour_ids(s: Scored, d: int) -> tuple[list[int], list[int], list[int]]:
    """Neighbours of file ``d`` in order of preference: (files, how each relates to ``d``,
    commits each changed together with ``d``)."""
    index = s.index
    table = file_table(index)
    path = index.files[d]
    history = (partners(index.root, index.files, index.tree) if COCHANGE else {}).get(d, [])
    groups: list[tuple[Sequence[int], int, list[int] | None]] = [
        (index.imports[d], IMPORTED_BY, None),
        (index.importers[d], IMPORTS, None),
        (_stub_siblings(table.by_path, path), STUB, None),
        ([j for j, _ in history], CHANGED_WITH, [n for _, n in history]),
    ]
    if extension(path) == ".go":
        groups.append(([j for j in table.go_packages.get(posixpath.dirname(path), []) if j != d], GO_PACKAGE, None))
    ids: list[int] = []
    relations: list[int] = []
    together: list[int] = []
    for members, relation, counts in groups:
        ids += members
        relations += [relation] * len(members)
        together += counts if counts is not None else [0] * len(members)
    return ids, relations, together


def _reason(index: RepoIndex, d: int, j: int, relation: int, together: int) -> str:
    """Why ``j`` joins a pack beside file ``d``."""
    path = index.files[d]
    if relation == IMPORTED_BY:
        return f"imported by {path}"
    if relation == IMPORTS:
        return f"imports {path}"
    if relation == STUB:
        return f"declares the types of {path}" if _is_stub(index.files[j]) else f"implements {path}"
    if relation == CHANGED_WITH:
        return f"changed together with {path} in {together} earlier commits"
    return f"same Go package as {path}"


_STUBS = ((".pyi", (".py",)), (".d.ts", (".js", ".mjs", ".cjs", ".ts")), (".d.mts", (".mjs", ".mts")))


def _is_stub(path: str) -> bool:
    return path.endswith(tuple(stub for stub, _ in _STUBS))


def _stub_siblings(by_path: dict[str, int], path: str) -> list[int]:
    """A type stub and the module it declares (``x.pyi`` and ``x.py``, ``index.d.ts`` and
    ``index.js``): one changes when the other's signatures do."""
    wanted: list[str] = []
    for stub, sources in _STUBS:
        if path.endswith(stub):
            wanted += [path[: -len(stub)] + ext for ext in sources]
        else:
            wanted += [path[: -len(ext)] + stub for ext in sources if path.endswith(ext) and not _is_stub(path)]
    return sorted({by_path[other] for other in wanted if other in by_path})


def quiet(kind: str, q: Query) -> bool:
    """Kinds that only join a pack (beyond its first file) when the task is about them."""
    return kind in QUIET_KINDS and LIFTED_BY.get(kind) not in q.intents


def _quiet(s: Scored, doc: int, q: Query) -> bool:
    return quiet(s.index.kinds[doc], q)


@dataclass
class _Around:
    """Neighbours of a pack's files that may join it, each once, in order of first mention."""

    repo: np.ndarray
    doc: np.ndarray
    source: np.ndarray  # the position in ``chosen`` of the file it was first mentioned beside
    relation: np.ndarray
    together: np.ndarray
    value: np.ndarray  # its score for the query
    lines: np.ndarray

    def reasons(self, scored: list[Scored], chosen: list[tuple[int, int]], order: np.ndarray) -> list[Neighbour]:
        """(repo, doc, reason) of the neighbours at ``order``."""
        out = []
        for i in order.tolist():
            r, j, d = int(self.repo[i]), int(self.doc[i]), chosen[int(self.source[i])][1]
            out.append((r, j, _reason(scored[r].index, d, j, int(self.relation[i]), int(self.together[i]))))
        return out


def _around(scored: list[Scored], chosen: list[tuple[int, int]], q: Query, skip: frozenset[str]) -> _Around:
    """The import-graph (and co-change) neighbours of ``chosen`` that are not chosen and of no
    quiet kind nor one of ``skip``."""
    import numpy as np

    repos: list[int] = []
    ids: list[int] = []
    relations: list[int] = []
    together: list[int] = []
    sources: list[int] = []
    for position, (r, d) in enumerate(chosen):
        found, relation, count = _neighbour_ids(scored[r], d)
        ids += found
        relations += relation
        together += count
        repos += [r] * len(found)
        sources += [position] * len(found)
    repo, doc = np.asarray(repos, dtype=np.int64), np.asarray(ids, dtype=np.int64)
    value, lines = np.zeros(len(doc)), np.zeros(len(doc), dtype=np.int64)
    keep = np.ones(len(doc), dtype=bool)
    for r in dict.fromkeys(repos):
        mine = np.flatnonzero(repo == r)
        table = file_table(scored[r].index)
        blocked = table.per_kind(lambda kind: quiet(kind, q) or kind in skip, bool, doc[mine])
        blocked |= (doc[mine, None] == np.asarray([c for rr, c in chosen if rr == r])).any(axis=1)
        keep[mine] = ~blocked
        value[mine], lines[mine] = scored[r].final[doc[mine]], table.lines[doc[mine]]
    keep = np.flatnonzero(keep)
    _, first = np.unique(repo[keep] * (max(len(s.index.files) for s in scored) + 1) + doc[keep], return_index=True)
    at = keep[np.sort(first)]  # each neighbour once, where it was first mentioned
    columns = (repo, doc, np.asarray(sources), np.asarray(relations), np.asarray(together), value, lines)
    return _Around(*(column[at] for column in columns))


def _graph(scored: list[Scored], chosen: list[tuple[int, int]], q: Query) -> list[tuple[int, int, str]]:
    """The best scored neighbours of the pack's files (at most ``MAX_GRAPH``)."""
    import numpy as np

    around = _around(scored, chosen, q, frozenset())
    return around.reasons(scored, chosen, np.argsort(-around.value, kind="stable")[:MAX_GRAPH])


def graph_fill(scored: list[Scored], chosen: list[tuple[int, int]], q: Query, room: int) -> list[tuple[int, int, str]]:
    """(repo, doc, reason) of files that may fill a pack the ranking left short: the other side
    of a route a primary file serves or calls (in any repository), then import-graph (and
    co-change) neighbours, best scored first, then the longest (where changes land)."""
    if room <= 0:
        return []
    paired = [(r, d, reason) for r, d, reason in _pairs(scored, chosen, q) if (r, d) not in chosen][:MAX_PAIR_FILL]
    taken = chosen + [(r, d) for r, d, _ in paired]
    return (paired + _neighbour_fill(scored, taken, q))[:room]


def _neighbour_fill(scored: list[Scored], chosen: list[tuple[int, int]], q: Query) -> list[tuple[int, int, str]]:
    import numpy as np

    around = _around(scored, chosen, q, frozenset({"example"}))
    return around.reasons(scored, chosen, np.lexsort((-around.lines, -around.value)))


def _tests(scored: list[Scored], chosen: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """Tests named after a primary file (``test_tax.py``, ``orders.service.spec.ts``), or that
    import it and share a word of its name (a generic ``__init__`` or ``index`` never counts)."""
    found: list[tuple[int, int, str]] = []
    for r, d in chosen:
        index = scored[r].index
        table = file_table(index)
        stem = module_stem(index.files[d])
        if stem in GENERIC_STEMS:
            continue
        words = set(terms(stem))
        named = set(table.tests.get(stem, []))
        users = {j for j in index.importers[d] if j in table.test_stems and words & set(terms(table.test_stems[j]))}
        found += [(r, j, f"tests {index.files[d]}") for j in sorted(named | users)]
    return found[:MAX_TESTS]


def related_files(
    scored: list[Scored], chosen: list[tuple[int, int]], q: Query, room: int
) -> list[tuple[int, int, str]]:
    """(repo, doc, reason) of related files, best first, at most ``room``."""
    graph = _graph(scored, chosen, q)
    sources = chosen + [(r, d) for r, d, _ in graph if scored[r].index.kinds[d] in ("api client", "route")]
    out: dict[tuple[int, int], str] = {}
    tests = _tests(scored, chosen)
    for r, d, reason in _pairs(scored, sources, q) + tests[:1] + graph + tests[1:]:
        if (r, d) not in chosen and (r, d) not in out:
            out[(r, d)] = reason
    return [(r, d, reason) for (r, d), reason in list(out.items())[:room]]
