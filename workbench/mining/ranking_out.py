"""The mined commits as a ranking golden too (``workbench mine --ranking``).

Each mined case that has ``expectedSymbols`` becomes one go-code golden line: the same query, the
definitions the commit edits as ``expected_top_3`` labels (``path:Name``, so a label needs its file
and, when qualified, the qualified name), the parent commit as ``revision`` (the query runs against
that tree, as the retrieval case does), the language of its files and the case's shape as
``category``. The golden of fixture ``F`` in corpus ``C.json`` is ``C.F.ranking.jsonl`` beside it, and
the corpus gains a ``ranking`` set ``{name: F, repoFixture: F, golden}``. With ``--append`` a line
replaces the line of the same id and the set replaces the set of the same name, in place.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from ..code.kinds import extension
from ..code.tssymbols import GRAMMARS
from ..corpus.write import merge_by_key
from ..errors import CorpusError
from ..files import write_text_atomic
from ..strictjson import jsonl_lines, read_bytes

# The languages gold symbols exist for (the ones the engine names definitions in), by extension.
LANGUAGES = {".py": "python", ".pyi": "python"} | {
    ext: "typescript" if grammar == "tsx" else grammar for ext, grammar in GRAMMARS.items()
}


def golden_path(out: Path, fixture: str) -> Path:
    """Where the ranking golden of ``fixture`` goes for the corpus file ``out``."""
    return out.with_name(f"{out.stem}.{fixture}.ranking.jsonl")


def language(paths: list[str]) -> str:
    """The most common language among ``paths`` ("" when none is known; ties by name)."""
    found = Counter(LANGUAGES[ext] for ext in (extension(p.rsplit("/", 1)[-1]) for p in paths) if ext in LANGUAGES)
    return min(found, key=lambda name: (-found[name], name)) if found else ""


def golden_lines(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One go-code golden record per case with ``expectedSymbols``, in case order."""
    lines = []
    for case in cases:
        symbols = case.get("expectedSymbols") or []
        if not symbols:
            continue
        line: dict[str, Any] = {"id": case["name"], "query": case["query"], "expected_top_3": list(symbols)}
        line["revision"] = case["revision"]
        lang = language([s.rsplit(":", 1)[0] for s in symbols])
        if lang:
            line["language"] = lang
        line["category"] = case["shape"]
        line["notes"] = f"mined from commit {case['source']['commit']}"
        lines.append(line)
    return lines


def read_golden_records(path: Path) -> list[dict[str, Any]]:
    """The records of an existing golden file (none when it does not exist), or a CorpusError."""
    if not path.exists():
        return []
    raw = read_bytes(path, "golden file", CorpusError)
    records = []
    for number, record in jsonl_lines(raw, str(path), CorpusError, skip_comments=True):
        if not isinstance(record, dict):
            raise CorpusError(f"{path}:{number}: cannot merge into it: not a JSON object")
        records.append(record)
    return records


def merged_golden(existing: list[dict[str, Any]], lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``existing`` records with ``lines`` merged in: same id replaced in place, new ones appended."""
    return merge_by_key(existing, lines, "id")


def with_ranking_set(data: dict[str, Any], fixture: str, golden: str) -> dict[str, Any]:
    """``data`` with the ranking set of ``fixture`` added, or replacing the set of that name."""
    listed = data.get("ranking")
    sets = [listed] if isinstance(listed, dict) else list(listed) if isinstance(listed, list) else []
    entry = {"name": fixture, "repoFixture": fixture, "golden": golden}
    names = [s.get("name") if isinstance(s, dict) else None for s in sets]
    if fixture in names:
        sets[names.index(fixture)] = entry
    else:
        sets.append(entry)
    return {**data, "ranking": sets}


def write_golden(path: Path, records: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, text)
