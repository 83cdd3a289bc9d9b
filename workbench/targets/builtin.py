"""The ``builtin`` target: the project's own reference engine, in process.

Each capability delegates to its module in ``workbench.reference``, imported on
first use so a missing or broken module fails only the suites that need it.
"""

from __future__ import annotations

from typing import Any

from ..contract import PACK_LIMIT, Command, GateResult, GoldScope, Pack, Repo, SearchHit
from ..reference.index import ENGINE_VERSION
from ..reference.pack import build_pack


class BuiltinTarget:
    """Context packs, risk concepts, harness inference, the merge gate and symbol search of the reference engine."""

    name = "builtin"
    version = ENGINE_VERSION

    def context_pack(
        self, query: str, repos: list[Repo], limit: int = PACK_LIMIT, gold_scope: GoldScope | None = None
    ) -> Pack:
        """The reference engine's pack for ``query`` over ``repos``, of the files the corpus's
        ``gold_scope`` allows, with ranked ``symbols`` (``workbench.reference.search.pack_symbols``)."""
        from ..code.kinds import allowed_by
        from ..reference.search import PACK_SYMBOLS, SYMBOL_DEPTH, pack_symbols

        pack = build_pack(query, repos, limit, gold_scope)
        if gold_scope is None or not gold_scope.exclude:
            pack.symbols = pack_symbols(query, repos, pack.primary)
        else:
            found = pack_symbols(query, repos, pack.primary, SYMBOL_DEPTH * len(repos))
            pack.symbols = [ref for ref in found if allowed_by(gold_scope, ref.path)][:PACK_SYMBOLS]
        return pack

    def risk_concepts(self, mode: str, text: str) -> set[str]:
        """Risk concepts of a query, path, gate or secret check (``workbench.reference.risk``)."""
        from ..reference.risk.concepts import risk_concepts

        return risk_concepts(mode, text)

    def infer_harness(self, repo: Repo) -> dict[str, list[Command]]:
        """Setup/validate/runtime commands the repository declares (``workbench.reference.harness``)."""
        from ..reference.harness import infer_harness

        return infer_harness(repo)

    def gate(self, repo: Repo, options: dict[str, Any] | None = None) -> GateResult:
        """The local merge gate's verdict on the repository's change (``workbench.reference.gate``)."""
        from ..reference.gate.judge import run_gate

        return run_gate(repo, options)

    def search(self, query: str, repo: Repo, top_k: int = 20) -> list[SearchHit]:
        """Ranked (file, symbol) hits for ``query`` in ``repo`` (``workbench.reference.search``)."""
        from ..reference.search import search

        return search(query, repo, top_k)
