"""Python outlines through the standard ``ast`` module.

Only statements are visited (never expressions), which keeps the walk cheap:
classes, functions and methods with their lines, ``__all__`` or the public
top-level names as exports, and every import, including ones inside functions.
"""
from __future__ import annotations

import ast

from .outline import Import, Outline

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)


def _all_names(node: ast.Assign | ast.AugAssign | ast.AnnAssign) -> list[str] | None:
    value = node.value
    if isinstance(value, (ast.List, ast.Tuple)):
        return [elt.value for elt in value.elts if isinstance(elt, ast.Constant) and isinstance(elt.value, str)]
    return None


def _targets(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


class _Visitor:
    """Collects an Outline from statement lists, tracking the enclosing class."""

    def __init__(self) -> None:
        self.outline = Outline()
        self.public: list[str] = []
        self.declared_all: list[str] | None = None

    def body(self, stmts: list[ast.stmt], owner: str = "", top: bool = False) -> None:
        for node in stmts:
            if isinstance(node, _DEFS):
                self._define(node, owner, top)
            elif isinstance(node, ast.Import):
                self.outline.imports.extend(Import(alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                names = tuple(alias.name for alias in node.names)
                self.outline.imports.append(Import(node.module or "", node.level, names))
            elif isinstance(node, _BLOCKS):
                self._blocks(node, owner, top)
            elif top:
                self._assign(node)

    def _define(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, owner: str,
                top: bool) -> None:
        is_class = isinstance(node, ast.ClassDef)
        kind = "class" if is_class else ("method" if owner else "function")
        name = f"{owner}.{node.name}" if owner else node.name
        self.outline.symbols.append((name, kind, node.lineno))
        if top and not node.name.startswith("_"):
            self.public.append(node.name)
        self.body(node.body, owner=name if is_class else owner)

    def _blocks(self, node: ast.stmt, owner: str, top: bool) -> None:
        for attr in ("body", "orelse", "finalbody"):
            self.body(getattr(node, attr, []), owner, top)
        for handler in getattr(node, "handlers", []):
            self.body(handler.body, owner, top)

    def _assign(self, node: ast.stmt) -> None:
        for name in _targets(node):
            if name == "__all__" and isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                found = _all_names(node)
                if found is not None:
                    self.declared_all = (self.declared_all or []) + found
            elif not name.startswith("_"):
                self.outline.symbols.append((name, "constant" if name.isupper() else "variable",
                                             node.lineno))
                self.public.append(name)


def python_outline(source: bytes | str) -> Outline:
    """The outline of one Python file; an unparsable file yields an empty outline."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Outline()
    visitor = _Visitor()
    visitor.body(tree.body, top=True)
    outline = visitor.outline
    outline.exports = visitor.declared_all if visitor.declared_all is not None else visitor.public
    return outline
