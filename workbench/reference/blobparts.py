"""What linking a revision needs of each blob and path, kept in memory across revisions.

Consecutive revisions of a repository share almost every file. ``index.link`` needs of a file its
ranking counts, message literals, imports, routes and keys; made from its ``FileFacts`` once
(``BlobPart``, by facts key) and its path's ranking counts once (by path and the way its name
splits into the repository's words), a revision is linked by joining them: numpy concatenations
in place of a pass over every term of every file, and no facts read back from the blob store.

Terms are numbered by one ``Interner`` for the process; it starts afresh (and every part with it)
past ``MAX_TERMS``. Parts are held up to ``HELD_REVISIONS`` times the last revision's (at least
``FLOOR``, at most ``MEMORY`` bytes; least recently used go first), so a run over hundreds of
revisions holds what the recent ones share, not every blob it has seen.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cached_property

from ..code.held import Held
from ..code.outline import Import, Outline
from .extract import FileFacts
from .fields import path_fields
from .imports import Resolutions
from .messages import Messages
from .ranking import Counts, Interner, counts_of
from .routes import Route

MEMORY = 64 * 1024 * 1024  # at most, bytes of parts held (about one revision's worth of a 5,000-file tree)
HELD_REVISIONS = 3  # what is held: as much as the last revision's parts times this (its files' older versions)
FLOOR = 4 * 1024 * 1024  # and at least this much
PATH_MEMORY = 8 * 1024 * 1024
MAX_TERMS = 2_000_000  # distinct terms and message words numbered before the numbering starts afresh
_OBJECT = 64  # bytes counted per small Python object a part holds (a key, a symbol, an import)


@dataclass(frozen=True)
class BlobPart:  # not slotted: ``nbytes`` is computed once
    """Everything ``link`` reads of one blob's facts, its terms numbered (``generation``'s interner)."""

    generation: int
    counts: Counts  # ranking.BLOB_FIELDS
    messages: Messages
    imports: tuple[Import, ...]
    package: str
    routes: tuple[Route, ...]
    templates: tuple[str, ...]
    keys: tuple[str, ...]
    lookup_keys: tuple[str, ...]
    name_parts: frozenset[str]
    slim: FileFacts  # what the index keeps of the facts (``FileFacts.slim``)

    @cached_property
    def nbytes(self) -> int:
        objects = len(self.imports) + len(self.routes) + len(self.templates) + len(self.keys)
        objects += len(self.lookup_keys) + len(self.name_parts) + len(self.slim.outline.symbols)
        return self.counts.nbytes + self.messages.nbytes + _OBJECT * (objects + 8)

    def facts(self) -> FileFacts:
        """Facts enough for a ``LARGE_TREE_PARSED`` hook: symbols, name parts, line count."""
        return FileFacts(Outline(self.slim.outline.symbols), lines=self.slim.lines, name_parts=self.name_parts)


class Linking:
    """The parts of one process (or one test): its interner, blob parts, path counts and resolutions."""

    def __init__(self, memory: int = MEMORY, path_memory: int = PATH_MEMORY, max_terms: int = MAX_TERMS) -> None:
        self.max_terms = max_terms
        self.max_memory = memory
        self.interner = Interner()
        self.blobs: Held[str, BlobPart] = Held(memory, lambda part: part.nbytes)
        self.paths: Held[tuple[str, tuple], Counts] = Held(path_memory, lambda counts: counts.nbytes + 256)
        self.resolutions = Resolutions()
        self.lock = threading.RLock()  # one revision linked at a time

    def begin(self) -> None:
        """Start numbering afresh when the interner has grown past its bound (parts go with it)."""
        if len(self.interner.strings) > self.max_terms:
            self.interner = Interner(self.interner.generation + 1)
            self.blobs.clear()
            self.paths.clear()

    def fit(self, parts: dict[str, BlobPart]) -> None:
        """Bound what is held by the size of a revision's ``parts`` (``HELD_REVISIONS`` times)."""
        revision = sum(part.nbytes for part in parts.values())
        self.blobs.memory = min(self.max_memory, max(FLOOR, HELD_REVISIONS * revision))
        self.blobs.trim()

    def known(self, keys: list[str]) -> dict[str, BlobPart]:
        """The parts held for ``keys`` (numbered by the current interner)."""
        found = {}
        for key in dict.fromkeys(keys):
            part = self.blobs.get(key)
            if part is not None and part.generation == self.interner.generation:
                found[key] = part
        return found

    def add(self, facts: dict[str, FileFacts]) -> dict[str, BlobPart]:
        """Parts made from ``facts`` (by facts key), held for the next revisions (none dropped
        before ``fit`` bounds them by their revision)."""
        made = dict(zip(facts, blob_parts(list(facts.values()), self.interner), strict=True))
        for key, part in made.items():
            self.blobs.put(key, part, trim=False)
        return made

    def path_counts(self, rels: list[str], words: frozenset[str], signatures: list[tuple]) -> list[Counts]:
        """``ranking.PATH_FIELDS`` counts of each path, made where its (path, signature) is new."""
        found = [self.paths.get((rel, sig)) for rel, sig in zip(rels, signatures, strict=True)]
        todo = [i for i, counts in enumerate(found) if counts is None]
        made = counts_of([list(path_fields(rels[i], words)) for i in todo], self.interner, (False, False))
        for i, counts in zip(todo, made, strict=True):
            self.paths.put((rels[i], signatures[i]), counts)
            found[i] = counts
        return [counts for counts in found if counts is not None]


def blob_parts(facts: list[FileFacts], interner: Interner) -> list[BlobPart]:
    """The parts of ``facts``, their ranking counts and message words numbered in one pass each."""
    rows = [[f.symbol_terms, f.export_terms, f.doc_terms, f.route_terms, f.content] for f in facts]
    counts = counts_of(rows, interner, (False, False, False, False, True))
    messages = Messages.of_many(
        [[(text, "") for text in f.literals] + [(text, key) for key, text in f.catalog] for f in facts],
        [f.message_words for f in facts],
        interner,
    )
    return [
        BlobPart(
            interner.generation,
            c,
            m,
            tuple(f.outline.imports),
            f.outline.package,
            tuple(f.routes),
            tuple(f.templates),
            tuple(f.keys),
            f.lookup_keys,
            f.name_parts,
            f.slim(),
        )
        for f, c, m in zip(facts, counts, messages, strict=True)
    ]


LINKING = Linking()
