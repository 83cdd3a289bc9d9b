"""Shared pieces of the standard-format importers and exporters.

``read_records`` reads a JSON list or JSONL file of objects strictly; ``all_or_nothing``
removes what a failed import wrote; ``recorded_run`` turns
rankings recorded elsewhere (a TREC run file, a go-code report) into a workbench run
directory, scored by the suite's own rules, so imported results get workbench's
comparisons and reports. ``trec_id`` makes an id safe for whitespace-separated files, reversibly (``trec_unescape``).
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from ..errors import CorpusError
from ..paths import DEFAULT_RUNS_DIR, safe_id
from ..strictjson import jsonl_lines, loads_strict, read_bytes


def read_records(path: Path, what: str) -> list[tuple[str, dict[str, Any]]]:
    """(where, object) for each record of a JSON list (or object with one list) or JSONL file, read
    strictly (``workbench.strictjson``); ``where`` is ``file:line`` (JSONL) or ``file: record n``."""
    raw = read_bytes(path, f"{what} file", CorpusError)
    if raw.lstrip().startswith(b"["):
        listed = loads_strict(raw, str(path), CorpusError)
        records = [(f"{path}: record {index + 1}", record) for index, record in enumerate(listed)]
    else:
        records = [(f"{path}:{number}", value) for number, value in jsonl_lines(raw, str(path), CorpusError, True)]
    for where, record in records:
        if not isinstance(record, dict):
            raise CorpusError(f"{where}: {what} is not a JSON object")
    return records


def first_seen(seen: dict[Any, str], key: Any, where: str, what: str) -> None:
    """Remember where ``key`` was first read; a second one is a CorpusError naming both places."""
    if key in seen:
        raise CorpusError(f"{where}: duplicate {what} (first at {seen[key]})")
    seen[key] = where


def new_dirs(path: Path) -> list[Path]:
    """The missing directories above ``path``, outermost first (so a failed import can remove them)."""
    return [parent for parent in reversed(path.absolute().parents) if not parent.exists()]


@contextmanager
def all_or_nothing() -> Iterator[list[Path]]:
    """Collect the files an import writes; if it fails, remove every one of them (all files or none)."""
    written: list[Path] = []
    try:
        yield written
    except BaseException:
        for path in reversed(written):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        raise


def require(record: dict[str, Any], key: str, path: Path, label: str) -> str:
    """A non-empty string field of an input record, or a CorpusError naming file, record and field."""
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CorpusError(f"{path}: {label}: field {key!r} must be a non-empty string")
    return value


def _escaped(char: str) -> bool:
    return char == "%" or char.isspace() or not char.isprintable()


def trec_id(text: str) -> str:
    """An id with no whitespace (TREC files are whitespace-separated), reversibly: ``%``, whitespace
    and unprintable characters become ``%XX`` per UTF-8 byte (``a b.py`` -> ``a%20b.py``, ``a%20b.py``
    -> ``a%2520b.py``, tab ``%09``, newline ``%0A``); ``trec_unescape`` is its inverse."""
    return "".join(quote(c, safe="") if _escaped(c) else c for c in text)


def trec_unescape(text: str) -> str:
    """The id ``trec_id`` escaped (``%XX`` sequences decoded as UTF-8; anything else as it is)."""
    return unquote(text, errors="strict") if "%" in text else text


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def recorded_run(
    corpus_path: Path,
    suite_name: str,
    rankings: dict[str, dict[str, list[Any]]],
    observation: Any,
    source: dict[str, Any],
    out_dir: Path = DEFAULT_RUNS_DIR,
) -> Path:
    """Write a run of ``suite_name`` whose targets answered as ``rankings`` (target -> case -> ranked items).

    ``observation(items)`` turns one case's ranked items into the suite's observation. A case of
    the corpus that a target has no ranking for scored an empty answer (as trec_eval scores it: 0).
    """
    import pandas as pd

    from ..corpus import load_corpus
    from ..options import RunOptions
    from ..run.manifest import assemble
    from ..run.summary import overall, summarise
    from ..store.runs import free_run_id, stamped_run_id, write_run
    from ..suites import Outcome, RunContext, get_suite

    corpus = load_corpus(corpus_path)
    suite = get_suite(suite_name)
    ctx = RunContext(corpus=corpus)
    cases = suite.cases(corpus)
    per_suite, rows, frames = {}, [], []
    for target, ranked in rankings.items():
        outcomes = [Outcome(case, observation(ranked.get(str(case["name"]), [])), None, 0.0) for case in cases]
        per_suite[target], target_rows, scores = summarise(
            suite, target, outcomes, ctx, corpus.thresholds.get(suite.name, {})
        )
        rows += target_rows
        frames.append(scores)
    summary = {"run_dir": None, **overall({suite.name: per_suite}), "suites": {suite.name: per_suite}}
    now = datetime.now(UTC)
    label = "+".join(safe_id(str(t))[:24] for t in rankings)[:80] or "imported"  # tags are names, never paths
    run_id = free_run_id(out_dir, stamped_run_id(now, label))
    options = RunOptions(suites=[suite.name], targets=[f"imported:{t}" for t in rankings])
    entries = [{"name": t, "spec": f"imported:{t}", "version": "imported"} for t in rankings]
    # No engine was asked: no request timeout applies.
    recorded = dict(options.to_manifest(), timeout=None)
    manifest = assemble(run_id, now, corpus, entries, options, recorded, imported=source)
    return write_run(out_dir, run_id, manifest, summary, rows, pd.concat(frames, ignore_index=True))
