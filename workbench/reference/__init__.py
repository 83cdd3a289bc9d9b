"""The reference engine: index a repository, rank its files for a task, build a context pack.

Public entry points: ``build_pack`` (the pack), ``pack_to_json`` and ``format_pack``
(its JSON and terminal renderings), ``load_index`` (the cached index of one repo),
``infer_harness``, ``run_gate`` (the local merge gate) and ``risk_concepts``.
Each is imported from its module the first time it is used, so a caller that needs one
module (mining reads ``kinds`` and the parsers) does not load the whole engine.
numpy, pathspec and tree-sitter are imported inside the functions that use them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

# Public name -> the module (relative to this package) it comes from.
_HOMES = {
    "CODE_EXTENSIONS": ".kinds",
    "ENGINE_VERSION": ".index",
    "RepoIndex": ".index",
    "build_pack": ".pack",
    "format_pack": ".render",
    "infer_harness": ".harness",
    "load_index": ".index",
    "pack_to_json": ".render",
    "risk_concepts": ".risk.concepts",
    "run_gate": ".gate.judge",
}
__all__ = [
    "CODE_EXTENSIONS",
    "ENGINE_VERSION",
    "RepoIndex",
    "build_pack",
    "format_pack",
    "infer_harness",
    "load_index",
    "pack_to_json",
    "risk_concepts",
    "run_gate",
]

if TYPE_CHECKING:
    from .gate.judge import run_gate
    from .harness import infer_harness
    from .index import ENGINE_VERSION, RepoIndex, load_index
    from .kinds import CODE_EXTENSIONS
    from .pack import build_pack
    from .render import format_pack, pack_to_json
    from .risk.concepts import risk_concepts
else:

    def __getattr__(name: str) -> object:
        """A public name, imported from its module the first time it is used."""
        if name not in _HOMES:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(import_module(_HOMES[name], __name__), name)
        globals()[name] = value
        return value
