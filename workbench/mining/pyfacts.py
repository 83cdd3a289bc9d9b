"""A Python gold file's names and definition ranges, read from the parts of it a case looks at.

A case reads two things from a gold file: the definitions enclosing the lines its commit changes
(``gold_symbols``), and, when its query names no gold file, whether the query writes a name the file
defines (``shapes.names_symbol``). Both must be what one ``ast`` parse of the whole file gives
(``blobs.python_facts``), and a file that does not parse gives none, so every byte must be known to
parse. Parsing with ``ast`` is most of what mining a large history costs, and most of it builds
Python objects for expressions nobody reads.

So a file is cut into groups of top-level statements (``code.pychunks.groups_of``, which the engine
parses a group at a time too). Each group is checked by the compiler's cheaper pass (``_symtable``:
the same parser, no ``ast`` objects; where it refuses, ``ast.parse`` decides), and parsed with
``ast`` only where a case looks: the groups holding a changed line, and those where a word the query
could name a symbol by appears as a whole word (``name_words``).

Why the answers are the whole parse's: a group that parses alone holds whole statements, and the
file's are the groups' shifted by each group's first line (``code.pychunks``); a file that cannot be
cut, or a group that does not parse however far it is joined, is parsed whole as before. Then: a
definition's range lies within its group, so the definitions enclosing a line (or ending at the last
non-blank line up to it) are found among its group's; and a name the query writes as
``shapes.names_symbol`` counts it is a maximal word of the query and, in an ASCII group, a whole
word of the group's bytes, so a group without any such word defines none that counts (a group with
other bytes is always parsed: its identifiers may be normalised to ASCII ones). ``_symtable``
accepts only files the parser accepts; its depth limit is ``ast``'s, and it is called a few frames
deeper, so a file too deeply nested for ``ast`` at this depth fails it too.
"""

from __future__ import annotations

import _symtable
import ast
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable
from typing import Any

from ..code.enclosing import Range, python_ranges
from ..code.held import bounded
from ..code.outline import Outline
from ..code.pychunks import JOINS, group_digest, groups_of
from ..code.pysymbols import outline_from_tree, python_tree
from .shapes import _IDENTIFIER, MIN_NAME, symbol_names

Facts = tuple[frozenset[str], list[Range]]  # a file's (or a group's) symbol names and definition ranges
Found = tuple[frozenset[int] | None, frozenset[str], list[Range]]  # groups read (None: whole file), names, ranges
_WORD = re.compile(r"\w+")
_IDENT_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_DEEPER = 40  # frames added under the symtable check: its depth limit then binds before ast's
_HELD = 40_000  # groups remembered per process (emptied when full: ``code.held.bounded``)
_checked: dict[bytes, bool] = {}  # group digest -> parses
_parsed: dict[bytes, tuple[bool, Facts | None]] = {}  # group digest -> parses, names and ranges


def whole_facts(data: bytes) -> Facts:
    """Names and definition ranges of one Python file from one ``ast`` parse (none when it does not
    parse; its ranges and no names when its outline cannot be read)."""
    tree = python_tree(data)
    if tree is None:
        return frozenset(symbol_names(Outline())), []
    return _tree_facts(tree) or (frozenset(symbol_names(Outline())), python_ranges(tree))


def _tree_facts(tree: ast.Module) -> Facts | None:
    """Names and definition ranges of a parsed file or group (None when they cannot be read)."""
    try:
        return frozenset(symbol_names(outline_from_tree(tree))), python_ranges(tree)
    except (ValueError, RecursionError):
        return None


def name_words(query: str) -> frozenset[bytes]:
    """The words of ``query`` that could be (the last part of) a symbol ``shapes.names_symbol`` finds:
    ASCII identifiers that are whole words of it, identifier-shaped (or written as code) and long
    enough, or following a dot (``Class.method``)."""
    out: set[bytes] = set()
    for match in _WORD.finditer(query):
        word, start, end = match.group(), match.start(), match.end()
        if not word.isascii() or not (word[0].isalpha() or word[0] == "_"):
            continue
        before = query[start - 1] if start else ""
        after = query[end] if end < len(query) else ""
        code = before == "`" or after in ("`", "(")
        if before == "." or (len(word) >= MIN_NAME and (code or _IDENTIFIER.search(word))):
            out.add(word.encode())
    return frozenset(out)


def read(data: bytes, lines: Iterable[int], words: frozenset[bytes], done: frozenset[int] = frozenset()) -> Found:
    """The names and ranges of the groups of ``data`` (a Python file) that hold one of ``lines`` or
    one of ``words``, less the groups in ``done``: (the groups read, names, ranges); the whole file's
    (groups None) when it is not cut or a group does not parse. A group read is parsed with ``ast``
    once, for its parse check too; the others are only checked (``_parses``). A group that does not
    parse alone is joined to the next ones until it does (a cut inside a string)."""
    cut = groups_of(data)
    if cut is None:
        return (None, *whole_facts(data))
    ends = [start for start, _ in cut[1:]] + [len(data)]
    wanted = _holding(cut, lines) | _naming(data, cut, ends, words)
    names: set[str] = set()
    ranges: list[Range] = []
    read_now: set[int] = set()
    index = group = 0  # the next cut, and the index of the group it starts
    while index < len(cut):
        facts: Facts | None = None
        for end in range(index + 1, min(index + JOINS, len(cut)) + 1):
            text = data[cut[index][0] : ends[end - 1]]
            if group in done or wanted.isdisjoint(range(index, end)):
                if _parses(text):
                    break
            else:
                parses, facts = _group_facts(text)
                if parses and facts is None:  # its outline cannot be read: nor can the whole file's
                    return (None, *whole_facts(data))
                if parses:
                    break
        else:  # a group that does not parse however far it is joined: the file is parsed whole
            return (None, *whole_facts(data))
        if facts is not None:
            read_now.add(group)
            names |= facts[0]
            shift = cut[index][1] - 1
            ranges += [(name, start + shift, last + shift) for name, start, last in facts[1]]
        index, group = end, group + 1
    return frozenset(read_now | done), frozenset(names), ranges


def _holding(groups: list[tuple[int, int]], lines: Iterable[int]) -> set[int]:
    """The groups holding each line and the next (an insertion after a line reads both)."""
    firsts = [first for _, first in groups]
    out: set[int] = set()
    for line in lines:
        for at in (line, line + 1):
            out.add(max(bisect_right(firsts, at) - 1, 0))
    return out


def _naming(data: bytes, groups: list[tuple[int, int]], ends: list[int], words: frozenset[bytes]) -> set[int]:
    """The groups that may define one of ``words``: where one is a whole word, and every non-ASCII group."""
    if not words:
        return set()
    out = {index for index, (start, _) in enumerate(groups) if not data[start : ends[index]].isascii()}
    offsets = [start for start, _ in groups]
    for word in words:
        at = data.find(word)
        while at >= 0:
            end = at + len(word)
            if (at == 0 or data[at - 1] not in _IDENT_BYTES) and (end == len(data) or data[end] not in _IDENT_BYTES):
                out.add(bisect_right(offsets, at) - 1)
            at = data.find(word, end)
    return out


def _parses(text: bytes) -> bool:
    """Whether one group parses: the compiler's symbol pass first, ``ast`` where it refuses."""
    key = group_digest(text)
    known = _checked.get(key)
    if known is None:
        try:
            _deeper(_DEEPER, _symtable.symtable, text, "<gold>", "exec")
            known = True
        except Exception:  # the symbol pass refuses more than the parser: ast decides
            known = python_tree(text) is not None
        bounded(_checked, _HELD)[key] = known
    return known


def _group_facts(text: bytes) -> tuple[bool, Facts | None]:
    """Whether one group parses, and its names and ranges (its own lines; None when it does not parse
    or its outline cannot be read)."""
    key = group_digest(text)
    known = _parsed.get(key)
    if known is None:
        tree = python_tree(text)
        known = (False, None) if tree is None else (True, _tree_facts(tree))
        bounded(_parsed, _HELD)[key] = known
        bounded(_checked, _HELD)[key] = known[0]
    return known


def _deeper(depth: int, call: Callable[..., Any], *args: Any) -> Any:
    return call(*args) if depth <= 0 else _deeper(depth - 1, call, *args)
