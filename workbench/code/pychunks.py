"""A Python file cut into groups of top-level statements, and parsed a group at a time.

A file is cut before each line that starts at column 0 with ``def``, ``class``, ``async`` or ``@``
after a blank line (``groups_of``: each group's byte offset and first line). A group that parses
alone ends outside any bracket, string or continuation line, so the whole file's tokens up to there
are the group's; the next line starts at column 0 with a token that can only begin a statement, so
the file's statements are the groups' statements, in order, and its lines are theirs shifted by the
group's first line. A cut inside a string leaves the group above it unfinished, which does not
parse: that group is read on to the next cut until it does. Anything else that reaches across
statements is refused up front (the file is parsed whole): a coding declaration, ``barry_as_FLUFL``,
and a carriage return (``ast`` counts it as a line end, a diff does not).

Mining reads only the groups a case looks at (``mining.pyfacts``). The engine parses every group
(``parsed_module``) and keeps the statements of the last groups by their bytes: consecutive versions
of a module share most of its definitions byte for byte, and a history run parses every version
once, so a new version parses only the groups that changed. The statements come back with each
one's line offset in the file (a kept group may now sit lower or higher), which the readers of the
tree add to every line they record (``pysymbols.outline_from_tree``, ``enclosing.python_ranges``).
A process that parses each file once and ends (a cold index's pool worker) has nothing to keep
groups for: ``parse_whole`` makes it parse every file whole, as cheaply as before the groups.
"""

from __future__ import annotations

import ast
import hashlib
import re
import threading

from .held import Held
from .pysymbols import PARSE_ERRORS, python_tree

JOINS = 8  # groups joined at most before the file is parsed whole
GROUPS_HELD = 1024 * 1024  # bytes of source whose groups' statements a process keeps (their trees: about 28 times that)
_CUT = re.compile(rb"\n\n(?=(?:def|class|async)[ \t]|@)")
# A group's digest -> its statements and its source's length in bytes.
_GROUPS: Held[bytes, tuple[list[ast.stmt], int]] = Held(GROUPS_HELD, lambda found: found[1])
_LOCK = threading.Lock()
_GROUPED = [True]  # False: this process parses each file whole (``parse_whole``)


def parse_whole() -> None:
    """Parse every file whole in this process from now on, keeping no groups: for a process that
    reads each file once and ends, where the kept groups are never read and their cut, digests
    and held trees cost about a tenth of the parse and a few dozen MB."""
    _GROUPED[0] = False
    with _LOCK:
        _GROUPS.clear()


def group_digest(group: bytes) -> bytes:
    """The key of a group's bytes in the memos of its parse (here and ``mining.pyfacts``)."""
    return hashlib.blake2b(group, digest_size=16).digest()


def parsed_module(data: bytes) -> tuple[ast.Module, list[int] | None] | None:
    """The file's tree and each top-level statement's line offset (None: parsed whole, no offsets),
    or None when it does not parse."""
    groups = groups_of(data) if _GROUPED[0] else None
    if groups is None or len(groups) == 1:
        return _whole(data)
    ends = [start for start, _ in groups[1:]] + [len(data)]
    body: list[ast.stmt] = []
    offsets: list[int] = []
    index = 0
    while index < len(groups):
        for end in range(index + 1, min(index + JOINS, len(groups)) + 1):
            statements = _statements(data[groups[index][0] : ends[end - 1]])
            if statements is not None:
                break
        else:  # a group that does not parse however far it is joined: the file is parsed whole
            return _whole(data)
        body.extend(statements)
        offsets.extend([groups[index][1] - 1] * len(statements))
        index = end
    return ast.Module(body=body, type_ignores=[]), offsets


def _whole(data: bytes) -> tuple[ast.Module, None] | None:
    tree = python_tree(data)
    return None if tree is None else (tree, None)


def groups_of(data: bytes) -> list[tuple[int, int]] | None:
    """Each group's (byte offset, first line), or None when the file must be parsed whole."""
    if b"\r" in data or b"barry_as_FLUFL" in data or _declares_coding(data):
        return None
    groups = [(0, 1)]
    line, last = 1, 0
    for match in _CUT.finditer(data):
        line += data.count(b"\n", last, match.end())
        last = match.end()
        groups.append((last, line))
    return groups


def _declares_coding(data: bytes) -> bool:
    """Whether any comment line could be a coding declaration (``coding:`` or ``coding=``)."""
    at = data.find(b"coding")
    while at >= 0:
        if data[at + 6 : at + 7] in (b":", b"="):
            start = data.rfind(b"\n", 0, at) + 1
            if data[start:at].lstrip(b" \t\f").startswith(b"#"):
                return True
        at = data.find(b"coding", at + 6)
    return False


def _statements(group: bytes) -> list[ast.stmt] | None:
    """The statements of one group (lines counted from its first), from the kept ones when the same
    bytes were parsed before; None when the group does not parse alone."""
    key = group_digest(group)
    with _LOCK:
        found = _GROUPS.get(key)
    if found is not None:
        return found[0]
    try:
        statements = ast.parse(group).body
    except PARSE_ERRORS:
        return None
    with _LOCK:
        _GROUPS.put(key, (statements, len(group)))
    return statements
