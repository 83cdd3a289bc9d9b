"""Choose a context pack: ranked primary files, then related files, each with its reason.

Scores: BM25F per repository as a share of what a perfect match of every query term
would score there (so packs over several repositories compare), plus a bonus for query
words in the file's own name, lifted one step down the import graph, times a kind
factor (tests, catalogs, docs, examples demoted unless the task is about them), a slight lift
for files many others import and a lift for long modules (where changes land), blended with
BM25 counting the task's words over definitions and whole files (``prose``), plus evidence
(named file or symbol, route handler, quoted message: after the blend for a short task). Primary files fill the pack
while the scores stay flat (a task's second and third file) and are cut where they
really drop; tests, docs and config only lead a pack, they never fill it. Given an evaluation
corpus's ``goldScope``, only the files it allows are ranked and packed (``in_scope``).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ..code.kinds import LIFTED_BY, is_code
from ..contract import PACK_LIMIT, FileRef, GoldScope, Pack, Repo
from .filetable import Masks, allowed, file_table, in_scope
from .index import RepoIndex, load_index
from .query import Query, analyse, is_long
from .ranking import K1
from .related import graph_fill, quiet, related_files
from .render import outline_text, render_text
from .scored import Scored
from .signals import SYMBOL_PIN, named_files, named_locales, named_symbols, quoted_messages, route_matches

if TYPE_CHECKING:
    import numpy as np

DEMOTION = {
    "example": 0.4,
    "test": 0.25,
    "fixture": 0.2,
    "translation": 0.2,
    "doc": 0.25,
    "migration": 0.4,
    "style": 0.5,
    "config": 0.6,
    "manifest": 0.5,
    "other": 0.6,
}
INTENT_BOOST = 1.6
ROLE_BOOST = 1.5  # a file of a kind the task's role words name
FLOOR = 0.15  # a further primary file scores at least this share of the best ranked one
MAX_PRIMARY = 5
HEAD_RATIO = 0.6  # a primary file shown in full scores at least this share of the best one
HEAD_GAP = 0.7  # ... and this share of the one before it
MAX_FULL = 2
HEAD_JOIN_PINS = 0.85  # beside a pinned file, an unpinned one shown in full scores at least this
FALLBACK_COVERAGE = 0.34
FALLBACK_CORE = "fallback: nothing in the task matched; a core file of the repository (long, widely imported)"
JOINED_WEIGHT = 0.5
PROPAGATION = 0.5  # share of an importer's score a matching imported file gains
PROPAGATE_FROM = 0.5  # only importers scoring at least this share of the best file propagate
NAME_BONUS = 0.5  # share of the query's weight found in the file's own name, added on top
CENTRALITY = 0.1  # a file imported by many others scores up to (1 + this) times its lexical score
GRAPH_FILL = True  # a pack the ranking leaves short fills with the primary files' import neighbours
CORE_FILL = 1  # a pack with fewer library code files than this (none) fills with the repository's core files
EVERY = 1 << 30  # "no cap": the fills are cut after the files a goldScope rules out are dropped
SIZE = 1.5  # a long source file scores up to (1 + this) times its lexical score: changes land in big files


def kind_factors(index: RepoIndex, q: Query) -> np.ndarray:
    """Per-file multiplier: demoted kinds stay down unless the task is about them; the kinds
    its role words ask for (``the checkout controller``) are lifted."""
    import numpy as np

    def factor(kind: str) -> np.float32:
        value = np.float32(INTENT_BOOST if LIFTED_BY.get(kind) in q.intents else DEMOTION.get(kind, 1.0))
        return value * np.float32(ROLE_BOOST) if kind in q.roles else value

    return file_table(index).per_kind(factor, np.float32)


def _rank(index: RepoIndex, q: Query) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray | None]:
    """(BM25F share of a perfect match plus the name bonus, idf-weighted share of the query
    terms this repository knows that a file matches, the query word of each ranked term,
    documents x ranked terms matched)."""
    import numpy as np

    ranker = index.ranker
    joined = [t for t in q.joined if t in ranker.vocab]
    query_terms = q.terms + joined
    weights = np.asarray(q.weights + [JOINED_WEIGHT] * len(joined), dtype=np.float32)
    unknown_idf = float(np.log1p((ranker.size + 0.5) / 0.5))
    idf_all = np.asarray(
        [ranker.idf[ranker.vocab[t]] if t in ranker.vocab else unknown_idf for t in query_terms], dtype=np.float32
    )
    known = [j for j, t in enumerate(query_terms) if t in ranker.vocab]
    ideal = float((idf_all * weights).sum()) * (K1 + 1.0) or 1.0
    if not known:
        zero = np.zeros(ranker.size, dtype=np.float32)
        return zero, zero, [], None
    scores, matched, named = ranker.score([ranker.vocab[query_terms[j]] for j in known], weights[known])
    mass = idf_all[known] * weights[known]
    total = float((idf_all * weights).sum())
    coverage = (matched * mass).sum(axis=1) / float(mass.sum())
    scores = scores / ideal + NAME_BONUS * (named * mass).sum(axis=1) / total
    return scores, coverage, [q.sources[query_terms[j]] for j in known], matched


def _propagate(index: RepoIndex, base: np.ndarray) -> np.ndarray:
    """One step down the import graph: a matching file used by a strong match gains a share
    of that match's score (a page's data-fetching helper rises with the page)."""
    import numpy as np

    lifted = base.copy()
    strong: list[int] = (
        np.flatnonzero(base >= PROPAGATE_FROM * base.max()).tolist() if base.size and base.max() > 0 else []
    )
    for src in strong:
        for dst in index.imports[src]:
            if base[dst] > 0:
                lifted[dst] = max(lifted[dst], base[dst] + PROPAGATION * base[src])
    return lifted


def centrality(index: RepoIndex) -> np.ndarray:
    """Per-file multiplier from the import graph: ``1 + CENTRALITY * log1p(importers) /
    log1p(most importers)``; among files that match a task alike, the one the rest of
    the repository builds on comes first."""
    import numpy as np

    def compute() -> np.ndarray:
        degree = np.fromiter((len(users) for users in index.importers), dtype=np.float32, count=len(index.files))
        top = float(degree.max()) if degree.size else 0.0
        if not CENTRALITY or top <= 0:
            return np.ones(len(index.files), dtype=np.float32)
        return 1.0 + CENTRALITY * np.log1p(degree) / np.log1p(top)

    return file_table(index).setting(("centrality", CENTRALITY), compute)


def size_prior(index: RepoIndex) -> np.ndarray:
    """Per-file multiplier ``1 + SIZE * log1p(lines) / log1p(most lines)`` over code files: BM25
    normalizes length away, yet the long modules are where most of a repository's changes land."""
    import numpy as np

    def compute() -> np.ndarray:
        lines = np.fromiter((f.lines for f in index.facts), dtype=np.float32, count=len(index.files))
        top = float(lines.max()) if lines.size else 0.0
        if not SIZE or top <= 0:
            return np.ones(len(index.files), dtype=np.float32)
        return 1.0 + SIZE * np.log1p(lines) / np.log1p(top)

    return file_table(index).setting(("size", SIZE), compute)


def _score(index: RepoIndex, q: Query, gold_scope: GoldScope | None = None) -> Scored:
    """Rank every file of one repository for ``q`` and add the evidence signals; a file the
    ``gold_scope`` rules out scores zero (``in_scope``)."""
    base, coverage, matched, hits = _rank(index, q)
    factors = kind_factors(index, q)
    lexical = _propagate(index, base) * factors * centrality(index) * size_prior(index)
    if not is_long(q.raw):
        lexical = _with_prose(index, q, lexical, factors)
    scored = Scored(index, lexical, coverage, matched, hits)
    pins = {**named_symbols(index, q), **named_files(index, q)}
    # How each kind of evidence meets a demoted file: a pin or a named language is the task's
    # own word and counts in full; a route counts demoted; a message found in a test or a doc
    # is an assertion or an explanation of it, not the code that raises it, so it counts not at all.
    for evidence, policy in (
        (route_matches(index, q), "demote"),
        (quoted_messages(index, q), "skip"),
        (named_locales(index, q), "full"),
        (pins, "full"),
    ):
        for doc, (strength, reason) in evidence.items():
            factor = 1.0 if policy == "full" else float(factors[doc])
            if policy == "skip" and factor < 1.0:
                continue
            scored.final[doc] += strength * factor
            scored.reasons[doc] = reason
            if strength >= SYMBOL_PIN and policy == "full":
                scored.pinned.add(doc)
    if is_long(q.raw):
        scored.final = _with_prose(index, q, scored.final, factors)
    scope = in_scope(index, gold_scope)
    if scope is not None:
        scored.final[~scope] = 0.0
        scored.pinned = {d for d in scored.pinned if scope[d]}
    return scored


def _with_prose(index: RepoIndex, q: Query, scores: np.ndarray, factors: np.ndarray) -> np.ndarray:
    """``scores`` blended with what textbook BM25 does right with the task's words (``prose``).
    A short task's evidence (a named file, symbol, route) is its point and is added after the
    blend, in full; in a long one (``is_long``) a name is one mention among many and is blended
    with the rest."""
    from .prose import blended

    return blended(index, q, scores, factors)


def ranked(scored: list[Scored]) -> Iterator[tuple[float, int, int]]:
    """(score, repo, doc) of every file scoring above zero, best first; equal scores go to the
    shallower path, then the path in sort order, then the earlier repository. Lazy: a pack
    reads only the head."""
    import numpy as np

    def best_first(r: int, final: np.ndarray) -> Iterator[tuple[float, int, int]]:
        table = file_table(scored[r].index)
        docs = np.flatnonzero(final > 0)
        docs = docs[np.lexsort((table.rank[docs], table.depth[docs], -final[docs]))]
        for start in range(0, len(docs), 16):  # a few at a time: most packs read five or six
            for d in docs[start : start + 16].tolist():
                yield float(final[d]), r, d

    heads = [best_first(r, s.final) for r, s in enumerate(scored)]
    if len(heads) == 1:
        return heads[0]
    key: Callable[[tuple[float, int, int]], tuple[float, int, str]] = lambda t: (  # noqa: E731
        -t[0],
        scored[t[1]].index.files[t[2]].count("/"),
        scored[t[1]].index.files[t[2]],
    )
    return heapq.merge(*heads, key=key)


def _choose(scored: list[Scored], limit: int, q: Query) -> list[tuple[int, int]]:
    """(repo, doc) of the primary files, best first: the pinned files, then ranked files down
    to where the scores really drop (below ``FLOOR`` of the best ranked one), at most ``cap``.
    Tests, docs, config and the like fill no place after the first unless the task is about them."""
    cap = min(MAX_PRIMARY, limit)
    pins = {(r, d) for r, s in enumerate(scored) for d in s.pinned if s.final[d] > 0}
    pinned = [(r, d) for _, r, d in ranked(scored) if (r, d) in pins][:cap] if pins else []
    chosen = list(pinned)
    best: float | None = None
    for value, r, d in ranked(scored):
        if (r, d) in pinned:
            continue
        if best is None:
            best = value
        if len(chosen) >= cap or value < FLOOR * best:
            break
        if chosen and quiet(scored[r].index.kinds[d], q):
            continue
        chosen.append((r, d))
    return chosen


def _is_weak(scored: list[Scored], chosen: list[tuple[int, int]]) -> bool:
    """Nothing matched: no evidence, and no file matches a third of what the repositories
    know of the task's terms (words they have never seen say nothing either way)."""
    if not chosen:
        return True
    if any(s.pinned or s.reasons for s in scored):
        return False
    return max((float(s.coverage.max()) for s in scored if s.coverage.size), default=0.0) < FALLBACK_COVERAGE


def _fallback(scored: list[Scored], limit: int, q: Query, masks: Masks) -> list[tuple[int, int]]:
    """Entry points (two per repository, among the files ``masks`` allow), for a task that names
    nothing the code has; a repository with no code entry point offers its core files instead
    (never a manifest)."""
    entries: list[tuple[int, int]] = []
    for r, s in enumerate(scored):
        found = [(r, d) for d in s.index.entries if allowed(masks, r, d)][:2]
        if not any(is_code(s.index.files[d]) for _, d in found):
            found = _core([scored[r]], [], q, 2, [masks[r]], reason=FALLBACK_CORE) + found
            found = [(r, d) for _, d in found]
        entries += found[:2]
    for r, d in entries:
        scored[r].reasons.setdefault(d, "fallback: nothing in the task matched; an entry point")
    return entries[: min(MAX_PRIMARY, limit)]


def _core(
    scored: list[Scored],
    chosen: list[tuple[int, int]],
    q: Query,
    room: int,
    masks: Masks,
    reason: str = "a core file of the repository (long, widely imported)",
) -> list[tuple[int, int]]:
    """The repositories' core source files (long and widely imported, among those ``masks`` allow)
    for a pack that neither the ranking nor the import graph could fill: where a vague task most
    likely lands."""
    import numpy as np

    if room <= 0:
        return []
    pool = []
    for r, s in enumerate(scored):
        table = file_table(s.index)
        prior = centrality(s.index) * size_prior(s.index)
        wanted = table.code & table.per_kind(lambda kind: not quiet(kind, q) and kind != "example", bool)
        if masks[r] is not None:
            wanted &= masks[r]
        wanted[[d for rr, d in chosen if rr == r]] = False
        docs = np.flatnonzero(wanted)
        docs = docs[np.argsort(-prior[docs], kind="stable")][:room]
        pool += [(float(prior[d]), r, d) for d in docs.tolist()]
    pool.sort(key=lambda t: -t[0])
    picked = [(r, d) for _, r, d in pool[:room]]
    for r, d in picked:
        scored[r].reasons.setdefault(d, reason)
    return picked


def _head(scored: list[Scored], chosen: list[tuple[int, int]]) -> int:
    """How many primary files the agent text shows in full: the pinned ones, then those
    scoring close to the best (``HEAD_RATIO`` of it, ``HEAD_GAP`` of the one before, at most
    ``MAX_FULL``); the files that only fill the pack are shown as outlines."""
    count = 0
    best: float | None = None
    previous = 0.0
    for r, d in chosen:
        value = float(scored[r].final[d])
        if d in scored[r].pinned:
            count += 1
            continue
        if best is None and count and value < HEAD_JOIN_PINS:
            break  # beside a named file or symbol, only a near-perfect match is shown in full
        if best is None:
            best = previous = value
        elif count >= MAX_FULL or value < HEAD_RATIO * best or value < HEAD_GAP * previous:
            break
        previous = value
        count += 1
    return max(count, 1)


def _outline(index: RepoIndex, doc: int) -> str:
    """The outline text of a file (the same for every query: kept on the index)."""
    known: dict[int, str] = index.derived.setdefault("outlines", {})
    if doc not in known:
        known[doc] = outline_text(index.facts[doc].outline.symbols)
    return known[doc]


def rank_files(
    query: str, repos: list[Repo], top_k: int = 20, gold_scope: GoldScope | None = None
) -> list[tuple[str, str]]:
    """(repository name, path) of the ``top_k`` files ``build_pack`` ranks best for ``query``: its
    scores (BM25F, priors, evidence) in its order, before it picks, fills and renders a pack."""
    q = analyse(query)
    scored = [_score(load_index(repo.path), q, gold_scope) for repo in repos]
    return [(repos[r].name, scored[r].index.files[d]) for _, r, d in itertools.islice(ranked(scored), top_k)]


def build_pack(query: str, repos: list[Repo], limit: int = PACK_LIMIT, gold_scope: GoldScope | None = None) -> Pack:
    """The reference engine's context pack for ``query`` over ``repos`` (at most ``limit`` files),
    of files the corpus's ``gold_scope`` allows (``in_scope``; None: any file)."""
    q = analyse(query)
    scored = [_score(load_index(repo.path), q, gold_scope) for repo in repos]
    masks = [in_scope(s.index, gold_scope) for s in scored]
    allows: Callable[[int, int], bool] = lambda r, d: allowed(masks, r, d)  # noqa: E731
    chosen = _choose(scored, limit, q)
    if _is_weak(scored, chosen):
        chosen = _fallback(scored, limit, q, masks)
    elif GRAPH_FILL and (room := min(MAX_PRIMARY, limit) - len(chosen)) > 0:
        for r, d, reason in [found for found in graph_fill(scored, chosen, q, EVERY) if allows(*found[:2])][:room]:
            chosen.append((r, d))
            scored[r].reasons.setdefault(d, reason)
    if (
        sum(
            1
            for r, d in chosen
            if not quiet(scored[r].index.kinds[d], q)
            and scored[r].index.kinds[d] != "example"
            and is_code(scored[r].index.files[d])
        )
        < CORE_FILL
    ):
        chosen += _core(scored, chosen, q, min(MAX_PRIMARY, limit) - len(chosen), masks)
    related = [found for found in related_files(scored, chosen, q, EVERY) if allows(*found[:2])]
    related = related[: max(0, limit - len(chosen))]
    primary = [FileRef(repos[r].name, scored[r].index.files[d], scored[r].reason(d)) for r, d in chosen]
    others = [FileRef(repos[r].name, scored[r].index.files[d], reason) for r, d, reason in related]
    head = _head(scored, chosen)
    outlines = {
        (repos[r].name, scored[r].index.files[d]): _outline(scored[r].index, d)
        for r, d in [*chosen[head:], *((r, d) for r, d, _ in related)]
    }
    text = render_text(primary[:head], primary[head:] + others, repos, outlines)
    return Pack(primary=primary, related=others, text=text)
