"""Per-file extraction: Python/TS/JS/Go outlines, routes, message literals, catalogs."""

from __future__ import annotations

import random
import re
from collections import Counter

import numpy as np
import pytest

from workbench.code.pysymbols import python_outline
from workbench.code.tssymbols import tree_outline
from workbench.reference.extract import content_terms, extract_file
from workbench.reference.messages import MessageIndex, Messages, catalog_entries, code_literals, message_words
from workbench.reference.ranking import Interner
from workbench.reference.routes import extract_routes, match, normalize
from workbench.reference.text import identifier_terms

PY = b'''
"""Doc."""
import os, json as j
from . import sibling
from ..pkg.mod import name, other as alias
__all__ = ["Public"]

class Public:
    def method(self):
        from lazy import thing

async def helper(): pass
_private = 1
try:
    import fast
except ImportError:
    fast = None
'''


def test_python_outline_symbols_exports_imports():
    outline = python_outline(PY)
    names = {(name, kind) for name, kind, _ in outline.symbols}
    assert {("Public", "class"), ("Public.method", "method"), ("helper", "function")} <= names
    assert outline.exports == ["Public"]
    specs = [(i.spec, i.level, i.names) for i in outline.imports]
    assert ("os", 0, ()) in specs and ("json", 0, ()) in specs
    assert ("", 1, ("sibling",)) in specs and ("pkg.mod", 2, ("name", "other")) in specs
    assert ("lazy", 0, ("thing",)) in specs and ("fast", 0, ()) in specs


def test_python_outline_survives_syntax_errors():
    assert python_outline(b"def broken(:\n").symbols == []


def test_typescript_outline():
    src = b"""import { A } from './a';
export * from './b';
export class OrdersService { cancel(id: string) {} }
export interface Order { id: string }
export const useCart = () => null;
const local = require('./c');
export default OrdersService;
"""
    outline = tree_outline(src, ".ts")
    names = {name for name, _, _ in outline.symbols}
    assert {"OrdersService", "OrdersService.cancel", "Order", "useCart"} <= names
    assert "local" not in names  # a require() binds an import, it defines nothing
    assert {"OrdersService", "Order", "useCart"} <= set(outline.exports)
    assert [i.spec for i in outline.imports] == ["./a", "./b", "./c"]


def test_commonjs_exports():
    outline = tree_outline(b"class Install {}\nmodule.exports = Install;\nexports.helper = 1;\n", ".js")
    assert set(outline.exports) == {"Install", "helper"}


def test_commonjs_definitions_are_symbols():
    """The definitions gold symbols name (``enclosing``) are outline symbols too: prototype
    assignments and a module-level object literal's function members, by their key."""
    src = (
        b"function Command(name) { this.name = name; }\n"
        b"Command.prototype.parse = function (argv) {\n  return argv;\n};\n"
        b"module.exports = {\n  query: function () {},\n  get body() { return 1; },\n};\n"
    )
    symbols = {(n, k, line) for n, k, line in tree_outline(src, ".js").symbols}
    assert {("Command", "function", 1), ("parse", "function", 2), ("query", "function", 6)} <= symbols
    assert ("body", "method", 7) in symbols  # the query names getters already; nothing doubles
    assert len({n for n, _, _ in symbols}) == len(symbols)


def test_go_outline():
    src = (
        b'package stock\nimport (\n "fmt"\n s "example.com/m/pkg/sku"\n)\n'
        b"type Service struct{}\nfunc (s *Service) Reserve() {}\nfunc helper() {}\n"
    )
    outline = tree_outline(src, ".go")
    assert outline.package == "stock"
    assert ("Service.Reserve", "method") in {(n, k) for n, k, _ in outline.symbols}
    assert [i.spec for i in outline.imports] == ["fmt", "example.com/m/pkg/sku"]
    assert "helper" not in outline.exports and "Service" in outline.exports


def test_routes_served_and_called():
    nest = "@Controller('orders')\nclass C {\n  @Post(':id/cancel')\n  cancel() {}\n}\n"
    assert [(r.role, r.method, r.segments) for r in extract_routes("c.ts", nest)] == [
        ("serve", "POST", ("orders", ":", "cancel"))
    ]
    express = "router.delete('/:id', notesController.remove);\napp.use('/notes', notesRouter);\n"
    routes = extract_routes("r.js", express)
    assert ("serve", "DELETE", (":",), "notesController.remove") in [tuple(r) for r in routes]
    assert ("mount", "", ("notes",), "notesRouter") in [tuple(r) for r in routes]
    go = 'mux.HandleFunc("POST /warehouses/{id}/transfers", h.CreateTransfer)\n'
    assert extract_routes("r.go", go)[0][:3] == ("serve", "POST", ("warehouses", ":", "transfers"))
    flask = '@bp.route("/invoices/<int:invoice_id>/pay", methods=["POST"])\ndef pay(): ...\n'
    assert extract_routes("r.py", flask)[0][:3] == ("serve", "POST", ("invoices", ":", "pay"))
    client = "fetch('/api/orders/' + id + '/cancel', { method: 'POST' });\nhttp.post<T>(`/users/${id}`);\n"
    assert {(r.method, r.segments) for r in extract_routes("c.ts", client)} == {
        ("POST", ("api", "orders", ":", "cancel")),
        ("POST", ("users", ":")),
    }


def test_decorator_calls_that_are_not_routes():
    assert extract_routes("t.py", "@patch('os.path.exists')\ndef test(): ...\n") == []


def test_route_matching_aligns_from_the_end():
    assert normalize("https://h/api/orders/${id}/cancel?x=1") == ("api", "orders", ":", "cancel")
    assert (
        match(normalize("/orders/:id/cancel"), ("orders", ":", "cancel"))
        > match(normalize("/orders/:id/cancel"), (":", "cancel"))
        > 0
    )
    assert match(("api", "orders", ":", "cancel"), ("orders", ":", "cancel")) > 0
    assert match(("orders", ":"), ("orders", ":", "cancel")) == 0  # literal vs literal conflict
    assert match((":",), (":",)) == 0  # a bare parameter matches nothing


def test_message_literals_and_catalogs():
    messages, keys = code_literals("raise X(f\"Invoice {n} is already paid\")  # don't, it's\nt('cart.empty')\n")
    assert messages == ["Invoice {n} is already paid"] and keys == ["cart.empty"]
    assert message_words("Invoice {invoice_id} is already paid") == tuple(message_words("invoice is already paid"))
    assert ("cart.empty", "Your cart is empty") in catalog_entries(
        "locales/en.json", '{"cart": {"empty": "Your cart is empty"}}'
    )
    assert ("cart.empty", "Vide") in catalog_entries("locales/fr.yaml", "cart:\n  empty: Vide\n")
    assert ("Cart", "Panier") in catalog_entries("fr.po", 'msgid "Cart"\nmsgstr "Panier"\n')


def test_message_index_matches_quoted_literals():
    entries = [(0, "Invoice {id} is already paid", ""), (1, "Order not found", "")]
    index = MessageIndex(entries, [message_words(text) for _, text, _ in entries])
    hits = index.match(set(message_words("InvoiceAlreadyPaid: Invoice 42 is already paid")), 3, 0.8)
    assert [index.entries[e][0] for e, _, _ in hits] == [0]


def test_extract_file_dispatches_by_kind():
    catalog = extract_file("src/locales/en.json", b'{"a": {"b": "Hello there"}}')
    assert catalog.catalog == [("a.b", "Hello there")] and catalog.outline.symbols == []
    code = extract_file("src/x.py", b"def hello():\n    raise ValueError('no such thing here')\n")
    assert code.outline.symbols[0][0] == "hello" and code.literals == ["no such thing here"]
    assert code.content["hello"] == 1


def test_python_outline_walk_order_and_blocks_it_skips():
    src = b"""
try:
    import a
except ImportError:
    import b
else:
    import c
finally:
    import d
class Outer:
    class Inner:
        def deep(self):
            def local(): pass
X = Y = 1
X += 1
match X:
    case 1:
        import in_match
try:
    pass
except* ValueError:
    import in_try_star
"""
    outline = python_outline(src)
    # a try's handlers come after its else and finally blocks; match and except* bodies are not walked
    assert [i.spec for i in outline.imports] == ["a", "c", "d", "b"]
    assert outline.symbols == [
        ("Outer", "class", 10),
        ("Outer.Inner", "class", 11),
        ("Outer.Inner.deep", "method", 12),
        ("Outer.Inner.local", "method", 13),
        ("X", "constant", 14),
        ("Y", "constant", 14),
        ("X", "constant", 15),
    ]
    assert outline.exports == ["Outer", "X", "Y", "X"]


def _regex_content_terms(data: bytes) -> dict[str, int]:
    """The definition content_terms must match: identifiers as the regex finds them."""
    counts: dict[str, int] = {}
    for word, n in Counter(re.findall(rb"[A-Za-z_][A-Za-z0-9_]*", data)).items():
        for term in identifier_terms(word.decode("ascii")):
            counts[term] = counts.get(term, 0) + n
    return counts


def test_content_terms_equal_the_regex_definition_in_value_and_order():
    rng = random.Random(7)
    alphabet = b"aZ_09 .\n\t-\xc3\xa9(getUserByID parse_url HTTPServer 2fa v2 __init__ 123abc)"
    for _ in range(300):
        data = bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 200)))
        assert list(content_terms(data).items()) == list(_regex_content_terms(data).items()), data


@pytest.mark.parametrize("seed", range(6))
def test_message_index_joined_from_blob_parts_matches_one_built_whole(seed: int):
    """Per-blob ``Messages`` (numbered by an interner shared with other blobs) joined per revision
    answer every query as the index built from the revision's entries at once."""
    rnd = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(30)]
    interner = Interner()
    interner.numbers([f"unrelated{i}" for i in range(rnd.randint(0, 9))])
    per_doc = [
        [
            (f"text {d}.{e}", rnd.choice(["", "a.key"]), tuple(rnd.choices(vocabulary, k=rnd.randint(0, 7))))
            for e in range(rnd.randint(0, 4))
        ]
        for d in range(rnd.randint(0, 8))
    ]
    whole = MessageIndex(
        [(d, text, key) for d, rows in enumerate(per_doc) for text, key, _ in rows],
        [words for rows in per_doc for _, _, words in rows],
    )
    parts = [
        (d, Messages.of([(text, key) for text, key, _ in rows], [words for _, _, words in rows], interner))
        for d, rows in enumerate(per_doc)
    ]
    joined = MessageIndex.joined(parts, interner.strings)
    assert joined.entries == whole.entries
    distinct = [set(words) for rows in per_doc for _, _, words in rows]
    for _ in range(20):
        asked = set(rnd.sample(vocabulary + ["unknown"], rnd.randint(0, 6)))
        minimum, coverage = rnd.randint(1, 4), rnd.choice([0.3, 0.5, 0.8, 1.0])
        expected = _matched_one_by_one(distinct, asked, minimum, coverage)
        assert joined.match(asked, minimum, coverage) == whole.match(asked, minimum, coverage) == expected


def _matched_one_by_one(
    distinct: list[set[str]], asked: set[str], minimum: int, least: float
) -> list[tuple[int, float, int]]:
    """``MessageIndex.match`` as a loop over the entries."""
    found = []
    for entry, words in enumerate(distinct):
        hits = len(words & asked)
        if hits and words:
            share = float(np.float32(hits) / np.float32(len(words)))
            if hits >= min(minimum, len(asked)) and share >= least:
                found.append((entry, share, hits))
    return sorted(found, key=lambda row: (-row[1], -row[2], row[0]))
