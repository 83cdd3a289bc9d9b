"""What a parser learns about one file: the symbols it defines, its exports and raw imports.

Every language extractor returns an ``Outline``; it is plain data (tuples and
strings) so it pickles small into the on-disk index cache.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Symbol kinds that name a file's main abstractions (a class or top-level function
# counts more than a method or a constant when the ranking weighs symbols).
MAJOR_KINDS = frozenset({"class", "function", "interface", "type", "enum", "struct"})


@dataclass(slots=True)
class Import:
    """One import as written: ``spec`` (module path or specifier), relative ``level`` (Python), names."""

    spec: str
    level: int = 0
    names: tuple[str, ...] = ()


@dataclass(slots=True)
class Outline:
    """Symbols as ``(name, kind, line)`` (methods qualified ``Class.method``), exports, imports."""

    symbols: list[tuple[str, str, int]] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    package: str = ""
    docs: list[str] = field(default_factory=list)  # first lines of the module's and definitions' docstrings

    def names(self) -> set[str]:
        """Every defined name, bare and qualified (``Parser.parse`` gives both)."""
        found: set[str] = set()
        for name, _, _ in self.symbols:
            found.add(name)
            if "." in name:
                found.add(name.rsplit(".", 1)[1])
        return found
