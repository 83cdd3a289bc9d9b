"""Lazy public exports for the package ``__init__`` files: ``import workbench`` (or a subpackage)
stays cheap, and a name's module is imported the first time the name is used."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def exports(
    package: str, names: dict[str, str], namespaces: frozenset[str] = frozenset()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``names`` maps each public name to the
    module (relative to ``package``) defining it; a name in ``namespaces`` is that module itself."""
    scope = import_module(package).__dict__

    def getattr_(name: str) -> Any:
        home = names.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = import_module(home if home.startswith(package) else f"{package}.{home}")
        value = module if name in namespaces else getattr(module, name)
        scope[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(scope) | set(names))

    return getattr_, dir_
