"""The path-level checks of the local merge gate: what changed, secrets, and merge-gating paths.

Summaries are stable strings (corpus cases assert substrings of them); details carry the paths.
The risk vocabulary (``workbench.reference.risk``) decides which paths are secrets and which
gate a merge.
"""

from __future__ import annotations

from ...contract import Check
from .diff import Change, Diff
from .secrets import credential_findings

CHANGED, SECRETS, RISK = "Changed files", "Secret safety", "Risk review"
SECRET_FILE = "Potential secret or environment file changed"
SECRET_VALUE = "credential value found in changed content"
PRESENT = frozenset("AMTC")  # statuses whose new content exists in the change


def _risk(mode: str, path: str) -> set[str]:
    from ..risk.concepts import risk_concepts

    return risk_concepts(mode, path)


def _counts(change: Change) -> str:
    return "binary" if change.added is None else f"+{change.added} -{change.deleted}"


def changed_files(diff: Diff) -> Check:
    """PASS with the number of changed files, WARN when nothing changed."""
    details = tuple(f"{c.status} {c.path} ({_counts(c)})" for c in diff.changes)
    if not details:
        return Check(CHANGED, "WARN", "0 changed file(s): nothing to review")
    return Check(CHANGED, "PASS", f"{len(details)} changed file(s)", details)


def secret_paths(diff: Diff) -> list[str]:
    """Added or modified paths that are secret or environment files."""
    return [c.path for c in diff.changes if c.status in PRESENT and "secret" in _risk("secret", c.path)]


def secret_safety(diff: Diff) -> Check:
    """FAIL on a secret or environment file, or a credential value in any added line."""
    files = secret_paths(diff)
    values = credential_findings((c.path, c.added_lines) for c in diff.changes if c.status in PRESENT)
    problems = ([SECRET_FILE] if files else []) + ([SECRET_VALUE] if values else [])
    if not problems:
        return Check(SECRETS, "PASS", "No secret file or credential value changed")
    return Check(SECRETS, "FAIL", "; ".join(problems), tuple(files + values))


def gating_paths(diff: Diff) -> list[str]:
    """Changed paths whose change should gate a merge (secrets, money, auth, data model, CI)."""
    return [c.path for c in diff.changes if "gate" in _risk("gate", c.path)]


def risk_review(diff: Diff) -> Check:
    """WARN listing the merge-gating paths (with their risk concepts), else PASS."""
    gating = gating_paths(diff)
    if not gating:
        return Check(RISK, "PASS", "No merge-gating path changed")
    details = tuple(f"{p} ({', '.join(sorted(_risk('path', p))) or 'gate rule'})" for p in gating)
    return Check(RISK, "WARN", f"{len(gating)} merge-gating path(s) changed: review required", details)
