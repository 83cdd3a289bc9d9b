"""Code-aware tokenization shared by the reference engine, the controls and the risk vocabulary.

Identifiers split on camelCase, snake_case, kebab-case, digits and path separators;
words are lower-cased; ``fold_plural`` maps simple English plurals to their singular,
so ``users``, ``user`` and ``UserService`` share the token ``user``.
"""
from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*|[0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def split_identifier(identifier: str) -> list[str]:
    """``getUserByID_v2`` -> ``['get', 'user', 'by', 'id', 'v', '2']`` (lower-case parts)."""
    parts: list[str] = []
    for word in _WORD.findall(identifier):
        parts.extend(piece.lower() for piece in _CAMEL.findall(word))
    return parts


@lru_cache(maxsize=65536)
def fold_plural(word: str) -> str:
    """Fold a simple English plural to its singular (``policies`` -> ``policy``)."""
    if len(word) <= 3 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "zes", "sses")):
        return word[:-2]
    return word[:-1]


def tokens(text: str) -> list[str]:
    """Lower-case, plural-folded identifier parts of ``text`` (any prose, path or code)."""
    return [fold_plural(part) for part in split_identifier(text)]
