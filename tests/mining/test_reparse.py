"""A tree-sitter parse that starts from the previous revision's tree (``mining.reparse``) gives the
tree a fresh parse gives: every node's type, span and points, over seeded random revisions of Go,
TypeScript and JavaScript files; and the line diff it is told about turns the old text into the new."""

from __future__ import annotations

import random
from typing import Any

import pytest

from workbench.code.tssymbols import toolkit
from workbench.mining.reparse import Reparser, line_blocks, line_edits

GO = [
    "package store",
    "",
    "import (",
    '\t"errors"',
    '\t"fmt"',
    ")",
    "type Store struct {",
    "\titems []int",
    "}",
    "func (s *Store) Add(x int) {",
    "\ts.items = append(s.items, x)",
    "}",
    "func helper(x int) int {",
    "\tif x > 3 {",
    '\t\treturn fmt.Println("big")',
    "\t}",
    '\treturn errors.New("x")',
    "}",
    "// a comment",
    "var answer = 42",
    "func broken( {",
]
TS = [
    "export class Store {",
    "  items: number[] = []",
    "  add(x: number): void {",
    "    this.items.push(x)",
    "  }",
    "}",
    "export function helper(x: number) {",
    "  return `value ${x}`",
    "}",
    "const arrow = (y: string) => y.trim()",
    "interface Shape { size: number }",
    "type Id = string | number",
    "",
    "/* comment */",
    "if (answer) { call(1, 2",
    "}",
]
JS = [
    "'use strict'",
    "function Command(name) {",
    "  this.name = name",
    "}",
    "Command.prototype.parse = function (argv) {",
    "  return argv.slice(2)",
    "}",
    "module.exports = { run: function () { return 1 } }",
    "const re = /a+b/g",
    "let s = `template ${1 + 2}`",
    "",
    "}",
]
LANGUAGES = [("go", GO), ("typescript", TS), ("javascript", JS)]


def _revisions(pool: list[str], rng: random.Random, count: int) -> list[bytes]:
    """``count`` revisions of one file, each a few random line edits of the one before."""
    lines = [rng.choice(pool) for _ in range(40)]
    out = []
    for _ in range(count):
        for _ in range(rng.randrange(0, 5)):
            at = rng.randrange(len(lines) + 1)
            action = rng.random()
            if action < 0.4 or not lines:
                lines.insert(at, rng.choice(pool))
            elif action < 0.7:
                del lines[min(at, len(lines) - 1)]
            else:
                lines[min(at, len(lines) - 1)] = rng.choice(pool)
        ending = rng.choice(["\n", "", "\r\n"])
        out.append(("\n".join(lines) + ending).encode())
    return out


def _nodes(tree: Any) -> list[tuple[Any, ...]]:
    """Every node of a tree in order: type, bytes, points, named, error."""
    found, stack = [], [tree.root_node]
    while stack:
        node = stack.pop()
        found.append((node.type, node.start_byte, node.end_byte, node.start_point, node.end_point, node.is_named))
        found.append(node.has_error)
        stack.extend(reversed(node.children))
    return found


@pytest.mark.parametrize("grammar, pool", LANGUAGES)
def test_reparsing_from_the_previous_tree_gives_the_fresh_tree(grammar: str, pool: list[str]) -> None:
    rng = random.Random(7)
    parser = toolkit(grammar)[0]
    reparser = Reparser(keep=2)
    revisions = _revisions(pool, rng, 60)
    for number, data in enumerate(revisions):
        reused = reparser.parse("src/file", grammar, data)
        assert _nodes(reused) == _nodes(parser.parse(data)), (grammar, number)
    assert reparser.parse("src/file", grammar, b"") is not None and reparser.parse("src/file", grammar, revisions[0])


def test_only_the_last_paths_within_the_byte_budget_are_kept() -> None:
    reparser = Reparser(keep=2, keep_bytes=30)
    first = reparser.parse("a.go", "go", b"package a\n")
    reparser.parse("b.go", "go", b"package b\n")
    reparser.parse("a.go", "go", b"package a\nvar x = 1\n")
    assert list(reparser._last) == [("b.go", "go"), ("a.go", "go")] and first.root_node.type == "source_file"
    reparser.parse("c.go", "go", b"package c\n")
    assert list(reparser._last) == [("a.go", "go"), ("c.go", "go")]
    reparser.parse("d.go", "go", b"package d\n" + b"// padding\n" * 3)
    assert list(reparser._last) == [("d.go", "go")] and reparser._bytes == 43


def _apply(a: list[bytes], b: list[bytes], blocks: list[tuple[int, int, int, int]]) -> list[bytes]:
    """``a`` with each block's lines replaced by ``b``'s, checking the lines between blocks agree."""
    out, i, j = [], 0, 0
    for i1, i2, j1, j2 in blocks:
        assert a[i:i1] == b[j:j1] and i1 >= i and j1 >= j
        out += a[i:i1] + b[j1:j2]
        i, j = i2, j2
    assert a[i:] == b[j:]
    return out + a[i:]


def _point(text: bytes, offset: int) -> tuple[int, int]:
    return text.count(b"\n", 0, offset), offset - (text.rfind(b"\n", 0, offset) + 1)


def test_the_line_diff_and_its_edits_turn_the_old_text_into_the_new() -> None:
    rng = random.Random(3)
    pool = [b"a", b"b", b"c", b"", b"}", b"x = 1"]
    for _ in range(400):
        old = b"\n".join(rng.choice(pool) for _ in range(rng.randrange(0, 12))) + rng.choice([b"", b"\n"])
        new = b"\n".join(rng.choice(pool) for _ in range(rng.randrange(0, 12))) + rng.choice([b"", b"\n"])
        a, b = old.split(b"\n"), new.split(b"\n")
        blocks = line_blocks(a, b)
        assert _apply(a, b, blocks) == b
        text = old
        for (i1, i2, j1, j2), edit in zip(reversed(blocks), line_edits(old, new), strict=True):
            start, old_end, new_end, start_point, old_end_point, new_end_point = edit
            inserted = b"\n".join(b[j1:j2]) + (b"\n" if j2 < len(b) and j2 > j1 else b"")
            assert text[start:old_end] == b"\n".join(a[i1:i2]) + (b"\n" if i2 < len(a) and i2 > i1 else b"")
            assert (start_point, old_end_point) == (_point(text, start), _point(text, old_end))
            text = text[:start] + inserted + text[old_end:]
            assert new_end == start + len(inserted) and new_end_point == _point(text, new_end)
        assert text == new
