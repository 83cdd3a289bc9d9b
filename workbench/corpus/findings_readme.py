"""The gold corpus's second source of truth: a findings table in the source's README.

A ``voyage-eval-gold/1`` record names its ``source``, the prose or fixture it was distilled from.
When that source is a Markdown file, a directory with a ``README.md``, or a file with a
``README.md`` beside it, and the README has a findings table (a Markdown table whose header names at
least a file and a rule column), every row is compared with the record: the record is canonical, so
any disagreement is a ``CorpusError`` naming the README line, the row and the field. Rows pair with
findings by (file, rule_key) first, then in order. A source that is prose, or a README without a
findings table, has nothing to compare.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import CorpusError

# Header spellings -> record field.
COLUMNS = {
    "file": "file",
    "path": "file",
    "line": "line",
    "rule_key": "rule_key",
    "rule": "rule_key",
    "severity": "severity",
    "owner_reviewer": "owner_reviewer",
    "owner": "owner_reviewer",
    "reviewer": "owner_reviewer",
}
FIELDS = ("file", "line", "rule_key", "severity", "owner_reviewer")
_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_FILE_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+)$")


def source_readme(record: dict[str, Any], gold_path: Path, bases: list[Path]) -> Path | None:
    """The README a record's ``source`` points at, if it names an existing path inside the last of
    ``bases`` (the corpus's parent; links followed): a record never makes workbench read the host."""
    source = record.get("source")
    if not isinstance(source, str) or not source.strip() or "\n" in source:
        return None
    root = bases[-1].resolve() if bases else gold_path.parent.resolve()
    for base in [gold_path.parent, *bases]:
        candidate = base / source.strip()
        try:
            if candidate.is_dir():
                candidate = candidate / "README.md"
            elif candidate.is_file() and candidate.suffix.lower() != ".md":
                candidate = candidate.parent / "README.md"
            if candidate.is_file() and candidate.resolve().is_relative_to(root):
                return candidate
        except OSError:  # a name too long for the filesystem is prose, not a path
            continue
    return None


def _cells(line: str) -> list[str]:
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") else text
    return [cell.strip().strip("`").strip() for cell in re.split(r"(?<!\\)\|", text)]


def _header(cells: list[str]) -> dict[int, str]:
    named = {i: COLUMNS.get(re.sub(r"[\s-]+", "_", c.lower()).strip("_")) for i, c in enumerate(cells)}
    return {i: field for i, field in named.items() if field}


def findings_rows(text: str) -> list[tuple[int, dict[str, str]]]:
    """(README line number, {field: cell}) of every row of every findings table in ``text``."""
    lines = text.splitlines()
    rows: list[tuple[int, dict[str, str]]] = []
    i = 0
    while i + 1 < len(lines):
        columns = _header(_cells(lines[i])) if lines[i].lstrip().startswith("|") else {}
        if not ({"file", "rule_key"} <= set(columns.values()) and _SEPARATOR.match(lines[i + 1].strip())):
            i += 1
            continue
        i += 2
        while i < len(lines) and lines[i].lstrip().startswith("|"):
            cells = _cells(lines[i])
            row = {field: cells[j] for j, field in columns.items() if j < len(cells)}
            found = _FILE_LINE.match(row.get("file", ""))
            if found and "line" not in row:
                row.update(file=found["file"], line=found["line"])
            rows.append((i + 1, row))
            i += 1
    return rows


def _same(field: str, cell: str, value: Any) -> bool:
    if field == "line":
        return cell.isdigit() and int(cell) == value
    if field == "severity":
        return cell.upper() == str(value).upper()
    return cell == str(value)


def _pairs(
    rows: list[dict[str, str]], findings: list[dict[str, Any]]
) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """(row, finding) pairs by (file, rule_key), then the rest in order; unpaired rows and findings."""
    pairs, free = [], list(range(len(findings)))
    loose = []
    for r, row in enumerate(rows):
        hit = next(
            (
                f
                for f in free
                if findings[f]["file"] == row.get("file") and findings[f]["rule_key"] == row.get("rule_key")
            ),
            None,
        )
        if hit is None:
            loose.append(r)
        else:
            pairs.append((r, hit))
            free.remove(hit)
    matched = min(len(loose), len(free))
    pairs += list(zip(loose[:matched], free[:matched], strict=True))
    return sorted(pairs), loose[matched:], free[matched:]


def check_readme(record: dict[str, Any], gold_path: Path, readme: Path) -> None:
    """Raise a CorpusError at the first disagreement between ``readme``'s findings table and ``record``."""
    try:
        text = readme.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError(f"{readme}: cannot read the README of {gold_path.name} ({exc})") from None
    numbered = findings_rows(text)
    if not numbered:
        return
    rows = [row for _, row in numbered]
    findings = record.get("findings") or []
    pairs, extra_rows, missing = _pairs(rows, findings)
    for r, f in pairs:
        for field in FIELDS:
            value = findings[f].get(field, 0 if field == "line" else "")
            if field in rows[r] and not _same(field, rows[r][field], value):
                raise CorpusError(
                    f"{readme}:{numbered[r][0]}: findings table row {r + 1} ({rows[r].get('file')}, "
                    f"{rows[r].get('rule_key')}): {field} is {rows[r][field]!r} in the table but "
                    f"{value!r} in {gold_path.name} findings[{f}]"
                )
    if extra_rows:
        r = extra_rows[0]
        raise CorpusError(
            f"{readme}:{numbered[r][0]}: findings table row {r + 1} ({rows[r].get('file')}, "
            f"{rows[r].get('rule_key')}) has no finding in {gold_path.name}"
        )
    if missing:
        f = missing[0]
        raise CorpusError(
            f"{readme}: the findings table has no row for {gold_path.name} findings[{f}] "
            f"({findings[f]['file']}, {findings[f]['rule_key']})"
        )
