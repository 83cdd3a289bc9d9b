"""Convergence: do the changed files match the request the change claims to implement?

The score is the fraction of changed (present) files that are on scope for the request. With the
reference engine's pack (``workbench.reference.pack.build_pack``) a file is on scope when the
pack for the request holds it (primary files, or the related files the engine pairs with them,
such as their tests); without the pack builder, when the file's path or added
lines share a content word (stemmed, stop words dropped) with the request.
"""

from __future__ import annotations

from ...contract import PACK_LIMIT, Check, Repo
from ..text import STOP_WORDS, stem, tokens
from .checks import PRESENT
from .diff import Diff

CONVERGENCE = "Convergence"


def terms(text: str) -> set[str]:
    """Content words of ``text``: tokenized, stop words and one-letter tokens dropped, stemmed."""
    return {stem(t) for t in tokens(text) if len(t) > 1 and t not in STOP_WORDS}


def _pack_scope(diff: Diff, request: str) -> set[str] | None:
    """Files of the reference pack for ``request``, or None when no pack builder exists."""
    try:
        from ..pack import build_pack
    except ImportError:
        return None
    pack = build_pack(request, [Repo(diff.repo.name, diff.repo)], PACK_LIMIT)
    return {ref.path for ref in [*pack.primary, *pack.related]}


def on_scope(diff: Diff, request: str) -> tuple[dict[str, bool], str]:
    """Per changed present path whether it is on scope, and the method used."""
    changes = [c for c in diff.changes if c.status in PRESENT]
    ranked = _pack_scope(diff, request)
    if ranked is not None:
        return {c.path: c.path in ranked for c in changes}, "reference pack ranking"
    wanted = terms(request)
    scope = {
        c.path: not wanted.isdisjoint(terms(c.path) | terms(" ".join(t for _, t in c.added_lines))) for c in changes
    }
    return scope, "token overlap with the request"


def convergence(diff: Diff, request: str | None, minimum: float | None) -> Check:
    """PASS when the on-scope fraction reaches ``minimum``; SKIPPED without a request and minimum."""
    if request is None or minimum is None:
        return Check(CONVERGENCE, "SKIPPED", "No request and minimum convergence given")
    scope, method = on_scope(diff, request)
    if not scope:
        return Check(CONVERGENCE, "SKIPPED", "No changed file to score")
    score = sum(scope.values()) / len(scope)
    details = (f"method: {method}", *(f"{'on' if ok else 'off'} scope: {p}" for p, ok in scope.items()))
    if score >= minimum:
        return Check(
            CONVERGENCE,
            "PASS",
            f"Changed files satisfy the convergence requirement ({score:.2f} >= {minimum:.2f})",
            details,
        )
    return Check(CONVERGENCE, "FAIL", f"Convergence {score:.2f} is below the required minimum {minimum:.2f}", details)
