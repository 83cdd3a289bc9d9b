"""Resolve target spec strings into target objects.

Specs: ``builtin`` (the reference engine), ``random``, ``bm25`` and ``guess`` (controls),
``cmd:<command line>``, ``http://host:port`` (or https), ``python:<module>:<factory>``,
or the name of an installed ``workbench.targets`` entry point.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from ..contract import CAPABILITIES, REQUEST_TIMEOUT, capabilities
from ..errors import TargetError, UnknownTarget
from .serve import Dispatcher, make_server

DEFAULT_TARGET = "builtin"
ENTRY_POINT_GROUP = "workbench.targets"


def _builtin(seed: int, timeout: float) -> Any:
    from .builtin import BuiltinTarget

    return BuiltinTarget()


def _random(seed: int, timeout: float) -> Any:
    from .controls import RandomTarget

    return RandomTarget(seed=seed)


def _bm25(seed: int, timeout: float) -> Any:
    from .controls import Bm25Target

    return Bm25Target()


def _guess(seed: int, timeout: float) -> Any:
    from .guess import GuessTarget

    return GuessTarget()


NAMED: dict[str, Callable[[int, float], Any]] = {
    "builtin": _builtin,
    "random": _random,
    "bm25": _bm25,
    "guess": _guess,
}


def _python_target(spec: str) -> Any:
    _, _, rest = spec.partition(":")
    module_name, _, factory_name = rest.partition(":")
    if not module_name or not factory_name:
        raise TargetError(f"{spec}: expected python:<module>:<factory>")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise TargetError(f"{spec}: cannot import {module_name!r} ({exc})") from None
    factory = getattr(module, factory_name, None)
    if not callable(factory):
        raise TargetError(f"{spec}: {module_name} has no callable {factory_name!r}")
    return _named(factory(), spec)


def _entry_point_target(name: str) -> Any | None:
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name == name:
            try:
                factory = point.load()
            except Exception as exc:
                raise TargetError(f"entry point {name!r}: cannot load ({exc})") from None
            return _named(factory(), name)
    return None


def _named(target: Any, spec: str) -> Any:
    if not getattr(target, "name", None):
        try:
            target.name = spec
        except AttributeError:
            raise TargetError(f"{spec}: the factory's object has no 'name'") from None
    if not getattr(target, "version", None):
        try:
            target.version = "unknown"
        except AttributeError:
            pass
    if not capabilities(target):
        raise TargetError(f"{spec}: implements none of {', '.join(CAPABILITIES)}")
    return target


def resolve_target(spec: str, seed: int = 0, timeout: float = REQUEST_TIMEOUT, jobs: int = 1) -> Any:
    """The target object for a spec string; an unknown spec is a TargetError naming it. ``jobs`` is
    how many cases it will be asked at once (a ``cmd:`` target starts up to that many processes)."""
    spec = spec.strip()
    if spec in NAMED:
        return NAMED[spec](seed, timeout)
    if spec.startswith("cmd:"):
        from .command import command_target

        return command_target(spec[4:], timeout, processes=jobs)
    if spec.startswith(("http://", "https://")):
        from .http import HttpTarget

        return HttpTarget(spec, timeout)
    if spec.startswith("python:"):
        return _python_target(spec)
    found = _entry_point_target(spec)
    if found is not None:
        return found
    raise UnknownTarget(
        f"unknown target {spec!r}: use builtin, random, bm25, guess, cmd:<command>, "
        "http://host:port, python:<module>:<factory> or an installed entry point"
    )


def close_target(target: Any) -> None:
    """Release a target's process or connection, if it holds one."""
    closer = getattr(target, "close", None)
    if callable(closer):
        closer()


__all__ = [
    "DEFAULT_TARGET",
    "ENTRY_POINT_GROUP",
    "NAMED",
    "Dispatcher",
    "close_target",
    "make_server",
    "resolve_target",
]
