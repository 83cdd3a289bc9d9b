"""Line ranges of a file's definitions, and the definition that encloses a line.

Gold symbols mined from history (``expectedSymbols``) name the definition an edit lands
in. A definition here is what an agent edits as one unit: a class (and the classes nested
in it), a function, a method; Go types; TypeScript interfaces, type aliases and enums;
CommonJS definitions at module level (``a.b = function () {}`` is ``b``; the methods and
``key: function`` members of a module-level object literal go by their key, as the outlines
name object-literal methods).
Everything inside a function body, nested functions and classes included, belongs to
that function. A range runs from the first decorator (Python) or the definition's first
line to its last line, 1-based and inclusive. Names are spelled as the outlines spell
them: methods ``Class.method`` (Go ``Receiver.method``), nested classes ``Outer.Inner``.
"""

from __future__ import annotations

import ast

from .kinds import PYTHON_EXTENSIONS, extension
from .pysymbols import python_tree
from .tsranges import Range, tree_ranges
from .tssymbols import GRAMMARS, toolkit

_PY_CLASS, _PY_FUNCS = ast.ClassDef, (ast.FunctionDef, ast.AsyncFunctionDef)


def _python(data: bytes) -> list[Range]:
    tree = python_tree(data)
    return [] if tree is None else python_ranges(tree)


def python_ranges(tree: ast.Module, offsets: list[int] | None = None) -> list[Range]:
    """The definition ranges of one parsed Python file (what ``definition_ranges`` gives for its source);
    with ``offsets``, each top-level statement's line offset (``pychunks.parsed_module``)."""
    out: list[Range] = []
    top = offsets if offsets is not None else [0] * len(tree.body)
    stack: list[tuple[list[ast.stmt], str, list[int]]] = [(tree.body, "", top)]
    while stack:
        body, owner, shifts = stack.pop()
        for node, shift in zip(body, shifts, strict=True):
            if isinstance(node, (_PY_CLASS, *_PY_FUNCS)):
                name = f"{owner}.{node.name}" if owner else node.name
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)]) + shift
                out.append((name, start, (node.end_lineno or node.lineno) + shift))
                if isinstance(node, _PY_CLASS):
                    stack.append((node.body, name, [shift] * len(node.body)))
            else:
                for attr in ("body", "orelse", "finalbody"):
                    inner = getattr(node, attr, None)
                    if isinstance(inner, list):
                        kept = [s for s in inner if isinstance(s, ast.stmt)]
                        stack.append((kept, owner, [shift] * len(kept)))
                for block in [*getattr(node, "handlers", ()), *getattr(node, "cases", ())]:
                    stack.append((block.body, owner, [shift] * len(block.body)))  # try/except(*) handlers, match cases
    return out


def _tree(data: bytes, grammar: str) -> list[Range]:
    parser, _ = toolkit(grammar)
    return tree_ranges(parser.parse(data).root_node, grammar)


def definition_ranges(path: str, data: bytes) -> list[Range]:
    """Every definition of one file with its line range, in no particular order; empty for a
    language the reference engine does not parse or a file it cannot parse."""
    ext = extension(path.rsplit("/", 1)[-1])
    if ext in PYTHON_EXTENSIONS:
        return _python(data)
    grammar = GRAMMARS.get(ext)
    if grammar is None:
        return []
    try:
        return _tree(data, grammar)
    except (ValueError, RecursionError):
        return []


def enclosing(ranges: list[Range], first: int, last: int) -> str | None:
    """The innermost definition whose range holds lines ``first..last`` (the narrowest; on a tie the
    one starting last), or None at module level."""
    best: Range | None = None
    for found in ranges:
        _, start, end = found
        if start <= first and last <= end and (best is None or (end - start, -start) < (best[2] - best[1], -best[1])):
            best = found
    return best[0] if best else None
