"""Policy profile: what a local run can and cannot certify under the requested policy.

``standard`` needs nothing remote. ``high-risk`` requires independently verified pull-request
controls (review, hosted CI, branch protection) whenever a merge-gating path changes, which a
local run cannot verify. ``company`` requires ownership approval (CODEOWNERS at the base) for
every change, which a local run can never self-certify.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...contract import Check
from .checks import gating_paths
from .diff import Diff

if TYPE_CHECKING:
    import pathspec

POLICY = "Policy profile"
POLICIES = ("standard", "high-risk", "company")
REMOTE = "requires pull-request controls a local run cannot verify"
OWNERSHIP = "requires ownership approval a local run cannot self-certify"
CODEOWNERS = ("CODEOWNERS", ".github/CODEOWNERS", "docs/CODEOWNERS", ".gitlab/CODEOWNERS")


def _pattern(line: str) -> pathspec.PathSpec:
    import pathspec

    try:
        return pathspec.PathSpec.from_lines("gitignore", [line])
    except LookupError:  # pathspec < 1.0 only knows the older name
        return pathspec.PathSpec.from_lines("gitwildmatch", [line])


def owner_rules(text: str) -> list[tuple[pathspec.PathSpec, tuple[str, ...]]]:
    """CODEOWNERS lines as (pattern, owners), in file order (the last match wins)."""
    rules = []
    for line in text.splitlines():
        parts = line.split("#", 1)[0].split()
        if not parts or parts[0].startswith(("[", "^[")):  # GitLab section headers
            continue
        try:
            rules.append((_pattern(parts[0]), tuple(parts[1:])))
        except ValueError:  # an invalid pattern owns nothing
            continue
    return rules


def owners(diff: Diff) -> list[str]:
    """``path: owners`` for each changed path under the base's CODEOWNERS (``unowned`` if none)."""
    text = next((t for t in map(diff.base_text, CODEOWNERS) if t is not None), None)
    if text is None:
        return ["no CODEOWNERS file at the base: ownership cannot be established locally"]
    rules = owner_rules(text)
    found = []
    for path in diff.paths:
        matched = [names for pattern, names in rules if pattern.match_file(path)]
        found.append(f"{path}: {' '.join(matched[-1]) if matched and matched[-1] else 'unowned'}")
    return found


def policy_profile(diff: Diff, policy: str) -> Check:
    """FAIL when the policy needs remote controls this change triggers; PASS otherwise."""
    if policy == "company":
        return Check(POLICY, "FAIL", f"Company policy {OWNERSHIP}", tuple(owners(diff)))
    if policy == "high-risk":
        gating = gating_paths(diff)
        if gating:
            details = ("required: independent review, hosted CI and branch protection", *gating)
            return Check(POLICY, "FAIL", f"High-risk change {REMOTE}", details)
        return Check(POLICY, "PASS", "High-risk policy: no merge-gating path changed")
    return Check(POLICY, "PASS", "Standard policy: no remote controls required")
