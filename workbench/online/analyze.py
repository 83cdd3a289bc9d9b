"""``workbench interleave analyze LOG``: an impression log (``serve --interleave``, or any harness
writing the same JSONL) into the preference of one engine over the other.

Validation is strict but never fatal: a line that is not a JSON object of a known shape is counted
as malformed (its line number and reason kept); a second impression with a known id is a counted
duplicate and ignored; feedback for an impression the log never showed, or a second feedback for
one, is counted and ignored; a path the agent opened or edited that was not shown is counted
(``out_of_list``) and credits no one. A path matches a shown file as ``<repo>/<path>`` or, when
only one shown file has it, as the bare path. Opened and edited files are clicks alike, each
distinct file once. An impression without feedback is no task (its agent never reported).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..columns import CLICKS_A, CLICKS_B, OUTCOME, REPOS, SHOWN_AT
from ..errors import WorkbenchError
from ..strictjson import loads_strict, read_bytes
from .credit import CODES, credit
from .interleave import TEAM_A, TEAM_B
from .preference import Preference, preference

if TYPE_CHECKING:
    import pandas as pd

IMPRESSION, QUERY = "impression", "query"
KEPT_PROBLEMS = 20
COUNTS = ("lines", "impressions", "feedback", "tasks", "malformed", "duplicate_impressions",
          "other_pair", "unknown_impression", "duplicate_feedback", "out_of_list", "no_feedback")  # fmt: skip


class _Bad(Exception):
    """One log line's problem (counted as malformed, never raised out of ``analyze_log``)."""


@dataclass
class LogAnalysis:
    """What a log holds: the counts of every kind of line and problem, the kept problems, one row
    per task (``impression, at, repos, query, clicks_a, clicks_b, outcome``) and the preference (None: no task)."""

    log: str
    target_a: str
    target_b: str
    counts: dict[str, int]
    problems: list[str]
    cases: pd.DataFrame
    preference: Preference | None
    seed: int = 0

    def to_dict(self) -> dict[str, Any]:
        import json

        from ..files import dumps

        pref = self.preference.to_dict() if self.preference else None
        return json.loads(
            dumps(
                {
                    "log": self.log,
                    "a": self.target_a,
                    "b": self.target_b,
                    "counts": self.counts,
                    "problems": self.problems,
                    "preference": pref,
                    "cases": self.cases.to_dict("records"),
                }
            )
        )


def _impression(value: dict[str, Any]) -> tuple[str, list[tuple[str, str, str]], dict[str, str]]:
    ident, shown = value.get("impression"), value.get("shown")
    if not isinstance(ident, str) or not ident:
        raise _Bad("'impression' should be a non-empty string")
    if not isinstance(shown, list):
        raise _Bad("'shown' should be a list of {repo, path, team}")
    items = []
    for n, item in enumerate(shown):
        if not (isinstance(item, dict) and all(isinstance(item.get(k), str) for k in ("repo", "path", "team"))):
            raise _Bad(f"shown[{n}] should be {{repo, path, team}} strings")
        if item["team"] not in (TEAM_A, TEAM_B):
            raise _Bad(f"shown[{n}].team should be 'a' or 'b', got {item['team'][:20]!r}")
        items.append((item["repo"], item["path"], item["team"]))
    targets = value.get("targets") or {}
    if not isinstance(targets, dict) or not all(isinstance(targets.get(k, ""), str) for k in (TEAM_A, TEAM_B)):
        raise _Bad("'targets' should be {a, b} names")
    return ident, items, {k: targets.get(k) or k for k in (TEAM_A, TEAM_B)}


def _feedback(value: dict[str, Any]) -> tuple[str, list[str]]:
    ident = value.get("feedback")
    if not isinstance(ident, str) or not ident:
        raise _Bad("'feedback' should be an impression id (a non-empty string)")
    paths: list[str] = []
    for key in ("opened", "edited"):
        found = value.get(key, [])
        if not isinstance(found, list) or not all(isinstance(p, str) for p in found):
            raise _Bad(f"{key!r} should be a list of path strings")
        paths += found
    return ident, paths


def _resolve(shown: list[tuple[str, str, str]], paths: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """``shown`` as ``(item, team)`` and ``paths`` as shown items (unmatched ones kept as given)."""
    full = {f"{repo}/{path}": f"{repo}/{path}" for repo, path, _ in shown}
    bare: dict[str, list[str]] = {}
    for repo, path, _ in shown:
        bare.setdefault(path, []).append(f"{repo}/{path}")
    keys = [full.get(p) or (bare[p][0] if len(bare.get(p, [])) == 1 else p) for p in paths]
    return [(f"{repo}/{path}", team) for repo, path, team in shown], keys


def analyze_log(path: Path | str, seed: int = 0) -> LogAnalysis:
    """Read an impression log strictly into counts, tasks and the preference (see the module doc)."""
    import pandas as pd

    path = Path(path)
    raw = read_bytes(path, "impression log", WorkbenchError)
    counts = dict.fromkeys(COUNTS, 0)
    problems: list[str] = []
    impressions: dict[str, tuple[str, list[tuple[str, str, str]], dict[str, str]]] = {}
    shown_at: dict[str, str] = {}
    feedback: dict[str, list[str]] = {}
    order: list[str] = []

    def bad(number: int, why: str, kind: str = "malformed") -> None:
        counts[kind] += 1
        if len(problems) < KEPT_PROBLEMS:
            problems.append(f"{path}:{number}: {why}")

    parsed = []
    for number, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        counts["lines"] += 1
        try:
            value = loads_strict(line.strip(), f"line {number}", WorkbenchError)
            if not isinstance(value, dict) or ("impression" in value) == ("feedback" in value):
                raise _Bad("expected an object with 'impression' (a shown list) or 'feedback' (an impression id)")
            parsed.append((number, value))
        except (WorkbenchError, _Bad) as exc:
            bad(number, str(exc).removeprefix(f"line {number}: "))
    skipped: set[str] = set()  # impressions of another pair: their feedback is not "unknown"
    for number, value in parsed:  # impressions first: a harness may write feedback before its impression
        if "impression" not in value:
            continue
        try:
            ident, shown, names = _impression(value)
        except _Bad as exc:
            bad(number, str(exc))
            continue
        if ident in impressions:
            bad(number, f"impression {ident[:80]!r} logged twice (the first is kept)", "duplicate_impressions")
            continue
        if order and names != impressions[order[0]][2]:
            bad(number, f"impression {ident[:80]!r} compares {names} (the log's first: {impressions[order[0]][2]})",
                "other_pair")  # fmt: skip
            skipped.add(ident)
            continue
        counts["impressions"] += 1
        impressions[ident] = (str(value.get("query", ""))[:200], shown, names)
        at = value.get("at")
        shown_at[ident] = at[:40] if isinstance(at, str) else ""
        order.append(ident)
    for number, value in parsed:
        if "feedback" not in value:
            continue
        try:
            ident, paths = _feedback(value)
        except _Bad as exc:
            bad(number, str(exc))
            continue
        if ident in skipped:
            continue
        if ident not in impressions:
            bad(number, f"feedback for unknown impression {ident[:80]!r}", "unknown_impression")
        elif ident in feedback:
            bad(number, f"second feedback for impression {ident[:80]!r} (the first is kept)", "duplicate_feedback")
        else:
            counts["feedback"] += 1
            feedback[ident] = paths
    names = impressions[order[0]][2] if order else {TEAM_A: TEAM_A, TEAM_B: TEAM_B}
    rows = []
    for ident in order:
        query, shown, _ = impressions[ident]
        if ident not in feedback:
            counts["no_feedback"] += 1
            continue
        items, keys = _resolve(shown, feedback[ident])
        found = credit(items, keys)
        counts["out_of_list"] += found.outside
        repos = "+".join(sorted({repo for repo, _, _ in shown}))
        rows.append((ident, shown_at[ident], repos, query, found.clicks_a, found.clicks_b, found.outcome))
    counts["tasks"] = len(rows)
    cases = pd.DataFrame(rows, columns=[IMPRESSION, SHOWN_AT, REPOS, QUERY, CLICKS_A, CLICKS_B, OUTCOME])
    pref = preference([CODES[o] for o in cases[OUTCOME]], seed=seed) if rows else None
    return LogAnalysis(str(path), names[TEAM_A], names[TEAM_B], counts, problems, cases, pref, seed)
