"""TypeScript, JavaScript and Go outlines through tree-sitter.

One query per grammar captures everything in a single pass (definitions,
exports, imports); grammars, parsers and compiled queries are built once per
process, on first use, so importing this module stays cheap.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .outline import Import, Outline
from .tsranges import Range, _go_receiver, tree_ranges

_TS_DEFS = """
(class_declaration name: (_) @class)
(abstract_class_declaration name: (_) @class)
(interface_declaration name: (_) @interface)
(type_alias_declaration name: (_) @type)
(enum_declaration name: (_) @enum)
"""
_JS_QUERY = """
(function_declaration name: (identifier) @function)
(generator_function_declaration name: (identifier) @function)
(method_definition name: (_) @method)
(program (lexical_declaration (variable_declarator name: (identifier) @variable)))
(program (variable_declaration (variable_declarator name: (identifier) @variable)))
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @variable)))
(export_statement declaration: (_ name: (_) @export))
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @export)))
(export_statement (export_clause (export_specifier name: (_) @export)))
(export_statement value: (identifier) @export)
(assignment_expression
  left: (member_expression object: (identifier) @_exports property: (property_identifier) @export)
  (#eq? @_exports "exports"))
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_prop)
  right: (object [(shorthand_property_identifier) @export (pair key: (property_identifier) @export)])
  (#eq? @_module "module") (#eq? @_prop "exports"))
(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_prop)
  right: [(identifier) @export (class name: (_) @export)]
  (#eq? @_module "module") (#eq? @_prop "exports"))
(import_statement source: (string (string_fragment) @import))
(export_statement source: (string (string_fragment) @import))
(call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @import))
  (#eq? @_require "require"))
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @import)))
"""
_GO_QUERY = """
(package_clause (package_identifier) @package)
(import_spec path: (interpreted_string_literal) @import)
(function_declaration name: (identifier) @function)
(method_declaration name: (field_identifier) @method)
(type_spec name: (type_identifier) @type)
(source_file (const_declaration (const_spec name: (identifier) @constant)))
(source_file (var_declaration (var_spec name: (identifier) @variable)))
"""
GRAMMARS = {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".go": "go",
}


def _language(grammar: str) -> Any:
    from tree_sitter import Language

    if grammar == "go":
        import tree_sitter_go

        return Language(tree_sitter_go.language())
    if grammar == "javascript":
        import tree_sitter_javascript

        return Language(tree_sitter_javascript.language())
    import tree_sitter_typescript

    raw = tree_sitter_typescript.language_tsx() if grammar == "tsx" else tree_sitter_typescript.language_typescript()
    return Language(raw)


@cache
def toolkit(grammar: str) -> tuple[Any, Any]:
    """(parser, query) for a grammar, built once per process."""
    from tree_sitter import Parser, Query

    language = _language(grammar)
    source = _GO_QUERY if grammar == "go" else _JS_QUERY + ("" if grammar == "javascript" else _TS_DEFS)
    if grammar == "javascript":
        source += "(class_declaration name: (_) @class)\n"
    return Parser(language), Query(language, source)


def _owner(node: Any) -> str:
    """The name of the class a method node sits in, or ``""`` (object-literal methods)."""
    parent = node.parent
    while parent is not None and parent.type not in (
        "class_declaration",
        "abstract_class_declaration",
        "class",
        "method_declaration",
    ):
        parent = parent.parent
    if parent is None:
        return ""
    if parent.type == "method_declaration":
        return _go_receiver(parent)
    name = parent.child_by_field_name("name")
    return name.text.decode("utf-8", "replace") if name is not None else ""


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")


def _is_import_alias(node: Any) -> bool:
    """``const x = require('y')`` or ``await import('y')`` binds an import, not a definition."""
    value = node.parent.child_by_field_name("value") if node.parent is not None else None
    if value is None:
        return False
    if value.type == "await_expression" and value.named_child_count:
        value = value.named_children[0]
    if value.type != "call_expression":
        return False
    function = value.child_by_field_name("function")
    return (
        function is not None
        and function.type in ("import", "identifier")
        and (function.type == "import" or function.text == b"require")
    )


def _assigned_functions(ranges: list[Range], known: set[str]) -> list[tuple[str, str, int]]:
    """Functions the query cannot name but an edit lands in (``ranges``, the tree's
    ``tsranges.tree_ranges``): CommonJS ``Command.prototype.parse = function () {}`` (``parse``) and
    ``key: function () {}`` members of a module-level object literal (``key``), as functions at their
    first line."""
    found: dict[str, int] = {}
    for name, first, _ in ranges:
        if name not in known:
            found[name] = min(first, found.get(name, first))
    return [(name, "function", first) for name, first in found.items()]


def tree_outline(source: bytes, ext: str) -> Outline:
    """The outline of one TS/JS/Go file (``ext`` picks the grammar); empty for others."""
    grammar = GRAMMARS.get(ext)
    if grammar is None:
        return Outline()
    parser, _ = toolkit(grammar)
    return outline_from_root(parser.parse(source).root_node, grammar)


def outline_from_root(root: Any, grammar: str, ranges: list[Range] | None = None) -> Outline:
    """The outline of one parsed TS/JS/Go tree (``root``: its root node), as ``tree_outline``.
    ``ranges``: the tree's ``tree_ranges`` when the caller has them (mining needs both)."""
    from tree_sitter import QueryCursor

    _, query = toolkit(grammar)
    captures = QueryCursor(query).captures(root)
    outline = Outline()
    for kind in ("class", "interface", "type", "enum", "function", "method", "variable", "constant"):
        for node in captures.get(kind, ()):
            if kind == "variable" and _is_import_alias(node):
                continue
            name = _text(node)
            if kind == "method":
                owner = _owner(node)
                name = f"{owner}.{name}" if owner else name
            outline.symbols.append((name, kind, node.start_point[0] + 1))
    if grammar != "go":
        ranges = tree_ranges(root, grammar) if ranges is None else ranges
        outline.symbols += _assigned_functions(ranges, {name for name, _, _ in outline.symbols})
    outline.symbols.sort(key=lambda s: s[2])
    imports = sorted(captures.get("import", ()), key=lambda n: n.start_byte)
    outline.imports = [Import(_text(n).strip('"`')) for n in imports]
    if grammar == "go":
        outline.package = next((_text(n) for n in captures.get("package", ())), "")
        outline.exports = [n for n, k, _ in outline.symbols if n.rsplit(".", 1)[-1][:1].isupper()]
    else:
        exports = sorted(captures.get("export", ()), key=lambda n: n.start_byte)
        outline.exports = list(dict.fromkeys(_text(n) for n in exports))
    return outline
