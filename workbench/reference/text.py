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
    return list(_split(identifier))


@lru_cache(maxsize=262144)
def _split(identifier: str) -> tuple[str, ...]:
    if identifier.isascii() and identifier.isalpha() and identifier.islower():
        return (identifier,)  # the common case needs no regex
    parts: list[str] = []
    for word in _WORD.findall(identifier):
        parts.extend(piece.lower() for piece in _CAMEL.findall(word))
    return tuple(parts)


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


# Words that carry no retrieval signal in a task description or in code.
STOP_WORDS = frozenset(
    """
a an the and or but nor not no of in on at to for from by with without into onto over under
about after before between through during is are was were be been being am do does did done
doing have ha had having it its this that these those there here then than so such as if
else when where why how what which who whom whose while all any each every some can could
should would will shall may might must need want let get got make made use using used also
just only very more most less least too again still yet up down out off per via i me my we has
our us you your he she they them their his her one two new fix fixes fixed fixing bug bugs issue
problem broken wrong please ensure properly correctly current currently instead something
anything way thing happen happens etc e g ie eg like see look find where
""".split()
)
_INFLECTIONS = ("ing", "ed")
_DERIVATIONS = ("ification", "ation", "ition", "ment", "ator", "able", "ible", "ion", "ity", "ate", "er", "or")
_VOWELS = frozenset("aeiou")


@lru_cache(maxsize=131072)
def stem(word: str) -> str:
    """Light suffix stripping so ``parse``, ``parser`` and ``parsing`` share one term.

    Applied identically to queries and indexed text, so only consistency matters:
    plural fold, then one inflection, one derivation, a final ``e``, ``at`` and a
    doubled consonant (``cancelled`` -> ``cancel``, ``validation`` -> ``valid``).
    """
    w = fold_plural(word)
    if len(w) < 5 or not w.isalpha():
        return w
    for suffix in _INFLECTIONS:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            break
    for suffix in _DERIVATIONS:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + ("ify" if suffix == "ification" else "")
            break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in _VOWELS:
        w = w[:-1]
    if w.endswith("at") and len(w) >= 5:
        w = w[:-2]
    if w.endswith("i") and len(w) > 3:
        w = w[:-1] + "y"  # verified -> verifi -> verify
    return w


@lru_cache(maxsize=262144)
def identifier_terms(identifier: str) -> tuple[str, ...]:
    """Stemmed, stop-word-free terms of one identifier, plus its joined spelling.

    ``EventService`` -> ``('event', 'servic', 'eventservic')``: the joined form lets a
    query that writes ``eventservice`` as one word still meet the identifier. Digits
    only survive inside the joined form (``base64`` -> ``('base', 'base64')``).
    """
    parts = _split(identifier)
    out = [stem(p) for p in parts if len(p) > 1 and not p.isdigit() and p not in STOP_WORDS]
    if len(parts) > 1:
        out.append(stem("".join(parts)))
    return tuple(out)


@lru_cache(maxsize=131072)
def symbol_keys(name: str) -> tuple[str, ...]:
    """How a symbol is looked up: its parts joined lower-case, as written and as stems
    (``changePassword`` -> ``changepassword``, ``changpassword``), so a task may spell it
    in any case, as separate words, or inflected (``changing password``)."""
    parts = split_identifier(name)
    raw = "".join(parts)
    stemmed = "".join(stem(p) for p in parts)
    return (raw,) if stemmed == raw else (raw, stemmed)


def terms(text: str) -> list[str]:
    """Stemmed retrieval terms of free text (a query, a comment, a path)."""
    out: list[str] = []
    for word in _WORD.findall(text):
        out.extend(identifier_terms(word))
    return out
