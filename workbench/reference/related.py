"""Related files of a pack: route pairs across repositories, import neighbours, tests.

Order of preference: the other side of a route a primary file serves or calls
(the web client's call for an API handler, and back), then the first test that
exercises a primary file, then files a primary imports or is imported by (Go: its
package siblings), best ranked first, then further tests. ``graph_fill`` offers the
same neighbours to fill the primary files of a pack the ranking left short.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .cochange import partners
from .kinds import LIFTED_BY, extension
from .query import Query
from .routes import Route, match, render
from .text import terms

if TYPE_CHECKING:
    from .pack import Scored

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
        for _, route in (item for item in scored[r].index.routes if item[0] == d and item[1].role != "mount"):
            for r2, doc, quality, reason in _counterparts(scored, r, d, route, q):
                if quality > found.get((r2, doc), (0.0, ""))[0]:
                    found[(r2, doc)] = (quality, reason)
    ranked = sorted(found.items(), key=lambda kv: -kv[1][0])
    return [(r, d, reason) for (r, d), (_, reason) in ranked[:MAX_PAIRS]]


def _neighbours(s: Scored, d: int) -> list[tuple[int, str]]:
    index = s.index
    path = index.files[d]
    out = [(j, f"imported by {path}") for j in index.imports[d]]
    out += [(j, f"imports {path}") for j in index.importers[d]]
    out += [
        (j, f"declares the types of {path}" if _is_stub(index.files[j]) else f"implements {path}")
        for j in _stub_siblings(index.files, path)
    ]
    history = partners(index.root, index.files, index.tree) if COCHANGE else {}
    out += [(j, f"changed together with {path} in {n} earlier commits") for j, n in history.get(d, [])]
    if extension(path) == ".go":
        folder = posixpath.dirname(path)
        out += [
            (j, f"same Go package as {path}")
            for j, p in enumerate(index.files)
            if j != d and posixpath.dirname(p) == folder and p.endswith(".go") and index.kinds[j] != "test"
        ]
    return out


_STUBS = ((".pyi", (".py",)), (".d.ts", (".js", ".mjs", ".cjs", ".ts")), (".d.mts", (".mjs", ".mts")))


def _is_stub(path: str) -> bool:
    return path.endswith(tuple(stub for stub, _ in _STUBS))


def _stub_siblings(files: list[str], path: str) -> list[int]:
    """A type stub and the module it declares (``x.pyi`` and ``x.py``, ``index.d.ts`` and
    ``index.js``): one changes when the other's signatures do."""
    wanted: list[str] = []
    for stub, sources in _STUBS:
        if path.endswith(stub):
            wanted += [path[: -len(stub)] + ext for ext in sources]
        else:
            wanted += [path[: -len(ext)] + stub for ext in sources if path.endswith(ext) and not _is_stub(path)]
    if not wanted:
        return []
    found = set(wanted)
    return [i for i, other in enumerate(files) if other in found]


def quiet(kind: str, q: Query) -> bool:
    """Kinds that only join a pack (beyond its first file) when the task is about them."""
    return kind in QUIET_KINDS and LIFTED_BY.get(kind) not in q.intents


def _quiet(s: Scored, doc: int, q: Query) -> bool:
    return quiet(s.index.kinds[doc], q)


def _graph(scored: list[Scored], chosen: list[tuple[int, int]], q: Query) -> list[tuple[int, int, str]]:
    found: dict[tuple[int, int], tuple[float, str]] = {}
    for r, d in chosen:
        for j, reason in _neighbours(scored[r], d):
            if (r, j) in chosen or _quiet(scored[r], j, q):
                continue
            value = float(scored[r].final[j])
            if value > found.get((r, j), (-1.0, ""))[0]:
                found[(r, j)] = (value, reason)
    ranked = sorted(found.items(), key=lambda kv: -kv[1][0])
    return [(r, d, reason) for (r, d), (_, reason) in ranked[:MAX_GRAPH]]


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
    found: dict[tuple[int, int], tuple[tuple[float, int], str]] = {}
    for r, d in chosen:
        for j, reason in _neighbours(scored[r], d):
            if (r, j) in chosen or _quiet(scored[r], j, q) or scored[r].index.kinds[j] == "example":
                continue
            key = (float(scored[r].final[j]), scored[r].index.facts[j].lines)
            if (r, j) not in found or key > found[(r, j)][0]:
                found[(r, j)] = (key, reason)
    ranked = sorted(found.items(), key=lambda kv: (-kv[1][0][0], -kv[1][0][1]))
    return [(r, d, reason) for (r, d), (_, reason) in ranked]


def _test_stem(path: str) -> str:
    base = posixpath.basename(path).split(".")[0]
    for affix in ("test_", "_test", "_spec", "spec_"):
        base = base.removeprefix(affix) if affix.endswith("_") else base.removesuffix(affix)
    return base.lower()


def _tests(scored: list[Scored], chosen: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """Tests named after a primary file (``test_tax.py``, ``orders.service.spec.ts``), or that
    import it and share a word of its name (a generic ``__init__`` or ``index`` never counts)."""
    found: list[tuple[int, int, str]] = []
    for r, d in chosen:
        index = scored[r].index
        stem = _test_stem(index.files[d])
        if stem in GENERIC_STEMS:
            continue
        words = set(terms(stem))
        for j in (j for j, kind in enumerate(index.kinds) if kind == "test"):
            other = _test_stem(index.files[j])
            if other == stem or (d in index.imports[j] and words & set(terms(other))):
                found.append((r, j, f"tests {index.files[d]}"))
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
