"""Python outlines through the standard ``ast`` module.

Only statements are visited (never expressions), which keeps the walk cheap:
classes, functions and methods with their lines, ``__all__`` or the public
top-level names as exports, every import, including ones inside functions, and the
first paragraph of the docstrings of the module, its classes and top-level functions.
Statements are dispatched on their exact node type (the parser never subclasses
them), one dictionary lookup each instead of a chain of ``isinstance`` calls.
"""

from __future__ import annotations

import ast
from typing import cast

from .outline import Import, Outline

_DEFS = {ast.FunctionDef: "function", ast.AsyncFunctionDef: "function", ast.ClassDef: "class"}
# Compound statements whose statement lists are walked, in this order (a ``try``'s
# handlers come last); ``match`` and ``try``/``except*`` bodies are not walked.
_BLOCKS: dict[type, tuple[str, ...]] = {
    ast.If: ("body", "orelse"),
    ast.For: ("body", "orelse"),
    ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"),
    ast.With: ("body",),
    ast.AsyncWith: ("body",),
    ast.Try: ("body", "orelse", "finalbody"),
}
_ASSIGNS = (ast.Assign, ast.AnnAssign, ast.AugAssign)


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
        self.offset = 0  # lines above the piece the statements being visited were parsed from

    def body(self, stmts: list[ast.stmt], owner: str = "", top: bool = False) -> None:
        imports = self.outline.imports
        for node in stmts:
            cls = type(node)
            kind = _DEFS.get(cls)
            if kind is not None:
                self._define(node, kind, owner, top)  # type: ignore[arg-type]
            elif cls is ast.ImportFrom:
                found = cast(ast.ImportFrom, node)
                imports.append(Import(found.module or "", found.level, tuple(a.name for a in found.names)))
            elif cls is ast.Import:
                imports.extend(Import(alias.name) for alias in node.names)  # type: ignore[attr-defined]
            elif cls in _BLOCKS:
                for attr in _BLOCKS[cls]:
                    self.body(getattr(node, attr), owner, top)
                if cls is ast.Try:
                    for handler in node.handlers:  # type: ignore[attr-defined]
                        self.body(handler.body, owner, top)
            elif top and cls in _ASSIGNS:
                self._assign(node)

    def _define(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, kind: str, owner: str, top: bool
    ) -> None:
        if owner:
            name = f"{owner}.{node.name}"
            kind = "method" if kind == "function" else kind
        else:
            name = node.name
        self.outline.symbols.append((name, kind, node.lineno + self.offset))
        doc = _docstring(node.body) if top or kind == "class" else ""  # methods: too many to pay for
        if doc:
            self.outline.docs.append(doc)
        if top and not node.name.startswith("_"):
            self.public.append(node.name)
        self.body(node.body, owner=name if kind == "class" else owner)

    def _assign(self, node: ast.stmt) -> None:
        for name in _targets(node):
            if name == "__all__":
                found = _all_names(node)  # type: ignore[arg-type]
                if found is not None:
                    self.declared_all = (self.declared_all or []) + found
            elif not name.startswith("_"):
                kind = "constant" if name.isupper() else "variable"
                self.outline.symbols.append((name, kind, node.lineno + self.offset))
                self.public.append(name)


def _docstring(body: list[ast.stmt]) -> str:
    """The first paragraph (at most 300 characters) of a body's docstring, or ``""``."""
    if body and type(body[0]) is ast.Expr:
        value = body[0].value
        if type(value) is ast.Constant and isinstance(value.value, str):
            return value.value.strip().split("\n\n", 1)[0][:300]
    return ""


PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)  # ast.parse on a file it cannot read


def python_tree(source: bytes | str) -> ast.Module | None:
    """One Python file's syntax tree, or None when it does not parse (what every reader of a file
    by ``ast`` treats as "no definitions")."""
    try:
        return ast.parse(source)
    except PARSE_ERRORS:
        return None


def python_outline(source: bytes | str) -> Outline:
    """The outline of one Python file; an unparsable file yields an empty outline."""
    tree = python_tree(source)
    return Outline() if tree is None else outline_from_tree(tree)


def outline_from_tree(tree: ast.Module, offsets: list[int] | None = None) -> Outline:
    """The outline of one parsed Python file (what ``python_outline`` gives for its source); with
    ``offsets``, each top-level statement's line offset (``pychunks.parsed_module``)."""
    visitor = _Visitor()
    module_doc = _docstring(tree.body)
    if module_doc:
        visitor.outline.docs.append(module_doc)
    if offsets is None:
        visitor.body(tree.body, top=True)
    else:
        for node, offset in zip(tree.body, offsets, strict=True):
            visitor.offset = offset
            visitor.body([node], top=True)
    outline = visitor.outline
    outline.exports = visitor.declared_all if visitor.declared_all is not None else visitor.public
    return outline
