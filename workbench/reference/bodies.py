"""The text of each symbol a file defines, as term counts: the symbol table's body field.

A symbol's text runs from the comment and decorator lines right above it to the next
symbol's, so doc comments, docstrings and route decorators count. It depends on the
file's bytes only, so it is computed where the file is parsed (the worker pool of a
cold index, beside its ``FileFacts``) and kept per blob (``blobstore``, by content
digest): the first ``search`` of a fresh repository, or of any revision sharing the
blob, then reads no file again. A parse's pickles are stored as the workers made them.
"""

from __future__ import annotations

import pickle
from functools import lru_cache
from itertools import accumulate
from pathlib import Path

from . import blobstore, cache
from .extract import EXTRACTOR_VERSION, content_terms

BODIES_VERSION = f"{EXTRACTOR_VERSION}-{cache.code_digest('bodies')}"
PART = "bodies"
_HEADER = (b"//", b"#", b"*", b"/*", b"@", b"--")  # comment and decorator lines above a definition

SPANS = 8192  # symbol texts whose counts are kept in memory (a few revisions' worth of a library)
Body = tuple[dict[str, int], int]  # a symbol's body term counts and its span's line count
Symbol = tuple[str, str, int]  # (name, kind, line) as an outline lists it


def _head(lines: list[bytes], line: int, floor: int) -> int:
    """First line (1-based) of the comment/decorator block right above ``line``, not above ``floor``."""
    start = line
    while start - 1 > floor and lines[start - 2].lstrip().startswith(_HEADER):
        start -= 1
    return start


def spans(data: bytes, symbol_lines: list[int]) -> list[tuple[int, int]]:
    """Byte range of each symbol's text: its header block, up to the next symbol's header."""
    lines = data.split(b"\n")
    n_lines = len(lines)
    before = list(accumulate(map(len, lines), initial=0))  # bytes of the lines above line k + 1, newlines aside

    def start(k: int) -> int:  # offset of line k + 1; the end of the data past the last line
        return before[k] + k if k < n_lines else len(data)

    distinct = sorted(set(symbol_lines))
    heads, floor = {}, 0
    for line in distinct:
        heads[line] = _head(lines, min(max(line, 1), n_lines), floor)
        floor = line
    ends = {
        line: (heads[nxt] if nxt is not None else n_lines + 1) for line, nxt in zip(distinct, distinct[1:] + [None])
    }
    return [
        (start(heads[line] - 1), start(min(max(ends[line], heads[line] + 1), n_lines + 1) - 1)) for line in symbol_lines
    ]


def symbol_bodies(data: bytes, symbols: list[Symbol]) -> list[Body]:
    """Body term counts and line count of each distinct symbol of ``symbols`` (first-seen order);
    symbols on one line share one span, read once."""
    return _read(data, symbols)[0]


def bodies_and_content(data: bytes, symbols: list[Symbol]) -> tuple[list[Body], dict[str, int]]:
    """``symbol_bodies`` and the file's ``content_terms``, the bytes tokenized once: when the
    spans tile the file from the first one to the end (they meet at line starts, where no
    identifier runs across), the file's counts are the part above the first span's plus each
    span's, summed in file order (so even the terms' order is ``content_terms(data)``'s)."""
    found, read = _read(data, symbols)
    tiles = sorted(read)
    if not tiles or tiles[-1][1] != len(data) or any(a[1] != b[0] for a, b in zip(tiles, tiles[1:])):
        return found, content_terms(data)
    counts = dict(_terms(data[: tiles[0][0]]))
    get = counts.get
    for tile in tiles:
        for term, n in read[tile][0].items():
            counts[term] = get(term, 0) + n
    return found, counts


@lru_cache(maxsize=SPANS)
def _terms(text: bytes) -> dict[str, int]:
    """``content_terms`` of one symbol's text (or a file's head), kept for the next version of the
    file: consecutive versions share most definitions byte for byte. Callers get copies."""
    return content_terms(text)


def _read(data: bytes, symbols: list[Symbol]) -> tuple[list[Body], dict[tuple[int, int], Body]]:
    """The bodies of the distinct symbols, and the same bodies by their byte span."""
    distinct = list(dict.fromkeys(symbols))
    read: dict[tuple[int, int], Body] = {}
    out = []
    for a, b in spans(data, [line for _, _, line in distinct]) if distinct else []:
        body = read.get((a, b))
        if body is None:
            body = read[a, b] = (dict(_terms(data[a:b])), data.count(b"\n", a, b))
        out.append(body)
    return out, read


STORE: blobstore.Part[list[Body]] = blobstore.Part(PART, BODIES_VERSION)


def add(source: Path, found: dict[str, list[Body]] | None = None, pickled: dict[str, bytes] | None = None) -> None:
    """Keep the bodies of blobs (read from the tree at ``source``) by content digest: ``found`` as
    values, ``pickled`` as the pickles a parse made (stored as they are, unpickled only if read)."""
    if found:
        STORE.put_many(found, source)
    if pickled:
        STORE.put_pickled(pickled, source)


def load(wanted: set[str], pickled: dict[str, bytes] | None = None) -> dict[str, list[Body]]:
    """The bodies of ``wanted`` digests: from ``pickled`` (what a parse just made), else the store."""
    found: dict[str, list[Body]] = {}
    for digest in wanted & (pickled or {}).keys():
        try:
            value = pickle.loads(pickled[digest])  # type: ignore[index]
        except cache.MISS:
            continue
        if isinstance(value, list):
            found[digest] = value
    missing = wanted - found.keys()
    if missing:
        found.update(STORE.get_many(sorted(missing)))
    return found
