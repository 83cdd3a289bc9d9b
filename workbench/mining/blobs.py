"""What mining reads from each gold file at its parent revision, computed once per blob.

A shape needs the symbol names a gold file defines; the gold symbols need its definition
ranges. Both are kept per (blob id, extension), so a file unchanged across sampled commits is
read once however many cases expect it. A blob that needs both is parsed once (``ast`` for
Python, tree-sitter for TypeScript, JavaScript and Go, starting from the tree of the same path's
previous revision: ``reparse``): parsing is most of what mining costs.
Only the last few parsed trees are kept (an ``ast`` tree is many times its source's size), so
memory stays flat in the number of cases.
"""

from __future__ import annotations

import ast
from collections import OrderedDict
from typing import Any

from ..reference.enclosing import Range, python_ranges
from ..reference.kinds import extension
from ..reference.outline import Outline
from ..reference.pysymbols import outline_from_tree
from ..reference.tsranges import tree_ranges
from ..reference.tssymbols import GRAMMARS, outline_from_root
from .reparse import Reparser
from .shapes import symbol_names

_PYTHON = (".py", ".pyi")
Key = tuple[str, str]  # (blob id, extension)


class GoldBlobs:
    """Symbol names and definition ranges of gold blobs, each computed once per (blob, extension)."""

    def __init__(self, keep_trees: int = 3) -> None:
        self._names: dict[Key, frozenset[str]] = {}
        self._ranges: dict[Key, list[Range]] = {}
        self._trees: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._keep = keep_trees
        self._reparser = Reparser()
        self.parses = 0  # files parsed (what the cache saves is visible in tests)

    def names(self, blob: str, path: str, data: bytes) -> frozenset[str]:
        """The names ``path`` (bytes ``data``, git blob ``blob``) defines, as ``shapes.symbol_names``
        of ``shapes.outline_of``."""
        key = (blob, extension(path.rsplit("/", 1)[-1]))
        if key not in self._names:
            self._names[key] = frozenset(symbol_names(self._outline(key, path, data)))
        return self._names[key]

    def ranges(self, blob: str, path: str, data: bytes) -> list[Range]:
        """The definition ranges of ``path``, as ``reference.enclosing.definition_ranges``."""
        key = (blob, extension(path.rsplit("/", 1)[-1]))
        if key not in self._ranges:
            self._ranges[key] = self._definitions(key, path, data)
        return self._ranges[key]

    def _outline(self, key: Key, path: str, data: bytes) -> Outline:
        tree = self._tree(key, path, data)
        try:
            if key[1] in _PYTHON:
                return outline_from_tree(tree) if tree is not None else Outline()
            if tree is None:
                return Outline()
            if key not in self._ranges:  # a TS/JS outline reads the ranges too: worked out once
                self._ranges[key] = tree_ranges(tree.root_node, GRAMMARS[key[1]])
            return outline_from_root(tree.root_node, GRAMMARS[key[1]], self._ranges[key])
        except (ValueError, RecursionError):
            return Outline()

    def _definitions(self, key: Key, path: str, data: bytes) -> list[Range]:
        tree = self._tree(key, path, data)
        if tree is None:
            return []
        if key[1] in _PYTHON:
            return python_ranges(tree)
        try:
            return tree_ranges(tree.root_node, GRAMMARS[key[1]])
        except (ValueError, RecursionError):
            return []

    def _tree(self, key: Key, path: str, data: bytes) -> Any:
        """The parsed file (an ``ast.Module``, a tree-sitter ``Tree``: from the last tree of ``path``,
        ``reparse``), or None: unparsable or a language the engine does not parse."""
        kind = "python" if key[1] in _PYTHON else GRAMMARS.get(key[1], "")
        if not kind:
            return None
        slot = (key[0], kind)
        if slot in self._trees:
            self._trees.move_to_end(slot)
            return self._trees[slot]
        self.parses += 1
        tree: Any
        try:
            tree = ast.parse(data) if kind == "python" else self._reparser.parse(path, kind, data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        self._trees[slot] = tree
        if len(self._trees) > self._keep:
            self._trees.popitem(last=False)
        return tree
