"""Read the data files some suites keep beside the corpus: ranking goldens (JSONL) and
findings gold records / recorded runs (JSON). Bad lines are CorpusErrors naming file, line and field."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import CorpusError
from ..strictjson import jsonl_lines, read_bytes
from ..strictjson import read_json as strict_read_json

# An expected item: (file, symbol, suffix). An empty file matches any file, an empty symbol any
# symbol; with ``suffix`` the hit's file may also end with ``/`` + file (go-code's ``file:symbol``).
Item = tuple[str, str, bool]
_LONE_COLON = re.compile(r"(?<!:):(?!:)")  # ``file:symbol``, not ``Foo::bar``


@dataclass(frozen=True)
class GoldenQuery:
    """One labelled search query: expected (file, symbol, suffix) items, symbol optional."""

    id: str
    query: str
    expected: tuple[Item, ...]
    language: str = ""
    category: str = ""
    revision: str = ""


def data_path(corpus_path: Path, rel: str, field: str = "data file") -> Path:
    """A data file (or folder) named in the corpus's ``field``: relative to the corpus directory,
    then its parent. It must resolve, links followed, inside the corpus's parent, as a fixture must
    to run: a corpus never makes workbench read an arbitrary file of the host."""
    given = Path(rel)
    if given.is_absolute():
        raise CorpusError(f"{corpus_path}: {field}: {rel!r} must be a path relative to the corpus, not absolute")
    found = next(
        (base / given for base in (corpus_path.parent, corpus_path.parent.parent) if (base / given).exists()),
        corpus_path.parent / given,
    )
    return confined(found, corpus_path, f"{field} {rel!r}")


def confined(path: Path, corpus_path: Path, what: str) -> Path:
    """``path``, or a CorpusError when it resolves (links followed) outside the corpus's parent."""
    root = corpus_path.resolve().parent.parent
    if not path.resolve().is_relative_to(root):
        raise CorpusError(f"{corpus_path}: {what} resolves to {path.resolve()}, outside {root} (the corpus's parent)")
    return path


def go_code_label(label: str, where: str) -> Item:
    """A go-code ``expected_top_3`` string: ``file:symbol`` (the file may be a ``/``-anchored suffix
    of the hit's) or a bare ``symbol`` (any file)."""
    file, colon, symbol = _split_label(label)
    if not symbol or (colon and not file):
        raise CorpusError(f"{where}: expected 'file:symbol' or 'symbol', got {label!r}")
    return file, symbol, True


def _split_label(label: str) -> tuple[str, str, str]:
    parts = _LONE_COLON.split(label.strip(), maxsplit=1)
    return (parts[0].strip(), ":", parts[1].strip()) if len(parts) == 2 else ("", "", parts[0].strip())


def _expected_items(value: Any, where: str, go_code: bool) -> tuple[Item, ...]:
    if not isinstance(value, list) or not value:
        raise CorpusError(f"{where}: expected a non-empty list of {{file, symbol}} items")
    items: list[Item] = []
    for index, item in enumerate(value):
        if isinstance(item, str) and go_code:
            items.append(go_code_label(item, f"{where}[{index}]"))
        elif isinstance(item, str) and item:
            items.append((item, "", False))
        elif isinstance(item, dict) and isinstance(item.get("file"), str) and item["file"]:
            symbol = item.get("symbol") or ""
            if not isinstance(symbol, str):
                raise CorpusError(f"{where}[{index}].symbol: expected a string")
            items.append((item["file"], symbol, False))
        else:
            raise CorpusError(f"{where}[{index}]: expected a file path or {{file, symbol}}")
    return tuple(items)


def load_golden(path: Path) -> list[GoldenQuery]:
    """Parse a golden JSONL file: ``{id?, query, expected | expected_top_3, language?, category?,
    revision?}`` per line.

    ``expected_top_3`` is go-code's field: its string labels follow go-code (see ``go_code_label``);
    ``expected`` strings are file paths. ``revision`` (workbench) pins the query to a commit of a
    git-backed fixture, as a retrieval case's does. Blank lines and ``#`` comment lines are skipped."""
    raw = read_bytes(path, "golden file", CorpusError)
    queries, seen = [], set()
    for number, record in jsonl_lines(raw, str(path), CorpusError, skip_comments=True):
        where = f"{path}:{number}"
        if not isinstance(record, dict) or not isinstance(record.get("query"), str) or not record["query"].strip():
            raise CorpusError(f"{where}.query: expected a non-empty string")
        key = "expected" if "expected" in record else "expected_top_3"
        expected = _expected_items(record.get(key), f"{where}.{key}", go_code=key == "expected_top_3")
        ident = _text(record.get("id"), f"{where}.id") or f"{path.stem}:{number}"
        if ident in seen:
            raise CorpusError(f"{where}.id: duplicate id {ident!r}")
        seen.add(ident)
        queries.append(
            GoldenQuery(
                ident,
                record["query"],
                expected,
                _text(record.get("language"), f"{where}.language"),
                _text(record.get("category"), f"{where}.category"),
                _text(record.get("revision"), f"{where}.revision"),
            )
        )
    return queries


def _text(value: Any, where: str) -> str:
    """An optional scalar field as text ("" when absent); lists and objects are refused."""
    if value is None or value is False:
        return ""
    if isinstance(value, (dict, list)):
        raise CorpusError(f"{where}: expected a string")
    return str(value)


def read_json(path: Path, what: str) -> Any:
    """A JSON document, strictly (see ``workbench.strictjson``), or a CorpusError naming the file."""
    return strict_read_json(path, what, CorpusError)


def ranking_sets(corpus: Any) -> list[dict[str, Any]]:
    """The ranking sets, each checked: a string repoFixture and golden, an optional string name."""
    section = corpus.data.get("ranking") or []
    sets = [section] if isinstance(section, dict) else section if isinstance(section, list) else []
    for index, spec in enumerate(sets):
        where = f"{corpus.path}: ranking[{index}]"
        if not isinstance(spec, dict):
            raise CorpusError(f"{where}: expected an object {{name, repoFixture, golden}}")
        for key in ("repoFixture", "golden"):
            if not isinstance(spec.get(key), str) or not spec[key]:
                raise CorpusError(f"{where}.{key}: expected a non-empty string, got {spec.get(key)!r:.60}")
        if not isinstance(spec.get("name", ""), str):
            raise CorpusError(f"{where}.name: expected a string")
    return sets


def ranking_cases(corpus: Any) -> list[dict[str, Any]]:
    """One case per golden query of every set: ``{name: "<set>/<id>", query, repoFixture, expected, ...}``
    (and ``revision`` when the line pins one)."""
    cases = []
    for index, spec in enumerate(ranking_sets(corpus)):
        set_name = str(spec.get("name") or spec.get("repoFixture") or f"set{index}")
        golden = data_path(corpus.path, str(spec.get("golden", "")), f"ranking[{index}].golden")
        for query in load_golden(golden):
            cases.append(
                {
                    "name": f"{set_name}/{query.id}",
                    "query": query.query,
                    "repoFixture": spec.get("repoFixture"),
                    "set": set_name,
                    "expected": [list(item) for item in query.expected],
                    "language": query.language,
                    "category": query.category,
                    **({"revision": query.revision} if query.revision else {}),
                }
            )
    return cases


def check_ranking(corpus: Any) -> None:
    """Every golden file parses, every set's fixture exists and every pinned revision is a commit of
    its (git-backed) fixture, as CorpusErrors naming the golden file and query."""
    from .fixtures import missing_revisions

    for index, spec in enumerate(ranking_sets(corpus)):
        golden = data_path(corpus.path, spec["golden"], f"ranking[{index}].golden")
        pinned = [query for query in load_golden(golden) if query.revision]
        fixture = corpus.fixture_dir(spec["repoFixture"])
        missing = missing_revisions(fixture, [query.revision for query in pinned]) if pinned else set()
        for query in pinned:
            if query.revision in missing:
                raise CorpusError(
                    f"{golden}: query {query.id!r}.revision: {query.revision!r} is not a commit of fixture "
                    f"{spec['repoFixture']!r}" + (f" ({len(missing)} revisions missing)" if len(missing) > 1 else "")
                )
