"""The reference engine: index a repository, rank its files for a task, build a context pack.

Public entry points: ``build_pack`` (the pack), ``pack_to_json`` and ``format_pack``
(its JSON and terminal renderings), ``load_index`` (the cached index of one repo),
``infer_harness``, ``run_gate`` (the local merge gate) and ``risk_concepts``.
Nothing heavy is imported until one of them is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .index import RepoIndex, load_index  # noqa: F401  (RepoIndex: a lazy export for annotations)
    from .pack import build_pack
    from .render import format_pack, pack_to_json

__all__ = [
    "CODE_EXTENSIONS",
    "ENGINE_VERSION",
    "build_pack",
    "format_pack",
    "infer_harness",
    "load_index",
    "pack_to_json",
    "risk_concepts",
    "run_gate",
]
_HOMES = {
    "CODE_EXTENSIONS": "kinds",
    "build_pack": "pack",
    "format_pack": "render",
    "pack_to_json": "render",
    "load_index": "index",
    "ENGINE_VERSION": "index",
    "RepoIndex": "index",
    "infer_harness": "harness",
    "run_gate": "gate.judge",
    "risk_concepts": "risk.concepts",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f"{__name__}.{home}"), name)
