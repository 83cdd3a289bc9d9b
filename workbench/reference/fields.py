"""The ranking fields of a file: terms of its name, folders, symbols and routes, and lookup keys.

Content-only fields are computed once per file where it is parsed (and cached with
its facts); the path fields are recomputed per index, because the same bytes may
live under different paths.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..code.kinds import extension
from ..code.outline import MAJOR_KINDS, Outline
from .routes import Route
from .text import identifier_terms, split_identifier, symbol_keys, terms

DEFINING = frozenset({"class", "function", "method", "interface", "type", "enum", "struct"})


def _count(items: list[str], weight: int = 1, into: dict[str, int] | None = None) -> dict[str, int]:
    counts = {} if into is None else into
    for term in items:
        counts[term] = counts.get(term, 0) + weight
    return counts


def path_fields(rel: str, words: frozenset[str] = frozenset()) -> tuple[dict[str, int], dict[str, int]]:
    """(name, dir) term counts of a path; the extension is dropped, it names no concept.

    Names written as one lower-case word (``argparse``, ``tarfile``, ``httputil``) also
    count the known words they are made of (``words``: the repository's identifier parts).
    A file whose own name says nothing (``__init__.py``, ``index.ts``, ``page.tsx``, a
    route parameter such as ``[id].tsx``) is also named by its folder: the nearest one that
    is not a route group (``(tabs)``) or a parameter (``app/(tabs)/explore/[id].tsx`` is an
    ``explore`` page).
    """
    directory, _, base = rel.rpartition("/")
    stem = base[: -len(extension(base))] if extension(base) else base
    name = _count(terms(stem.replace(".", " ")) + list(identifier_terms(stem.replace(".", "_"))))
    if _says_nothing(stem):
        folder = next((d for d in reversed(directory.split("/")) if d and not _is_segment_shape(d)), "")
        _count(terms(folder), 1, name)
    for part in split_identifier(stem):
        _count([t for w in compound_parts(part, words) for t in terms(w)], 1, name)
    folders = _count(terms(directory.replace("/", " ")))
    for part in split_identifier(directory):
        _count([t for w in compound_parts(part, words) for t in terms(w)], 1, folders)
    return name, folders


GENERIC_NAMES = frozenset(
    {
        "__init__",
        "__main__",
        "index",
        "page",
        "layout",
        "route",
        "main",
        "mod",
        "default",
        "+page",
        "+layout",
        "+server",
        "+page.server",
        "_layout",
        "screen",
        "view",
        "template",
    }
)


def _is_segment_shape(part: str) -> bool:
    """A route parameter (``[id]``, ``[...slug]``, ``$id``, ``:id``) or a route group (``(tabs)``)."""
    return part[:1] in "[($:" and bool(part)


def _says_nothing(stem: str) -> bool:
    return stem.lower() in GENERIC_NAMES or _is_segment_shape(stem)


def compound_parts(word: str, words: frozenset[str]) -> list[str]:
    """Split a run-together word into two or three known words (``argparse`` -> ``arg``,
    ``parse``); ``[]`` when it is a known word itself or no split uses known words only."""
    if len(word) < 6 or word in words:
        return []
    for i in range(3, len(word) - 2):
        head, tail = word[:i], word[i:]
        if head in words and tail in words:
            return [head, tail]
    for i in range(3, len(word) - 5):
        if word[:i] in words:
            rest = compound_parts(word[i:], words)
            if len(rest) == 2:
                return [word[:i], *rest]
    return []


def identifier_parts(outline: Outline) -> set[str]:
    """Lower-case parts (three letters or more) of the names a file defines."""
    return {p for name, _, _ in outline.symbols for p in split_identifier(name) if len(p) >= 3 and p.isalpha()}


def symbol_terms(outline: Outline) -> dict[str, int]:
    """Terms of the names a file defines; classes and top-level functions count twice."""
    counts: dict[str, int] = {}
    for name, kind, _ in outline.symbols:
        _count(list(identifier_terms(name.rsplit(".", 1)[-1])), 2 if kind in MAJOR_KINDS else 1, counts)
    return counts


_LEADING_COMMENT = re.compile(r"\A(?:\s*(?://[^\n]*|#(?!!)[^\n]*|/\*.*?\*/)\n?){1,40}", re.DOTALL)


def doc_terms(outline: Outline, text: str) -> dict[str, int]:
    """Terms of what a file says about itself: docstrings (Python), else its leading comment
    block (``// Package logrus is a structured logger``, a ``/** ... */`` file header)."""
    if outline.docs:
        return _count([t for doc in outline.docs for t in terms(doc)])
    head = _LEADING_COMMENT.match(text[:4000])
    return _count(terms(head.group(0))) if head else {}


def export_terms(outline: Outline) -> dict[str, int]:
    """Terms of the names a file exports (its public surface: what importers call it for)."""
    return _count([t for name in outline.exports for t in identifier_terms(name.rsplit(".", 1)[-1])])


def route_terms(routes: list[Route]) -> dict[str, int]:
    """Terms of the literal segments of the routes a file serves or calls."""
    return _count([t for r in routes for t in terms(" ".join(s for s in r.segments if s != ":"))])


def lookup_keys(outline: Outline) -> tuple[str, ...]:
    """Every key a task may name a defined symbol by: bare and ``Owner.member``, any spelling."""
    names = {n for n, kind, _ in outline.symbols if kind in DEFINING}
    names |= {n.rsplit(".", 1)[-1] for n in names}
    return tuple(sorted({k for n in names for k in symbol_keys(n)}))


@lru_cache(maxsize=1 << 16)
def _compoundable(rel: str) -> tuple[str, ...]:
    """The parts of ``rel`` (its name's, then its folders') that ``path_fields`` may split into known
    words: only these make its fields depend on the repository's words."""
    directory, _, base = rel.rpartition("/")
    stem = base[: -len(extension(base))] if extension(base) else base
    return tuple(part for part in split_identifier(stem) + split_identifier(directory) if len(part) >= 6)


def path_signature(rel: str, words: frozenset[str], splits: dict[str, tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    """What ``path_fields(rel, words)`` reads of ``words``: how each compoundable part splits
    (``splits`` memoizes them for one ``words``). Equal signatures, equal fields."""
    out = []
    for part in _compoundable(rel):
        split = splits.get(part)
        if split is None:
            split = splits[part] = tuple(compound_parts(part, words))
        out.append(split)
    return tuple(out)
