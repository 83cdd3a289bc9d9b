"""A corpus's ``goldScope``: the rule its cases were labelled by, and the expected files that break it.

``{"exclude": ["tests", "docs", "examples", "generated"]}`` says no file of those kinds
(``code.kinds.scope_kinds``) is ever gold. ``mine`` and ``import swebench`` write it, every target
is sent it, the controls index only the files it allows; a corpus without it lets any file be gold.
"""

from __future__ import annotations

from typing import Any

from ..code.kinds import excluded_by
from ..contract import GoldScope
from ..schemas import Problem

# The rule ``mine`` and ``import swebench`` label by.
MINED_SCOPE = GoldScope(("tests", "docs", "examples", "generated"))


def gold_scope(data: Any) -> GoldScope | None:
    """The corpus's ``goldScope`` (None when absent or not an object; the schema reports a bad one)."""
    scope = data.get("goldScope") if isinstance(data, dict) else None
    if not isinstance(scope, dict) or not isinstance(scope.get("exclude"), list):
        return None
    return GoldScope(tuple(str(kind) for kind in scope["exclude"]))


def scope_problems(data: Any) -> list[Problem]:
    """Every expected file (``expectedPrimary``, ``expectedAnyOf``, ``expectedSymbols``) of a kind the
    corpus's goldScope excludes, one problem each naming the case and the field."""
    scope = gold_scope(data)
    if scope is None or not scope.exclude:
        return []
    problems = []
    cases = data.get("retrieval")
    for index, case in enumerate(cases if isinstance(cases, list) else []):
        if not isinstance(case, dict):
            continue
        multi = isinstance(case.get("repoFixtures"), list) and len(case["repoFixtures"]) > 1
        for key in ("expectedPrimary", "expectedAnyOf", "expectedSymbols"):
            listed = case.get(key)
            for item, expected in enumerate(listed if isinstance(listed, list) else []):
                if not isinstance(expected, str):
                    continue
                path = expected.rpartition(":")[0] if key == "expectedSymbols" else expected
                path = path.partition("/")[2] if multi else path
                kind = excluded_by(path, scope.exclude)
                if kind is not None:
                    name = case.get("name")
                    problems.append(
                        Problem(
                            f"retrieval[{index}].{key}[{item}]",
                            f"{path!r} is a {kind} file, which the corpus's goldScope excludes",
                            name if isinstance(name, str) else None,
                        )
                    )
    return problems
