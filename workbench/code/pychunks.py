"""A Python file parsed one top-level definition at a time, each definition's statements kept by content.

Consecutive versions of a module share most of its top-level definitions byte for byte, and a
history run parses every version once. ``parsed_module`` cuts a file where a line starts a
top-level ``def``, ``class`` or decorator (a definition stays with its decorators), parses each piece
alone, and keeps the statements of the last pieces by their bytes: a new version of a large
module parses only the definitions that changed. The statements come back with each one's line
offset in the file (``offsets``: a kept piece may now sit lower or higher), which the readers of
the tree add to every line they record (``pysymbols.outline_from_tree``, ``enclosing.python_ranges``).

The result is the whole file's parse. Each piece starts where the one above it ended, at a real
statement boundary. A cut inside a string, a bracket or a continued line leaves the piece above it
unfinished, which does not parse: the piece then reads on to the next cut (a module that generates
code keeps ``def`` lines in its strings) until it parses, so a piece that parses ends at a real
boundary too. A file that fails past ``MERGES`` cuts in a row is parsed whole, as is one whose
bytes could decode otherwise than as UTF-8 (a BOM or a coding declaration), one that breaks lines
with a lone carriage return (Python counts it as a line), or one that turns on a grammar-changing
future import.
"""

from __future__ import annotations

import ast
import hashlib
import re
import threading
from collections import OrderedDict

from .pysymbols import PARSE_ERRORS, python_tree

MERGES = 16  # cuts read past in a row (each one a parse that failed) before the file is parsed whole
PIECES_HELD = 1024 * 1024  # bytes of source whose pieces' statements a process keeps (their trees: about 28 times that)
_START = re.compile(rb"^(?:def |class |async def |@)", re.MULTILINE)
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=]", re.MULTILINE)
_PIECES: OrderedDict[bytes, tuple[list[ast.stmt], int]] = OrderedDict()  # digest -> (statements, source bytes)
_held = 0
_LOCK = threading.Lock()


def parsed_module(data: bytes) -> tuple[ast.Module, list[int] | None] | None:
    """The file's tree and each top-level statement's line offset (None: parsed whole, no offsets),
    or None when it does not parse."""
    cuts = _cuts(data)
    if cuts is None:
        tree = python_tree(data)
        return None if tree is None else (tree, None)
    body: list[ast.stmt] = []
    offsets: list[int] = []
    line = start = merged = 0
    for end in cuts[1:]:
        piece = data[start:end]
        statements = _statements(piece)
        if statements is None:  # the cut at ``end`` is inside a string or a bracket: read on to the next
            merged += 1
            if merged > MERGES:
                break
            continue
        body.extend(statements)
        offsets.extend([line] * len(statements))
        line += piece.count(b"\n")
        start, merged = end, 0
    if start != len(data):
        tree = python_tree(data)
        return None if tree is None else (tree, None)
    return ast.Module(body=body, type_ignores=[]), offsets


def _cuts(data: bytes) -> list[int] | None:
    """Where the pieces start (and the end), or None when the file must be parsed whole."""
    if data.startswith(b"\xef\xbb\xbf") or b"\r" in data or b"barry_as_FLUFL" in data:
        return None
    head = data.split(b"\n", 2)
    if any(_CODING.match(line) for line in head[:2]):
        return None
    cuts = [0]
    decorated = False  # the last start was a decorator: the definition under it belongs to its piece
    for match in _START.finditer(data):
        decorator = match.group() == b"@"
        if match.start() and not decorated:
            cuts.append(match.start())
        decorated = decorator
    cuts.append(len(data))
    return cuts if len(cuts) > 2 else None


def _statements(piece: bytes) -> list[ast.stmt] | None:
    """The statements of one piece (lines counted from its first), from the kept ones when the same
    bytes were parsed before; None when the piece does not parse alone."""
    global _held
    key = hashlib.blake2b(piece, digest_size=16).digest()
    with _LOCK:
        found = _PIECES.get(key)
        if found is not None:
            _PIECES.move_to_end(key)
            return found[0]
    try:
        statements = ast.parse(piece).body
    except PARSE_ERRORS:
        return None
    with _LOCK:
        _PIECES[key] = (statements, len(piece))
        _held += len(piece)
        while _held > PIECES_HELD and len(_PIECES) > 1:
            _held -= _PIECES.popitem(last=False)[1][1]
    return statements
