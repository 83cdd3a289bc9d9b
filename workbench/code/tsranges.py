"""Definitions of a parsed TypeScript, JavaScript or Go tree, with their line ranges.

``enclosing.definition_ranges`` names the definition an edit lands in by these ranges, and
``tssymbols`` adds the ones its query cannot capture (CommonJS assignments, object-literal members)
to the outlines, so gold symbols and outline symbols are named alike. A leaf module: it takes a root
node and imports nothing of the engine.
"""

from __future__ import annotations

from typing import Any

Range = tuple[str, int, int]  # (qualified name, first line, last line)

_TS_CLASSES = frozenset({"class_declaration", "abstract_class_declaration"})
_TS_FUNCS = frozenset({"function_declaration", "generator_function_declaration", "method_definition"})
_TS_TYPES = frozenset({"interface_declaration", "type_alias_declaration", "enum_declaration"})
_GO_DEFS = frozenset({"function_declaration", "method_declaration", "type_spec"})
# Nodes walked into when looking for definitions (a function body never is).
_TS_WALK = frozenset(
    {"program", "export_statement", "class_body", "lexical_declaration", "variable_declaration", "statement_block"}
    | {"internal_module", "module", "ambient_declaration", "expression_statement"}
)
_TS_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})


def _name(node: Any) -> str:
    found = node.child_by_field_name("name")
    return found.text.decode("utf-8", "replace") if found is not None else ""


def _span(node: Any) -> tuple[int, int]:
    return node.start_point[0] + 1, node.end_point[0] + 1


def tree_ranges(root: Any, grammar: str) -> list[Range]:
    """The definitions of one parsed TS/JS/Go tree (``root``: its root node), as ``definition_ranges``."""
    out: list[Range] = []
    stack: list[tuple[Any, str]] = [(root, "")]
    go = grammar == "go"
    while stack:
        node, owner = stack.pop()
        for child in node.named_children:
            kind, name = child.type, _name(child)
            if go and kind in _GO_DEFS and name:
                if kind == "method_declaration":
                    receiver = _go_receiver(child)
                    name = f"{receiver}.{name}" if receiver else name
                out.append((name, *_span(child)))
            elif go and kind == "type_declaration":
                stack.append((child, owner))
            elif go:
                continue
            elif kind in _TS_CLASSES and name:
                qualified = f"{owner}.{name}" if owner else name
                out.append((qualified, *_span(child)))
                body = child.child_by_field_name("body")
                if body is not None:
                    stack.append((body, qualified))
            elif (kind in _TS_FUNCS or kind in _TS_TYPES) and name:
                out.append((f"{owner}.{name}" if owner and kind == "method_definition" else name, *_span(child)))
            elif kind == "variable_declarator" and name and not owner:
                value = child.child_by_field_name("value")
                if value is not None and value.type in _TS_FUNCTION_VALUES:
                    out.append((name, *_span(node if node.type.endswith("declaration") else child)))
                elif value is not None and value.type in ("object", "assignment_expression"):
                    stack.append((_Wrapped(value), ""))
            elif kind == "assignment_expression" and not owner:
                _assigned(child, out, stack)
            elif kind == "pair" and not owner:  # ``{key: function () {}}`` in a module-level object
                value, key = child.child_by_field_name("value"), child.child_by_field_name("key")
                if value is not None and key is not None and value.type in _TS_FUNCTION_VALUES:
                    out.append((key.text.decode("utf-8", "replace").strip("'\"`"), *_span(child)))
            elif kind == "object" and not owner:
                stack.append((child, ""))
            elif kind in _TS_WALK:
                stack.append((child, owner))
    return out


class _Wrapped:
    """One node presented as the only child of a parent, so the walk visits the node itself."""

    def __init__(self, node: Any) -> None:
        self.named_children = [node]
        self.type = "wrapped"


def _assigned(node: Any, out: list[Range], stack: list[tuple[Any, str]]) -> None:
    """CommonJS definitions at module level: ``a.b = function () {}`` is ``b`` (``module.exports =
    function f () {}`` is ``f``), ``x = {...}`` walks the object's members, chains are followed."""
    while node is not None and node.type == "assignment_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if right is None or left is None:
            return
        if right.type in _TS_FUNCTION_VALUES:
            target = left.child_by_field_name("property") if left.type == "member_expression" else left
            name = target.text.decode("utf-8", "replace") if target is not None else ""
            if name == "exports" or left.type not in ("member_expression", "identifier"):
                name = _name(right)
            if name:
                out.append((name, *_span(node)))
            return
        if right.type == "object":
            stack.append((_Wrapped(right), ""))
            return
        node = right


def _go_receiver(method: Any) -> str:
    receiver = method.child_by_field_name("receiver")
    text = receiver.text.decode("utf-8", "replace") if receiver is not None else ""
    words = text.strip("()").replace("*", " ").split()
    return words[-1].split("[")[0] if words else ""
