"""String literals that read like messages, and translation catalogs as key -> message.

An error-message-shaped query ("Order is already cancelled") is answered by the
code that holds that literal. When the literal lives in a translation catalog,
the catalog key (``orders.errors.alreadyCancelled``) leads to the code that uses it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from .text import stem

if TYPE_CHECKING:
    import numpy as np

    from .ranking import Interner

# A quote not glued to a word on its left (so ``don't ... it's`` is no literal);
# f/r/b prefixes are allowed.
_QUOTED = re.compile(
    r"""["'](?<=(?<![A-Za-eg-qs-z0-9_\\])["'])"""  # quote first: the scan stays fast
    r"""(?:(?<=")([^"\n\\]{4,240})"|(?<=')([^'\n\\]{4,240})'(?![A-Za-z0-9_]))"""
)
_BACKTICK = re.compile(r"`([^`\\]{4,240})`")
_KEY = re.compile(r"""['"`]([A-Za-z_][\w-]*(?:[.:][\w-]+)+)['"`]""")
_PLACEHOLDER = re.compile(r"\$\{[^}]*\}|\{[^}]*\}|%\(\w+\)[sdif]|%[sdifvqwx]|<[^>]*>")
_WORDS = re.compile(r"[A-Za-z][A-Za-z']+")
_PO = re.compile(r'^msgid\s+"(?P<id>.*)"\s*\nmsgstr\s+"(?P<str>.*)"', re.MULTILINE)
_YAML_LINE = re.compile(r"^(?P<indent> *)(?P<key>[\w.-]+):\s*(?P<value>.*)$")
MIN_WORDS = 2
MAX_WORDS = 24


def message_words(text: str) -> tuple[str, ...]:
    """The stemmed words of a message, placeholders dropped (``Order {id} not found`` -> order, not, found)."""
    return tuple(stem(w.lower().strip("'")) for w in _WORDS.findall(_PLACEHOLDER.sub(" ", text)))


def _is_message(literal: str) -> bool:
    if " " not in literal.strip() or "://" in literal:
        return False
    count = len(_WORDS.findall(literal))
    return MIN_WORDS <= count <= MAX_WORDS


def code_literals(text: str) -> tuple[list[str], list[str]]:
    """(message-like literals, key-shaped literals such as ``cart.empty``) of source text."""
    found: dict[str, None] = {}
    pairs = _QUOTED.findall(text)
    for literal in [a or b for a, b in pairs] + _BACKTICK.findall(text):
        if _is_message(literal):
            found[literal.strip()] = None
    keys = list(dict.fromkeys(_KEY.findall(text)))
    return list(found), keys


def _flatten(node: object, prefix: str, out: list[tuple[str, str]]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            _flatten(value, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _flatten(value, f"{prefix}.{i}", out)
    elif isinstance(node, str) and prefix:
        out.append((prefix, node))


def _yaml_pairs(text: str) -> list[tuple[str, str]]:
    """Nested ``key: value`` YAML as dotted keys (enough for translation catalogs)."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[int, str]] = []
    for line in text.splitlines():
        m = _YAML_LINE.match(line)
        if not m or line.lstrip().startswith("#"):
            continue
        indent = len(m.group("indent"))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        value = m.group("value").strip().strip("'\"")
        if value:
            out.append((".".join([k for _, k in stack] + [m.group("key")]), value))
        else:
            stack.append((indent, m.group("key")))
    return out


def catalog_entries(rel: str, text: str) -> list[tuple[str, str]]:
    """(key, message) pairs of a translation catalog; unknown formats give ``[]``."""
    name = rel.rsplit("/", 1)[-1].lower()
    if name.endswith((".json", ".arb")):
        try:
            data = json.loads(text)
        except ValueError:
            return []
        out: list[tuple[str, str]] = []
        _flatten(data, "", out)
        return out
    if name.endswith((".yaml", ".yml")):
        return _yaml_pairs(text)
    if name.endswith((".po", ".pot")):
        return [(m.group("id"), m.group("str") or m.group("id")) for m in _PO.finditer(text) if m.group("id")]
    return []


@dataclass(frozen=True)
class Messages:
    """One blob's message literals and catalog entries with the ids of their distinct words (an
    ``Interner``'s): made once per blob, joined per revision by ``MessageIndex.joined``."""

    texts: tuple[tuple[str, str], ...]  # (message, catalog key or "")
    words: np.ndarray  # int64, each entry's distinct word ids, entry after entry
    sizes: np.ndarray  # int64, per entry its number of distinct words

    @classmethod
    def of_many(
        cls, texts: list[list[tuple[str, str]]], words: list[list[tuple[str, ...]]], interner: Interner
    ) -> list[Messages]:
        """Per blob, its ``Messages`` (``texts[b]`` its entries, ``words[b]`` their words), numbered at once."""
        import numpy as np

        distinct = [[list(dict.fromkeys(found)) for found in blob] for blob in words]
        sizes = [np.fromiter(map(len, blob), dtype=np.int64, count=len(blob)) for blob in distinct]
        ids = interner.numbers([word for blob in distinct for found in blob for word in found])
        cuts = np.cumsum([0, *(int(size.sum()) for size in sizes)]).tolist()
        return [
            cls(tuple(rows), ids[a:b].copy(), size)
            for rows, size, a, b in zip(texts, sizes, cuts[:-1], cuts[1:], strict=True)
        ]

    @classmethod
    def of(cls, texts: list[tuple[str, str]], words: list[tuple[str, ...]], interner: Interner) -> Messages:
        return cls.of_many([texts], [words], interner)[0]

    @cached_property
    def nbytes(self) -> int:
        return int(self.words.nbytes + self.sizes.nbytes) + sum(len(a) + len(b) + 120 for a, b in self.texts)


class MessageIndex:
    """Every message literal of a repository, with each literal's distinct words.

    ``match`` counts, for all literals at once, how many of each literal's distinct
    words a query contains; a literal the query (almost) quotes is what raised it.
    It reads only the literals of the query's words (``postings``), not every word.
    """

    def __init__(self, entries: list[tuple[int, str, str]], words: list[tuple[str, ...]]) -> None:
        import numpy as np

        self.entries = entries  # (document, message, catalog key or ""), with ``words[i]`` its message_words
        distinct = [list(dict.fromkeys(found)) for found in words]
        self.vocab: dict[str, int] = {}
        every = [self.vocab.setdefault(word, len(self.vocab)) for found in distinct for word in found]
        self.words = np.asarray(every, dtype=np.int64)  # each entry's distinct words, entry after entry
        self.lengths = np.fromiter(map(len, distinct), dtype=np.float32, count=len(distinct))
        self.entry_of = np.repeat(np.arange(len(distinct), dtype=np.int64), self.lengths.astype(np.int64))

    @classmethod
    def joined(cls, parts: list[tuple[int, Messages]], strings: list[str]) -> MessageIndex:
        """The index of every (document, blob messages) of ``parts`` (``strings``: words by id)."""
        import numpy as np

        index = cls([], [])
        index.entries = [(doc, text, key) for doc, part in parts for text, key in part.texts]
        words = np.concatenate([part.words for _, part in parts]) if parts else np.zeros(0, dtype=np.int64)
        sizes = np.concatenate([part.sizes for _, part in parts]) if parts else np.zeros(0, dtype=np.int64)
        present, local = np.unique(words, return_inverse=True)
        index.vocab = dict(zip(map(strings.__getitem__, present.tolist()), range(len(present)), strict=True))
        index.words = local.astype(np.int64)
        index.lengths = sizes.astype(np.float32)
        index.entry_of = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
        return index

    @cached_property
    def postings(self) -> tuple[np.ndarray, np.ndarray]:
        """(starts, entries): the literals holding word ``w`` are ``entries[starts[w] : starts[w + 1]]``,
        in entry order. Made at the first match: a query reads only its words' literals."""
        import numpy as np

        by_word = np.argsort(self.words, kind="stable")
        sizes = np.bincount(self.words, minlength=len(self.vocab))
        return np.concatenate([[0], np.cumsum(sizes)]), self.entry_of[by_word]

    def match(self, words: set[str], min_words: int = 3, min_coverage: float = 0.8) -> list[tuple[int, float, int]]:
        """(entry, coverage, words matched) of literals with >= ``min_words`` words, at least
        ``min_coverage`` of them in ``words``; best covered first."""
        import numpy as np

        if not self.entries or not words:
            return []
        asked = [self.vocab[word] for word in words if word in self.vocab]
        if not asked:
            return []
        starts, entries = self.postings
        found = np.concatenate([entries[starts[w] : starts[w + 1]] for w in asked])
        touched, counted = np.unique(found, return_counts=True)  # only literals sharing a word
        hits = counted.astype(np.float32)
        lengths = self.lengths[touched]
        coverage = np.divide(hits, lengths, out=np.zeros_like(hits), where=lengths > 0)
        keep = np.flatnonzero((hits >= min(min_words, len(words))) & (coverage >= min_coverage))
        order = keep[np.lexsort((-hits[keep], -coverage[keep]))]
        return [(int(touched[i]), float(coverage[i]), int(hits[i])) for i in order]
