"""Threshold floors from a baseline, and the two text edits that publish them.

Floors are baseline minus slack; a pass-rate metric (a fraction of n cases) gets
the readable floor strictly above (passed - 1) / n, so one more failing case
trips it (the seed's 21/22 = 0.955 < 0.96 rule). The corpus file keeps every
byte outside its ``thresholds`` object; EVALS.md keeps everything outside the
``<!-- baseline:start -->`` / ``<!-- baseline:end -->`` markers.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..columns import METRIC, SUITE, TARGET, VALUE
from ..errors import StoreError
from ..files import write_text_atomic
from ..options import BaselineOptions

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_SLACK = BaselineOptions.slack  # written once, in workbench/options.py
PASS_RATE_METRICS = frozenset({"accuracy", "caseAccuracy", "passRate", "commandPassRate", "casePassRate"})
START, END = "<!-- baseline:start -->", "<!-- baseline:end -->"
_WS = re.compile(r"\s*")


def pass_rate_floor(value: float, n: int) -> float | None:
    """Shortest decimal in ((passed - 1) / n, passed / n]; None when ``value`` is not k/n."""
    passed = round(value * n)
    if n <= 0 or abs(value * n - passed) > 1e-6:
        return None
    if passed == 0:
        return 0.0
    lower, current = Fraction(passed - 1, n), Fraction(passed, n)
    for digits in range(2, 10):
        scale = 10**digits
        candidate = Fraction(math.floor(lower * scale) + 1, scale)
        if candidate <= current:
            return float(candidate)
    return float(current)


def slack_floor(value: float, slack: float) -> float:
    """``value - slack`` rounded down to two decimals (three for a slack under 0.01), at least 0."""
    digits = 2 if slack >= 0.01 or slack == 0 else 3
    scale = 10**digits
    return max(0.0, math.floor(round((value - slack) * scale, 9)) / scale)


def compute_floors(
    summary: dict[str, Any], scores: pd.DataFrame, target: str, thresholds: dict[str, Any], slack: float = DEFAULT_SLACK
) -> dict[str, Any]:
    """New ``thresholds`` object: floors for one target's metrics, other keys kept in order.

    A suite that already has floors keeps its metric set; a suite without any gets a
    floor for every metric whose value is a fraction in [0, 1].
    """
    if slack < 0:
        raise StoreError(f"slack must be >= 0, got {slack}")
    out = dict(thresholds)
    for suite, per in summary.get("suites", {}).items():
        entry = per.get(target)
        if not entry or entry.get("skipped"):
            continue
        metrics = {
            m: float(v)
            for m, v in (entry.get("metrics") or {}).items()
            if isinstance(v, (int, float)) and math.isfinite(v)
        }
        found = thresholds.get(suite)
        existing: dict[str, Any] = found if isinstance(found, dict) else {}
        names = list(existing) or [m for m, v in metrics.items() if 0.0 <= v <= 1.0]
        floors = dict(existing)
        for metric in (m for m in names if m in metrics):
            n = _count(scores, suite, target, metric, entry)
            rate = pass_rate_floor(metrics[metric], n) if metric in PASS_RATE_METRICS else None
            floors[metric] = rate if rate is not None else slack_floor(metrics[metric], slack)
        if floors:
            out[suite] = floors
    return out


def _count(scores: pd.DataFrame, suite: str, target: str, metric: str, entry: dict[str, Any]) -> int:
    """How many cases a metric is a fraction of: its scored per-case values, else the suite's count."""
    mask = (scores[SUITE] == suite) & (scores[TARGET] == target) & (scores[METRIC] == metric)
    scored = int(scores.loc[mask, VALUE].notna().sum())
    return scored or int(entry.get("scored") or entry.get("cases") or 0)


def replace_thresholds(text: str, thresholds: dict[str, Any], where: Path | str) -> str:
    """``text`` (a corpus file) with only its top-level ``thresholds`` value rewritten (or added)."""
    members = list(_members(text, where))
    span = next(((v0, v1) for key, _, v0, v1 in members if key == "thresholds"), None)
    if span is not None:
        start, end = span
        new = text[:start] + _render(thresholds, *_layout(text, start, end, where)) + text[end:]
    elif members:
        key_start = members[0][1]
        indent = _indent(text, key_start)
        multiline = "\n" in text[:key_start]
        body = _render(thresholds, indent, indent or "  ", "suites" if multiline else "compact")
        new = text[:key_start] + f'"thresholds": {body}' + (f",\n{indent}" if multiline else ", ") + text[key_start:]
    else:
        new = json.dumps({"thresholds": thresholds}, indent=2, ensure_ascii=False) + "\n"
    if json.loads(new) != {**json.loads(text), "thresholds": thresholds}:
        raise StoreError(f"{where}: rewriting thresholds would change other content; edit it by hand")
    return new


def _members(text: str, where: Path | str) -> Iterator[tuple[str, int, int, int]]:
    """Top-level (key, key start, value start, value end) of a JSON object text."""
    decoder = json.JSONDecoder()

    def skip(at: int) -> int:  # _WS matches the empty string, so it always matches
        found = _WS.match(text, at)
        return found.end() if found else at

    pos = skip(0)
    if text[pos : pos + 1] != "{":
        raise StoreError(f"{where}: top level is not a JSON object")
    pos = skip(pos + 1)
    try:
        while text[pos] != "}":
            key, after = decoder.raw_decode(text, pos)
            colon = skip(after)
            value_start = skip(colon + 1)
            _, value_end = decoder.raw_decode(text, value_start)
            yield key, pos, value_start, value_end
            pos = skip(value_end)
            pos = skip(pos + 1) if text[pos] == "," else pos
    except (json.JSONDecodeError, IndexError) as exc:
        raise StoreError(f"{where}: invalid JSON ({exc})") from None


def _indent(text: str, pos: int) -> str:
    line = text[text.rfind("\n", 0, pos) + 1 :]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _layout(text: str, start: int, end: int, where: Path | str) -> tuple[str, str, str]:
    """Base indent, indent unit and style of the object at ``text[start:end]``: ``compact`` (one
    line), ``suites`` (one suite per line) or ``expanded`` (one metric per line)."""
    indent, body = _indent(text, start), text[start:end]
    if "\n" not in body:
        return indent, "  ", "compact"
    inner = list(_members(body, where))
    unit = _indent(body, inner[0][1])[len(indent) :] if inner else ""
    expanded = any("\n" in body[v0:v1] for _, _, v0, v1 in inner)
    return indent, unit or "  ", "expanded" if expanded else "suites"


def _render(thresholds: dict[str, Any], indent: str, unit: str, style: str) -> str:
    """The thresholds object in the layout the file already uses."""
    if style == "compact" or not thresholds:
        return json.dumps(thresholds, ensure_ascii=False)
    if style == "expanded":
        return json.dumps(thresholds, indent=unit, ensure_ascii=False).replace("\n", "\n" + indent)
    body = ",\n".join(
        f"{indent}{unit}{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in thresholds.items()
    )
    return "{\n" + body + f"\n{indent}}}"


def baseline_table(doc: dict[str, Any]) -> str:
    """The "Current baseline" markdown: provenance line, metric table, per-suite pass counts."""
    target, corpus = doc.get("target", {}), doc.get("corpus", {})
    commit = (doc.get("git_commit") or "unknown")[:12]
    lines = [
        f"Recorded {doc.get('recorded')} as baseline `{doc.get('name')}` from run `{doc.get('run_id')}`: "
        f"target `{target.get('name')}` (version {target.get('version', 'unknown')}), corpus "
        f"`{corpus.get('path')}` (sha256 `{str(corpus.get('sha256'))[:12]}`), commit `{commit}`.",
        "",
        "| Group | Metric | Value | Threshold | Pass |",
        "|-------|--------|------:|----------:|:----:|",
    ]
    floors_by_suite = doc.get("thresholds", {})
    for suite, metrics in doc.get("metrics", {}).items():
        floors = floors_by_suite.get(suite) if isinstance(floors_by_suite.get(suite), dict) else {}
        for metric, value in metrics.items():
            floor = floors.get(metric)
            ok = "-" if floor is None or value is None else ("yes" if value >= floor else "NO")
            lines.append(f"| {suite} | {metric} | {_short(value)} | {_short(floor)} | {ok} |")
    counts = [f"{s}: {c.get('passed_cases')}/{c.get('cases')} cases pass" for s, c in doc.get("suites", {}).items()]
    return "\n".join(lines + ["", "; ".join(counts) + "." if counts else ""]).rstrip() + "\n"


def _short(value: Any) -> str:
    if value is None:
        return "-"
    text = f"{value:.3f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def update_evals(path: Path, doc: dict[str, Any]) -> None:
    """Regenerate the text between the baseline markers of ``path`` (appending them if missing)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    block = f"{START}\n{baseline_table(doc)}{END}"
    start, end = text.find(START), text.find(END)
    if 0 <= start < end:
        text = text[:start] + block + text[end + len(END) :]
    else:
        text = text.rstrip("\n") + ("\n\n" if text.strip() else "") + f"## Current baseline\n\n{block}\n"
    write_text_atomic(path, text)
