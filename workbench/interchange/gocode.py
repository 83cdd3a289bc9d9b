"""Import a go-code eval report's ``per_query`` rows as a ranking run (``workbench import go-code``).

The report is a JSON object with a ``per_query`` list (or that list itself); each row has
``query``, the expected labels (``expected_top_3`` or ``expected``: ``"file:symbol"``,
``"symbol"`` or ``{file, symbol}``, kept as the golden line holds them), an optional ``id``,
and the ranked hits under ``results``, ``hits`` or ``retrieved`` (``{file, symbol}`` objects
or ``"file:symbol"`` strings). The rows become a golden file beside the written corpus
(its ``ranking`` set, fixture ``go-code`` at ``--repos`` or the corpus directory) and the
hits a run of the ranking suite, target = the report's ``name``/``engine`` or file stem,
scored by the ranking suite's own (go-code) rules.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..corpus.write import write_corpus
from ..errors import CorpusError
from ..files import write_text_atomic
from ..strictjson import read_json
from .formats import all_or_nothing, first_seen, new_dirs, recorded_run

HIT_KEYS = ("results", "hits", "retrieved")


def _rows(path: Path) -> tuple[str, list[dict[str, Any]]]:
    report = read_json(path, "go-code report", CorpusError)
    rows = report.get("per_query") if isinstance(report, dict) else report
    if not isinstance(rows, list) or not rows:
        raise CorpusError(f"{path}: per_query: expected a non-empty list of rows")
    name = str(report.get("name") or report.get("engine") or path.stem) if isinstance(report, dict) else path.stem
    return name, rows


def _hit(item: Any, where: str) -> list[str]:
    if isinstance(item, dict) and isinstance(item.get("file") or item.get("symbol"), str):
        return [str(item.get("file") or ""), str(item.get("symbol") or "")]
    if isinstance(item, str) and item:
        file, sep, symbol = item.rpartition(":")
        return [file, symbol] if sep else ["", item]
    raise CorpusError(f"{where}: expected a {{file, symbol}} object or a 'file:symbol' string")


def _golden_and_hits(path: Path, rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, list[Any]]]:
    golden, hits = [], {}
    seen: dict[Any, str] = {}
    for index, row in enumerate(rows):
        where = f"{path}: per_query[{index}]"
        if not isinstance(row, dict) or not isinstance(row.get("query"), str) or not row["query"].strip():
            raise CorpusError(f"{where}.query: expected a non-empty string")
        expected = row.get("expected_top_3", row.get("expected"))
        if not isinstance(expected, list) or not expected:
            raise CorpusError(f"{where}.expected_top_3: expected a non-empty list of labels")
        ident = str(row.get("id") or f"q{index + 1}")
        first_seen(seen, ident, f"{where}.id", f"id {ident[:80]!r}")
        golden.append({"id": ident, "query": row["query"], "expected_top_3": expected})
        key = next((k for k in HIT_KEYS if k in row), None)
        ranked = row.get(key) if key else []
        if not isinstance(ranked, list):
            raise CorpusError(f"{where}.{key}: expected a list of hits")
        hits[ident] = [_hit(item, f"{where}.{key}[{n}]") for n, item in enumerate(ranked)]
    return golden, hits


def import_go_code(
    paths: list[Path], corpus_out: Path, repos: Path | None = None, runs_dir: Path | None = None
) -> tuple[Path, Path]:
    """Write the corpus (and its golden files) of the reports' queries, and their run; both paths."""
    if corpus_out.exists():
        raise CorpusError(f"{corpus_out}: exists; choose another --out")
    sets: list[dict[str, Any]] = []
    rankings: dict[str, dict[str, list[Any]]] = {}
    goldens: dict[Path, list[dict[str, Any]]] = {}
    for path in paths:  # every report is read and checked before anything is written
        name, rows = _rows(path)
        golden, hits = _golden_and_hits(path, rows)
        golden_file = corpus_out.parent / f"{corpus_out.stem}.{path.stem}.golden.jsonl"
        if golden_file in goldens or golden_file.exists():
            raise CorpusError(f"{path}: its golden file {golden_file} exists or another report has that name")
        goldens[golden_file] = golden
        sets.append({"name": path.stem, "repoFixture": "go-code", "golden": golden_file.name})
        ranked = rankings.setdefault(name, {})
        ranked.update({f"{path.stem}/{ident}": items for ident, items in hits.items()})
    with all_or_nothing() as written:
        written += new_dirs(corpus_out)
        corpus_out.parent.mkdir(parents=True, exist_ok=True)
        for golden_file, golden in goldens.items():
            written.append(golden_file)
            write_text_atomic(golden_file, "".join(json.dumps(g, ensure_ascii=False) + "\n" for g in golden))
        written.append(corpus_out)
        write_corpus(
            corpus_out,
            {
                "description": "Imported from go-code eval reports by `workbench import go-code`.",
                "fixtureRoots": {"go-code": str(repos.resolve()) if repos else "."},
                "ranking": sets,
            },
        )
        kwargs = {"out_dir": runs_dir} if runs_dir else {}
        source = {"format": "go-code", "files": [str(p) for p in paths]}
        run = recorded_run(corpus_out, "ranking", rankings, lambda items: {"hits": items}, source, **kwargs)
    return corpus_out, run
