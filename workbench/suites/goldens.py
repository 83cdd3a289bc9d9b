"""Read the data files some suites keep beside the corpus: ranking goldens (JSONL) and
findings gold records / recorded runs (JSON). Bad lines are CorpusErrors naming file, line and field."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import CorpusError


@dataclass(frozen=True)
class GoldenQuery:
    """One labelled search query: expected (file, symbol) items, symbol optional."""

    id: str
    query: str
    expected: tuple[tuple[str, str], ...]
    language: str = ""
    category: str = ""


def data_path(corpus_path: Path, rel: str) -> Path:
    """A data file named in the corpus: relative to the corpus directory, then its parent."""
    given = Path(rel)
    if given.is_absolute():
        return given
    for base in (corpus_path.parent, corpus_path.parent.parent):
        if (base / given).exists():
            return base / given
    return corpus_path.parent / given


def _expected_items(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list) or not value:
        raise CorpusError(f"{where}: expected a non-empty list of {{file, symbol}} items")
    items = []
    for index, item in enumerate(value):
        if isinstance(item, str):
            items.append((item, ""))
        elif isinstance(item, dict) and isinstance(item.get("file"), str) and item["file"]:
            symbol = item.get("symbol") or ""
            if not isinstance(symbol, str):
                raise CorpusError(f"{where}[{index}].symbol: expected a string")
            items.append((item["file"], symbol))
        else:
            raise CorpusError(f"{where}[{index}]: expected a file path or {{file, symbol}}")
    return tuple(items)


def load_golden(path: Path) -> list[GoldenQuery]:
    """Parse a golden JSONL file: ``{id?, query, expected | expected_top_3, language?, category?}`` per line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read golden file ({exc.strerror or exc})") from None
    queries, seen = [], set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(f"{where}: invalid JSON ({exc.msg})") from None
        if not isinstance(record, dict) or not isinstance(record.get("query"), str) or not record["query"].strip():
            raise CorpusError(f"{where}.query: expected a non-empty string")
        key = "expected" if "expected" in record else "expected_top_3"
        expected = _expected_items(record.get(key), f"{where}.{key}")
        ident = str(record.get("id") or f"{path.stem}:{number}")
        if ident in seen:
            raise CorpusError(f"{where}.id: duplicate id {ident!r}")
        seen.add(ident)
        queries.append(GoldenQuery(ident, record["query"], expected, str(record.get("language") or ""),
                                   str(record.get("category") or "")))
    return queries


def read_json(path: Path, what: str) -> Any:
    """A JSON document, or a CorpusError naming the file."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read {what} ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON in {what} ({exc.msg})") from None
