"""The reference engine: index a repository, rank its files for a task, build a context pack.

Public entry points: ``build_pack`` (the pack), ``pack_to_json`` and ``format_pack``
(its JSON and terminal renderings), ``load_index`` (the cached index of one repo),
``infer_harness``, ``run_gate`` (the local merge gate) and ``risk_concepts``.
How source code is read (file kinds, outlines, symbols) lives below, in ``workbench.code``;
only ``targets`` and ``cli`` import this package. numpy, pathspec and tree-sitter are imported
inside the functions that use them.
"""

from __future__ import annotations

from .gate.judge import run_gate
from .harness import infer_harness
from .index import ENGINE_VERSION, RepoIndex, load_index
from .pack import build_pack
from .render import format_pack, pack_to_json
from .risk.concepts import risk_concepts

__all__ = [
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
