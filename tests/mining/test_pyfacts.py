"""A Python gold file read in groups of top-level statements gives what the whole ``ast`` parse gives:
the same definitions around every line, the same shape for every query, and nothing from a file that
does not parse."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from workbench.code.enclosing import enclosing
from workbench.code.pychunks import groups_of
from workbench.mining.gold_symbols import Change, symbols_of_changes
from workbench.mining.pyfacts import name_words, read, whole_facts
from workbench.mining.shapes import names_symbol

ROOT = Path(__file__).resolve().parents[2]

SOURCE = b'''"""A module whose docstring holds code at column 0:

def not_a_function():
    pass

class NotAClass:
    pass
"""
import os

LIMIT = 3
if os.name:
    WINDOWS = False

    def platform_helper():
        return 1
else:
    WINDOWS = True


@decorator(
    with_args=1,
)
class Client:
    """A client."""

    def connect(self, host):
        text = """
def fake():
    pass
"""
        return host

    @property
    def name(self):
        return "c"


async def fetch(url):
    def inner():
        return url
    return inner


class Parser:
    def parse_header(self, x):
        return x
    value = 1
    def parse_body(self):
        return (
            1
        )


def tail():
    return 2
'''


def _sources() -> list[bytes]:
    """The hand-made file, every module of this project (real code of every shape), and variants."""
    files = [SOURCE] + [path.read_bytes() for path in sorted((ROOT / "workbench").rglob("*.py"))]
    return files + [SOURCE.replace(b"def tail():\n", b"def tail(:\n"), SOURCE + b"\n\n@lonely\n\ndef f():\n    pass\n"]


def _symbols(path: str, data: bytes, changes: list[Change], ranges: list[tuple[str, int, int]]) -> list[str]:
    return symbols_of_changes(path, data, changes, ranges)


def test_groups_cut_before_top_level_statements_after_a_blank_line() -> None:
    groups = groups_of(SOURCE)
    assert groups is not None
    lines = SOURCE.split(b"\n")
    starts = [lines[first - 1] for _, first in groups[1:]]
    # the docstring's "def not_a_function" follows a blank line too: its group does not parse alone and
    # is joined to the next ones (checked below); the others start real statements
    assert b"def not_a_function():" in starts and b"@decorator(" in starts and b"async def fetch(url):" in starts
    assert all(SOURCE[offset - 2 : offset] == b"\n\n" for offset, _ in groups[1:])
    for refused in (b"# -*- coding: latin-1 -*-\n", b"x = 1\r\n", b"from __future__ import barry_as_FLUFL\n"):
        assert groups_of(refused + SOURCE) is None
    assert groups_of(b'open(f, encoding="utf-8")\n') is not None  # a keyword argument is no coding line


@pytest.mark.slow
def test_a_file_read_in_groups_gives_the_whole_files_names_and_ranges() -> None:
    checked = 0
    for data in _sources():
        names, ranges = whole_facts(data)
        lines = range(0, data.count(b"\n") + 2)
        done, got_names, got_ranges = read(data, lines, frozenset())
        assert got_names == names and sorted(got_ranges) == sorted(ranges)
        checked += done is not None
    assert checked > 50  # most of the project's modules were read in groups, not whole


@pytest.mark.slow
def test_the_groups_holding_a_line_give_the_whole_files_symbols_for_it() -> None:
    rng = random.Random(7)
    for data in _sources():
        _, ranges = whole_facts(data)
        count = data.count(b"\n") + 1
        for _ in range(12):
            line = rng.randrange(0, count + 1)
            changes = [Change(line), Change(line, True, rng.choice([0, 4, 8]))]
            _, _, partial = read(data, [line], frozenset())
            for change in changes:
                assert _symbols("m.py", data, [change], partial) == _symbols("m.py", data, [change], ranges)
            assert enclosing(partial, line, line) == enclosing(ranges, line, line)


@pytest.mark.parametrize(
    "query",
    [
        "Fix `connect` when the host is empty",
        "Client.connect drops the port",
        "make parse_header() strict",
        "speed up Parser for large inputs",
        "the name property returns c",
        "rename platform_helper and LIMIT",
        "handle inner() of fetch",
        "nothing here names a symbol",
        "Closes gh-12: tail() returns 2 (#34)",
        "héllo `connect` ünïcode words",
    ],
)
def test_the_groups_holding_a_querys_words_give_the_whole_files_shape(query: str) -> None:
    for data in (SOURCE, SOURCE.replace(b"def tail", b"def t\xc3\xa4il"), *_sources()[1:40]):
        names, _ = whole_facts(data)
        _, partial, _ = read(data, [], name_words(query))
        assert partial <= names
        assert names_symbol(query, partial) == names_symbol(query, names), query


def test_a_group_that_does_not_parse_gives_nothing_as_the_whole_file_does() -> None:
    broken = SOURCE.replace(b"def tail():\n", b"def tail(:\n")
    assert whole_facts(broken) == (frozenset(), [])
    assert read(broken, [3], frozenset({b"connect"})) == (None, frozenset(), [])


def test_a_cut_inside_a_string_is_undone_and_groups_read_are_not_read_again() -> None:
    first = read(SOURCE, [1, 60], frozenset())
    assert first[0] is not None and len(first[0]) == 2  # the docstring's group joined to the statements after it
    assert first[1] == {"LIMIT", "WINDOWS", "platform_helper", "tail"}  # not the docstring's not_a_function
    again = read(SOURCE, [60], frozenset(), first[0])
    assert again[0] == first[0] and again[1:] == (frozenset(), [])
