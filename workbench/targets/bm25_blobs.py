"""What the ``bm25`` control counts in one blob, once per blob: its chunks' and its definitions' terms.

A run over a mined corpus meets hundreds of revisions that share most files, so the control keeps,
per blob (``reference.blobstore``: by content digest, salted with the extension the chunking reads,
and ``okapi.TERMS_VERSION``), its documents as term counts (``okapi.Bag``): the chunks of
``file_chunks`` and the definitions of ``bm25_symbols.definitions``. Each line is tokenized once and
each document's counts are summed from its lines' term ids (``tokens`` never joins words across
whitespace, so a document's terms are its lines' terms, and a line's its pieces'); the ranges are parsed
once when the text the chunks read is the blob's bytes (valid UTF-8 without a carriage return). A
Python blob's ranges come from ``reference.extract.RANGES`` when the engine parsed it already in this
run (or any run before), so each Python blob is parsed once (``fresh_terms``).
"""

from __future__ import annotations

import hashlib
from array import array
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from pathlib import Path

import numpy as np

from ..code.enclosing import definition_ranges
from ..code.held import bounded
from ..code.kinds import PYTHON_EXTENSIONS, extension
from ..code.tsranges import Range
from ..reference import blobstore
from ..reference.extract import RANGES
from ..reference.text import tokens
from . import okapi

Span = tuple[int, int]  # lines [start, stop), 0-based


def chunk_spans(ranges: list[tuple[str, int, int]], n_lines: int) -> list[list[Span]]:
    """The line spans of each chunk of ``file_chunks`` (given the file's definition ranges), the
    lines outside every definition last (whether or not they hold anything)."""
    chunks, outside, end = [], [], 0
    for _, first, last in sorted(ranges, key=_span):
        if first <= end:
            continue  # inside the definition taken before it
        outside.append((end, first - 1))
        chunks.append([(first - 1, last)])
        end = last
    return [*chunks, [*outside, (end, n_lines)]]


def _span(item: tuple[str, int, int]) -> tuple[int, int]:
    return item[1], -item[2]  # by first line, the widest first


def _lines_of(lines: list[str], spans: list[Span]) -> list[str]:
    return [line for start, stop in spans for line in lines[start:stop]]


def _kept(lines: list[str], spans: list[list[Span]]) -> list[list[Span]]:
    """``spans`` without the last chunk (the lines outside every definition) when it holds nothing
    and is not the file's only chunk."""
    if len(spans) > 1 and not any(line.strip() for line in _lines_of(lines, spans[-1])):
        return spans[:-1]
    return spans


def file_chunks(rel: str, text: str) -> list[str]:
    """A file's chunks: each outermost definition (``code.enclosing.definition_ranges``: a class
    with its methods, a function, a Go method), then the lines outside every definition as one more
    chunk when they hold anything; a file without definitions is one chunk."""
    lines = text.split("\n")
    spans = chunk_spans(definition_ranges(rel, text.encode("utf-8", "surrogateescape")), len(lines))
    return ["\n".join(_lines_of(lines, each)) for each in _kept(lines, spans)]


@dataclass(frozen=True)
class BlobTerms:
    """What the control counts in one blob: its chunks' terms (``file_chunks``, a document each) and
    its definitions' names and terms (``bm25_symbols.definitions``, a document each)."""

    chunks: okapi.Bag
    names: tuple[str, ...]
    definitions: okapi.Bag


# 8 MB of pickles held in memory: a revision's blobs and the next one's (most of them the same).
BLOB_TERMS: blobstore.Part[BlobTerms] = blobstore.Part("bm25-terms", okapi.TERMS_VERSION, memory=8 * blobstore.MEMORY)


@lru_cache(maxsize=1 << 18)
def _piece_ids(piece: str) -> tuple[int, ...]:
    """The term ids of ``tokens(piece)`` for a whitespace-free piece of text."""
    return tuple(okapi.term_ids(tokens(piece)).tolist())


@lru_cache(maxsize=1 << 16)
def _line_ids(line: str) -> bytes:
    """The term ids of one line's pieces end to end, as uint64 bytes. Consecutive versions of a
    file share most of their lines, and a tree repeats many (blank ones, ``return self``): each
    distinct line is tokenized once."""
    return array("Q", chain.from_iterable(map(_piece_ids, line.split()))).tobytes()


class _Lines:
    """A text's lines, each tokenized once: their term ids end to end, line i's at ``at[i]:at[i + 1]``.
    ``tokens`` never joins words across whitespace, so a line's terms are its pieces' terms in order."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        found = list(map(_line_ids, self.lines))
        self.at = np.zeros(len(self.lines) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, found), dtype=np.int64, count=len(found)) // 8, out=self.at[1:])
        self.ids = np.frombuffer(b"".join(found), dtype=np.uint64)

    def ids_of(self, spans: list[Span]) -> np.ndarray:
        n = len(self.lines)
        parts = [self.ids[self.at[min(a, n)] : self.at[min(b, n)]] for a, b in spans if a < b]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)


def _bag(documents: list[np.ndarray]) -> okapi.Bag:
    """The bag of documents given as term ids (repeats counted). Each document's distinct ids and
    counts are kept by a digest of its ids (``_counted``): most definitions and chunks of a file's
    next version are the same, so only the changed ones are sorted."""
    rows = [_counted(ids) for ids in documents]
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(np.fromiter((len(ids) for ids, _ in rows), dtype=np.int64, count=len(rows)), out=ptr[1:])
    ids = np.concatenate([ids for ids, _ in rows]) if rows else np.zeros(0, dtype=np.uint64)
    counts = np.concatenate([counts for _, counts in rows]) if rows else np.zeros(0, dtype=np.uint32)
    return okapi.Bag(ptr, ids, counts.astype(np.min_scalar_type(int(counts.max()) if len(counts) else 0)))


COUNTED = 1 << 13  # documents whose counts a process keeps (emptied whole when full: a few MB)
_COUNTED: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}


def _counted(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct term ids (ascending, uint64) of one document and how often each occurs (uint32)."""
    ids = ids.astype(np.uint64, copy=False)
    key = hashlib.blake2b(ids.tobytes(), digest_size=16).digest()
    found = _COUNTED.get(key)
    if found is None:
        distinct, counts = np.unique(ids, return_counts=True)
        found = bounded(_COUNTED, COUNTED)[key] = (distinct, counts.astype(np.uint32))
    return found


def blob_terms(rel: str, data: bytes, ranges: list[Range] | None = None) -> BlobTerms:
    """Count one file's chunks (``file_chunks`` of its text as ``read_text`` decodes it) and its
    definitions (``bm25_symbols.definitions`` of its bytes); ``ranges``: ``definition_ranges(rel,
    data)`` when known already (else parsed here)."""
    raw = data.decode("utf-8", "replace")
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    encoded = text.encode("utf-8", "surrogateescape")
    ranges = definition_ranges(rel, data) if ranges is None else ranges
    chunk_lines = _Lines(text)
    spans = chunk_spans(ranges if encoded == data else definition_ranges(rel, encoded), len(chunk_lines.lines))
    chunks = _bag([chunk_lines.ids_of(each) for each in _kept(chunk_lines.lines, spans)])
    source = chunk_lines if raw == text else _Lines(raw)
    found = sorted(ranges, key=lambda r: (r[1], r[0]))
    named = [
        np.concatenate((okapi.term_ids(tokens(name)), source.ids_of([(first - 1, last)])))
        for name, first, last in found
    ]
    return BlobTerms(chunks, tuple(name for name, _, _ in found), _bag(named))


def fresh_terms(blobs: dict[str, tuple[str, bytes]], source: Path) -> dict[str, BlobTerms]:
    """``blob_terms`` of blobs never counted (by digest: a path and its bytes, read from the tree at
    ``source``): a Python blob's definition ranges taken from ``reference.extract.RANGES`` when the
    engine parsed it already, else parsed here and kept there (so neither parses it twice)."""
    python = [digest for digest, (rel, _) in blobs.items() if extension(rel.rsplit("/", 1)[-1]) in PYTHON_EXTENSIONS]
    known = RANGES.get_many(python)
    parsed = {digest: definition_ranges(*blobs[digest]) for digest in python if digest not in known}
    RANGES.put_many(parsed, source)
    ranges = {**known, **parsed}
    return {digest: blob_terms(rel, data, ranges.get(digest)) for digest, (rel, data) in blobs.items()}


@lru_cache(maxsize=1 << 16)
def path_terms(rel: str) -> okapi.Bag:
    """A file's path as a one-document bag (every document of the file holds its path's terms)."""
    return okapi.bag([Counter(tokens(rel.replace("/", " ")))])
