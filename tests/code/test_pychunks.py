"""A Python file parsed a group of top-level statements at a time gives the whole file's outline and ranges."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import workbench
from workbench.code import pychunks
from workbench.code.enclosing import python_ranges
from workbench.code.held import Held
from workbench.code.pysymbols import outline_from_tree, python_tree


@pytest.fixture(autouse=True)
def fresh_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pychunks, "_GROUPS", Held(pychunks.GROUPS_HELD, lambda found: found[1]))


def _read(data: bytes) -> tuple[object, object] | None:
    """(outline, ranges) as the engine reads them from ``parsed_module``."""
    parsed = pychunks.parsed_module(data)
    if parsed is None:
        return None
    tree, offsets = parsed
    return outline_from_tree(tree, offsets), python_ranges(tree, offsets)


def _whole(data: bytes) -> tuple[object, object] | None:
    tree = python_tree(data)
    return None if tree is None else (outline_from_tree(tree), python_ranges(tree))


def _sources() -> list[Path]:
    """Real modules: every fifth of the standard library's top level, and this package's own."""
    stdlib = sorted(Path(ast.__file__).parent.glob("*.py"))[::5]
    return stdlib + sorted(Path(workbench.__file__).parent.rglob("*.py"))


def test_real_modules_read_as_when_parsed_whole() -> None:
    pieces = 0
    for path in _sources():
        data = path.read_bytes()
        assert _read(data) == _whole(data), path
        pieces += len(pychunks.groups_of(data) or ()) > 1
    assert pieces > 100  # most were read in groups


def _pieces(data: bytes) -> list[int] | None:
    parsed = pychunks.parsed_module(data)
    return None if parsed is None else parsed[1]


CODEGEN = b'''"""Writes code."""
import os


def script(name):
    return """
def generated():
    pass

class Made:
    pass
""" + name


@property
def after(self):
    return 1
'''


def test_a_def_inside_a_string_joins_the_groups_around_it() -> None:
    offsets = _pieces(CODEGEN)
    assert offsets is not None  # read in groups: the string's cuts were read past
    assert _read(CODEGEN) == _whole(CODEGEN)
    names = [name for name, _, _ in _read(CODEGEN)[0].symbols]  # type: ignore[index]
    assert names == ["script", "after"]


DECORATED = b"""import functools


@functools.lru_cache(
    maxsize=None,
)
def cached(x):
    return x


@functools.wraps(cached)

def spaced(y):
    return y


class Plain:
    def method(self):
        return 2
"""


def test_decorators_stay_with_their_definitions() -> None:
    assert _read(DECORATED) == _whole(DECORATED)
    ranges = sorted(_read(DECORATED)[1])  # type: ignore[index]
    assert ranges == [("Plain", 17, 19), ("Plain.method", 18, 19), ("cached", 4, 8), ("spaced", 11, 14)]


LATIN = "# -*- coding: latin-1 -*-\n'''caf\xe9'''\ndef a():\n    pass\ndef b():\n    '''\xe9t\xe9'''\n"


@pytest.mark.parametrize(
    "data",
    [
        LATIN.encode("latin-1"),
        b"def a():\r    pass\rdef b():\r    pass\r",
    ],
    ids=["coding", "carriage-returns"],
)
def test_files_that_could_read_otherwise_in_groups_are_parsed_whole(data: bytes) -> None:
    assert _pieces(data) is None
    assert _read(data) == _whole(data) and _read(data) is not None


BOM = "\ufeff'''caf\xe9'''\n\n\ndef a():\n    pass\n\n\ndef b():\n    '''\xe9t\xe9'''\n".encode()


def test_a_byte_order_mark_reads_as_in_the_whole_file() -> None:
    assert _pieces(BOM) == [0, 3, 7]
    assert _read(BOM) == _whole(BOM) and _read(BOM) is not None


def test_a_file_that_does_not_parse_reads_as_none() -> None:
    broken = b"def a():\n    return (\ndef b():\n    pass\n"
    assert _whole(broken) is None and _read(broken) is None


def test_a_new_version_parses_only_its_changed_definitions(monkeypatch: pytest.MonkeyPatch) -> None:
    """The groups an earlier version shared are read back at their new lines."""
    first = b"import os\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\nclass C:\n    x = 1\n"
    second = b'"""Docs."""\nimport os\nimport sys\n\n\ndef a():\n    return 10\n' + first[first.index(b"def b") - 2 :]
    assert _read(first) == _whole(first)
    parsed: list[bytes] = []
    real = ast.parse

    def counting(source: bytes, *args: object, **kwargs: object) -> ast.Module:
        parsed.append(source)
        return real(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pychunks.ast, "parse", counting)
    assert _read(second) == _whole(second)
    assert all(b"def b" not in piece and b"class C" not in piece for piece in parsed[:-1])  # whole parse last
    assert len(parsed) == 2 + 1  # the changed head and ``a``, then ``_whole``'s own parse


def test_the_groups_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pychunks, "_GROUPS", Held(2_000, lambda found: found[1]))
    for n in range(50):
        data = "\n\n".join(f"def f{n}_{i}():\n    return {i}\n" for i in range(20)).encode()
        assert _read(data) == _whole(data)
        assert 0 < pychunks._GROUPS.nbytes <= 2_000
    assert len(pychunks._GROUPS) < 1_000  # of the 1,000 groups parsed, the least recently used went


def test_a_process_that_parses_each_file_once_parses_whole_and_keeps_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pychunks, "_GROUPED", [True])
    data = b"import os\n\n\ndef a():\n    return 1\n\n\nclass C:\n    x = 1\n"
    assert _pieces(data) == [0, 3, 7] and len(pychunks._GROUPS) == 3  # in groups, kept
    pychunks.parse_whole()
    assert len(pychunks._GROUPS) == 0
    assert _pieces(data) is None and len(pychunks._GROUPS) == 0  # whole, nothing kept
    assert _read(data) == _whole(data)
