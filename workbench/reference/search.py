"""Symbol search: rank the (file, symbol) pairs of a repository for a query.

A symbol scores by BM25F over the symbol table (``symtable``: its own name's words
first, then its owner, its file's path, and its body with doc comments) times its
file's kind factor (tests and docs demoted unless the query is about them), plus a
share of its file's score in the engine's file-level BM25F (path, symbols, exports,
routes, content), all times a small prior by kind of symbol and a size prior (``size_prior``:
long definitions are where edits land). On top: exact identifier
mentions (``OrdersService.cancel``, ``compute_tax``, a one-word query naming a symbol)
are pinned first, and a route-shaped query lifts the handlers its routes name. Adjacent
words count joined too (``shut down`` meets ``shutdown``, ``send overdue reminders``
meets ``send_overdue_reminders``).
A long task's symbols also score by BM25 counting its words (``prose``). The hits are ranked
by score alone (a file's definitions are not spread out: the right file's next definitions are
the next best guesses) and name each (file, symbol) once; files defining no symbol take part as
file-level hits (symbol ``""``), and when no symbol matches at all the answer is the file ranking.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ..contract import FileRef, Repo, SearchHit, SymbolRef
from ..errors import TargetError
from .index import RepoIndex, load_index
from .pack import kind_factors
from .prose import posting_scores
from .query import Query, analyse, is_long
from .ranking import K1, Ranker
from .routes import match
from .signals import route_matches
from .symtable import SymbolTable, searchable
from .text import stem, symbol_keys

FILE_SHARE = 0.5  # weight of the file's own score
JOINED_WEIGHT = 0.5  # adjacent query words spelled as one identifier
PIN = 4.0  # an exact identifier mention: above anything ranking can reach (times the largest size prior)
AS_WRITTEN = 0.5  # ... more when spelled exactly (``add_argument``, not ``add_arguments``)
HANDLER = 1.0  # the named handler of a route the query matches
SYMBOL_SIZE = 2.0  # long definitions first: ``1 + SYMBOL_SIZE * log1p(lines) / log1p(most lines)``
PROSE_SHARE = 0.5  # a long task's symbol score: this share is BM25 counting the task's words (``prose``)
CANDIDATES = 400  # how deep the ranking is sorted: enough for ``top_k`` after diversity
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_ONE_TOKEN = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?$")


def _share(ranker: Ranker, terms: list[str], weights: np.ndarray) -> np.ndarray:
    """BM25F as a share of a perfect match of every query term (a term the repository never
    saw counts against a match at the rarest IDF)."""
    unknown = float(np.log1p((ranker.size + 0.5) / 0.5))
    idf = np.asarray([ranker.idf[ranker.vocab[t]] if t in ranker.vocab else unknown for t in terms], dtype=np.float32)
    known = [j for j, t in enumerate(terms) if t in ranker.vocab]
    if not known:
        return np.zeros(ranker.size, dtype=np.float32)
    scores = posting_scores(ranker, [ranker.vocab[terms[j]] for j in known], weights[known])
    return scores / ((float((idf * weights).sum()) or 1.0) * (K1 + 1.0))


def runs(raw: str) -> list[str]:
    """Every two or three adjacent words of ``raw`` written as one lower-case word, stop words
    included: names join phrasal verbs (``shut down`` -> ``shutdown``, ``log in`` -> ``login``)."""
    words = [w.lower() for w in _WORD.findall(raw)]
    return list(dict.fromkeys("".join(words[i : i + n]) for n in (2, 3) for i in range(len(words) - n + 1)))


def _query_terms(q: Query, *rankers: Ranker) -> tuple[list[str], np.ndarray]:
    """The query's terms and weights, with joined words wherever some model knows them."""
    candidates = dict.fromkeys(q.joined + [stem(run) for run in runs(q.raw)])
    joined = [t for t in candidates if t not in q.terms and any(t in r.vocab for r in rankers)]
    return q.terms + joined, np.asarray(q.weights + [JOINED_WEIGHT] * len(joined), dtype=np.float32)


def _mentions(q: Query) -> list[str]:
    """Identifier mentions; a whole query of one name-shaped token is one too (``getenv``)."""
    whole = q.raw.strip().removesuffix("()")
    alone = _ONE_TOKEN.match(q.raw.strip()) and whole not in q.identifiers
    return q.identifiers + ([whole] if alone else [])


def _near(index: RepoIndex, table: SymbolTable, found: list[int], owner: str) -> list[int]:
    """Of ``found``, those whose file or folder is named ``owner`` (``sku.Parse`` in ``sku/``)."""
    wanted = set(symbol_keys(owner))
    near = [
        s
        for s in found
        if wanted & {k for part in index.files[table.file[s]].split("/")[-2:] for k in symbol_keys(Path(part).stem)}
    ]
    return near or found


def _pin(index: RepoIndex, table: SymbolTable, mention: str, lift: np.ndarray) -> None:
    """Pin the symbols a mention names: qualified first, else by member (near its owner)."""
    keys = symbol_keys(mention)
    found = list(dict.fromkeys(s for key in keys for s in table.keys.get(key, [])))
    if not found and "." in mention:
        owner, member = mention.rsplit(".", 1)
        keys = symbol_keys(member)
        found = _near(index, table, list(dict.fromkeys(s for k in keys for s in table.keys.get(k, []))), owner)
    bare = mention.rsplit(".", 1)[-1]
    for s in found:
        exact = table.name[s] in (mention, bare) or table.name[s].endswith("." + bare)
        lift[s] = max(lift[s], (PIN + AS_WRITTEN * exact) * (1.0 + SYMBOL_SIZE))


def _evidence(index: RepoIndex, table: SymbolTable, q: Query) -> np.ndarray:
    """Per-symbol lift: pinned mentions and the handlers of a matched route."""
    lift = np.zeros(len(table.name), dtype=np.float32)
    for mention in _mentions(q):
        _pin(index, table, mention, lift)
    if q.route is not None:
        _lift_handlers(index, table, q.route, lift)
    return lift


def _lift_handlers(index: RepoIndex, table: SymbolTable, route: tuple[str, tuple[str, ...]], lift: np.ndarray) -> None:
    """The handler a matching route names (``mux.HandleFunc("GET /x", h.GetStock)``)."""
    method, segments = route
    served = [
        r
        for _, r in index.routes
        if r.role == "serve" and r.handler and (not method or not r.method or r.method == method)
    ]
    quality = [match(segments, r.segments) for r in served]
    best = max(quality, default=0.0)
    for r, value in zip(served, quality):
        if value > 0:
            for s in {s for key in symbol_keys(r.handler.rsplit(".", 1)[-1]) for s in table.keys.get(key, [])}:
                lift[s] = max(lift[s], HANDLER * value / best)


def _file_scores(index: RepoIndex, q: Query, terms: list[str], weights: np.ndarray, factors: np.ndarray) -> np.ndarray:
    """Each file's score: its BM25F share plus route evidence, kind-weighted."""
    scores = _share(index.ranker, terms, weights)
    for doc, (strength, _) in route_matches(index, q).items():
        scores[doc] += strength
    return scores * factors


def size_prior(table: SymbolTable) -> np.ndarray:
    """Per-symbol multiplier ``1 + SYMBOL_SIZE * log1p(lines) / log1p(most lines)``: the file-level
    size prior one level down. Edits land in long definitions far more often than in one-liners
    (an edit's lines fall in a definition about in proportion to its length), and BM25's length
    normalization takes that away."""
    top = float(table.size.max()) if len(table.size) else 0.0
    if not SYMBOL_SIZE or top <= 0:
        return np.ones(len(table.size), dtype=np.float32)
    return (1.0 + SYMBOL_SIZE * np.log1p(table.size) / np.log1p(top)).astype(np.float32)


def _symbol_weight(index: RepoIndex, table: SymbolTable) -> np.ndarray:
    """``table.prior * size_prior(table)``: the same for every query, kept on the index per table and setting."""
    key = f"symbol weight {SYMBOL_SIZE}"
    found = index.derived.get(key)
    if found is None or found[0] is not table:
        found = index.derived[key] = (table, table.prior * size_prior(table))
    return found[1]


def _ranked(values: np.ndarray) -> np.ndarray:
    """Indices with a positive value, best first; equal scores (to float32 noise) in file order."""
    candidates = np.flatnonzero(values > 0)
    if len(candidates) > CANDIDATES:
        candidates = np.sort(candidates[np.argpartition(-values[candidates], CANDIDATES)[:CANDIDATES]])
    return candidates[np.lexsort((candidates, -np.round(values[candidates], 5)))]


def search_index(index: RepoIndex, query: str, top_k: int = 20) -> list[SearchHit]:
    """Ranked (file, symbol) hits of ``query`` over an already loaded index."""
    if top_k <= 0 or not index.files:
        return []
    q = analyse(query)
    table = searchable(index)
    terms, weights = _query_terms(q, index.ranker, table.ranker)
    factors = kind_factors(index, q)
    files = _file_scores(index, q, terms, weights, factors)
    own = _share(table.ranker, terms, weights) if table.name else np.zeros(0, dtype=np.float32)
    if is_long(q.raw):
        own, files = _prose(index, table, q, own, files, factors)
    lift = _evidence(index, table, q)
    if not own.any() and not lift.any():
        order = _ranked(files)[:top_k]
        return [SearchHit(index.files[d], "", None, round(float(files[d]), 6)) for d in order]
    values = np.concatenate(
        [
            _symbol_weight(index, table) * (own * factors[table.file] + FILE_SHARE * files[table.file]) + lift,
            FILE_SHARE * files[table.bare_files],
        ]
    )
    chosen = _ranked(values)
    return _distinct((_hit(index, table, int(c), float(values[c])) for c in chosen), top_k)


def _distinct(hits: Iterable[SearchHit], top_k: int) -> list[SearchHit]:
    """The first ``top_k`` hits naming distinct (file, symbol) pairs: a property's getter, setter
    and deleter, or a function defined per platform, are one name to whoever reads the hits."""
    seen: set[tuple[str, str]] = set()
    out = []
    for hit in hits:
        if (hit.file, hit.symbol) not in seen:
            seen.add((hit.file, hit.symbol))
            out.append(hit)
            if len(out) == top_k:
                break
    return out


def _prose(
    index: RepoIndex, table: SymbolTable, q: Query, own: np.ndarray, files: np.ndarray, factors: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A long task's symbol and file scores with what textbook BM25 does right with prose
    (``prose``): each symbol's score half its own, half BM25 with the task's term counts; the
    files blended as the pack blends them."""
    from .prose import blended, prose_legs, unit

    if table.name:
        counted = prose_legs(index, q, factors)[0]
        own = (PROSE_SHARE * unit(counted) + (1.0 - PROSE_SHARE) * unit(own)) * float(own.max() or 1.0)
    return own, blended(index, q, files, factors)


def _hit(index: RepoIndex, table: SymbolTable, c: int, score: float) -> SearchHit:
    if c < len(table.name):
        return SearchHit(index.files[table.file[c]], table.name[c], int(table.line[c]), round(score, 6))
    return SearchHit(index.files[table.bare_files[c - len(table.name)]], "", None, round(score, 6))


def search(query: str, repo: Repo | Path | str, top_k: int = 20) -> list[SearchHit]:
    """The reference engine's ``top_k`` (file, symbol) hits for ``query`` in ``repo``."""
    if not isinstance(query, str):
        raise TargetError(f"search: query must be a string, got {type(query).__name__}")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0:
        raise TargetError(f"search: top_k must be a non-negative integer, got {top_k!r}")
    return search_index(load_index(repo.path if isinstance(repo, Repo) else repo), query, top_k)


PACK_SYMBOLS = 20  # ranked definitions a pack carries
SYMBOL_DEPTH = 50  # search hits read per repository to find them


def pack_symbols(query: str, repos: list[Repo], primary: list[FileRef], top_k: int = PACK_SYMBOLS) -> list[SymbolRef]:
    """A pack's ranked ``symbols``: the definitions ``search`` ranks for ``query`` (see ``rank_pack_symbols``)."""
    found = [(repo.name, search_index(load_index(repo.path), query, SYMBOL_DEPTH)) for repo in repos]
    return rank_pack_symbols(found, primary, top_k)


def rank_pack_symbols(
    hits: list[tuple[str, list[SearchHit]]], primary: list[FileRef], top_k: int = PACK_SYMBOLS
) -> list[SymbolRef]:
    """The ``top_k`` symbol hits of each (repository name, search hits), those in the pack's
    ``primary`` files first, then the rest; each group in search order (one repository) or by
    search score (several). File-level hits (symbol ``""``) are left out."""
    files = {(ref.repo, ref.path) for ref in primary}
    found: list[tuple[bool, float, int, SymbolRef]] = []
    for name, repo_hits in hits:
        for hit in repo_hits:
            if hit.symbol:
                order = -(hit.score or 0.0) if len(hits) > 1 else 0.0
                found.append(((name, hit.file) not in files, order, len(found), SymbolRef(name, hit.file, hit.symbol)))
    found.sort(key=lambda item: item[:3])
    return [ref for *_, ref in found[:top_k]]
