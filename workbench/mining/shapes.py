"""How a mined query points at its answer: ``names-file``, ``names-symbol`` or ``words-only``.

``names-file``: the query contains a gold file's name (``map.py``) or stem (``map``;
``request_parser`` also matches ``request parser`` and ``request-parser``).
``names-symbol``: the query contains a symbol the reference engine's outline
extraction finds in a gold file at the case's revision (the file's bytes are read
from git). A symbol that looks like an identifier (mixed case, ``_`` or a digit, or
a capitalised name) counts as a whole word; an all-lowercase one that is also an
ordinary word (``parse``) counts only when the query writes it as code (`` `parse` ``,
``parse()``, ``.parse``). Names shorter than three characters never count.
Otherwise ``words-only``: the honest slice, where only meaning links query and file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..code.kinds import PYTHON_EXTENSIONS, extension
from ..code.outline import Outline
from ..code.pysymbols import python_outline
from ..code.tssymbols import GRAMMARS, tree_outline

SHAPES = ("names-file", "names-symbol", "words-only")
MIN_NAME = 3
_IDENTIFIER = re.compile(r"[a-z][A-Z]|_|\d|^[A-Z][a-z]")


def outline_of(path: str, data: bytes) -> Outline:
    """The symbols the reference engine extracts from one file (empty for languages it does not parse)."""
    ext = extension(path.rsplit("/", 1)[-1])
    try:
        if ext in PYTHON_EXTENSIONS:
            return python_outline(data)
        if ext in GRAMMARS:
            return tree_outline(data, ext)
    except (SyntaxError, ValueError, RecursionError):
        pass
    return Outline()


def _word(text: str) -> str:
    return rf"(?<![\w]){text}(?![\w])"


def names_file(query: str, gold: Iterable[str]) -> bool:
    """Whether the query names a gold file by its name or stem (case-insensitive, whole words)."""
    lowered = query.lower()
    for path in gold:
        name = path.rsplit("/", 1)[-1].lower()
        stem = name.rsplit(".", 1)[0] if "." in name[1:] else name
        for candidate in {name, stem}:
            core = candidate.strip("_")
            parts = re.split(r"[_-]", candidate)
            if len(core) < MIN_NAME or not all(part in lowered for part in parts):
                continue  # every part is a literal of the pattern: no compile when one is absent
            pattern = "[_ -]?".join(re.escape(part) for part in parts)
            if re.search(_word(pattern), lowered):
                return True
    return False


def symbol_names(outline: Outline) -> set[str]:
    """Every name a file defines, bare and qualified, long enough to count."""
    return {name for name in outline.names() if len(name) >= MIN_NAME}


def names_symbol(query: str, symbols: Iterable[str]) -> bool:
    """Whether the query contains one of ``symbols`` (see the module docstring for the rule)."""
    for symbol in symbols:
        if symbol not in query:
            continue  # every pattern below contains the symbol literally: skip the compile
        bare = re.escape(symbol)
        if _IDENTIFIER.search(symbol) or "." in symbol:
            if re.search(_word(bare), query):
                return True
        elif re.search(rf"`{bare}`|(?<![\w]){bare}\(|\.{bare}(?![\w])", query):
            return True
    return False


def query_shape(query: str, gold: list[str], symbols: Iterable[str]) -> str:
    """The first shape that holds: names-file, then names-symbol, else words-only."""
    if names_file(query, gold):
        return "names-file"
    if names_symbol(query, symbols):
        return "names-symbol"
    return "words-only"
