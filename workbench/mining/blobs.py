"""What mining reads from each gold file at its parent revision, computed once per blob.

A shape needs the symbol names a gold file defines; the gold symbols need its definition
ranges. Both are kept per (blob id, extension), so a file unchanged across sampled commits is
read once however many cases expect it. A Python blob that needs both is parsed once:
``ast.parse`` is most of what mining costs. Only the last few parsed trees are kept (a tree
is many times its source's size), so memory stays flat in the number of cases.
"""

from __future__ import annotations

import ast
from collections import OrderedDict

from ..reference.enclosing import Range, definition_ranges, python_ranges
from ..reference.kinds import extension
from ..reference.outline import Outline
from ..reference.pysymbols import outline_from_tree
from .shapes import outline_of, symbol_names

_PYTHON = (".py", ".pyi")
Key = tuple[str, str]  # (blob id, extension)


class GoldBlobs:
    """Symbol names and definition ranges of gold blobs, each computed once per (blob, extension)."""

    def __init__(self, keep_trees: int = 3) -> None:
        self._names: dict[Key, frozenset[str]] = {}
        self._ranges: dict[Key, list[Range]] = {}
        self._trees: OrderedDict[str, ast.Module | None] = OrderedDict()
        self._keep = keep_trees
        self.parses = 0  # Python parses done (what the cache saves is visible in tests)

    def names(self, blob: str, path: str, data: bytes) -> frozenset[str]:
        """The names ``path`` (bytes ``data``, git blob ``blob``) defines, as ``shapes.symbol_names``."""
        key = (blob, extension(path.rsplit("/", 1)[-1]))
        if key not in self._names:
            self._names[key] = frozenset(symbol_names(self._outline(key, path, data)))
        return self._names[key]

    def ranges(self, blob: str, path: str, data: bytes) -> list[Range]:
        """The definition ranges of ``path``, as ``reference.enclosing.definition_ranges``."""
        key = (blob, extension(path.rsplit("/", 1)[-1]))
        if key not in self._ranges:
            if key[1] in _PYTHON:
                tree = self._tree(blob, data)
                self._ranges[key] = python_ranges(tree) if tree is not None else []
            else:
                self._ranges[key] = definition_ranges(path, data)
        return self._ranges[key]

    def _outline(self, key: Key, path: str, data: bytes) -> Outline:
        if key[1] not in _PYTHON:
            return outline_of(path, data)
        tree = self._tree(key[0], data)
        try:
            return outline_from_tree(tree) if tree is not None else Outline()
        except (ValueError, RecursionError):
            return Outline()

    def _tree(self, blob: str, data: bytes) -> ast.Module | None:
        if blob in self._trees:
            self._trees.move_to_end(blob)
            return self._trees[blob]
        self.parses += 1
        try:
            tree: ast.Module | None = ast.parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        self._trees[blob] = tree
        if len(self._trees) > self._keep:
            self._trees.popitem(last=False)
        return tree
