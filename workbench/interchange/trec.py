"""TREC qrels and run files, in (a corpus and a run) and out (``workbench export --format trec``).

Qrels lines are ``qid iter docid rel``, run lines ``qid Q0 docid rank score tag``. On import
a file is a qrels file when its lines have four fields and a run file when they have six;
each qrels query becomes a retrieval case (``expectedPrimary`` = documents with rel > 0;
graded relevance becomes binary) and each run tag a target, ranked as trec_eval ranks
(score descending, ties by docid descending). On export the retrieval suite's expected
files are the qrels (fallback cases, which have none, are left out) and each target's
returned files its run, scores strictly decreasing with rank so any reader keeps the order.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from ..errors import CorpusError, StoreError
from ..paths import safe_id
from ..strictjson import TREC_WHOLE, decode_text, read_bytes, trec_integer, trec_number
from .formats import all_or_nothing, first_seen, new_dirs, recorded_run, trec_id, trec_unescape

Qrels = dict[str, dict[str, int]]
Ranked = dict[str, dict[str, list[tuple[str, float]]]]  # tag -> qid -> (docid, score)


MAX_RELEVANCE = 1000  # |relevance| beyond this is refused (TREC grades are small integers)


def _relevance(text: str) -> int:
    """A qrels relevance: an integer (``2`` or ``2.0``, as ``atol`` reads it) of at most ``MAX_RELEVANCE``
    either way."""
    value = trec_integer(text, "relevance", 4, TREC_WHOLE)
    if abs(value) > MAX_RELEVANCE:
        raise ValueError(f"relevance {text[:40]!r} is not an integer from -{MAX_RELEVANCE} to {MAX_RELEVANCE}")
    return value


def _score(text: str) -> float:
    """A run line's score: a finite number as ``atof`` reads it (``NaN``, ``inf``, ``1e400``, ``1_0`` and
    non-ASCII digits are refused)."""
    return trec_number(text, "score", 5)


def _lines(path: Path) -> list[str]:
    return decode_text(read_bytes(path, "TREC file", CorpusError), str(path), CorpusError).splitlines()


def read_trec(paths: list[Path]) -> tuple[Qrels, Ranked]:
    """The qrels and the runs (by tag) of a mix of TREC qrels and run files, ids unescaped
    (``formats.trec_unescape``); a bad number or a repeated (query, document) pair names its line."""
    qrels: Qrels = defaultdict(dict)
    runs: Ranked = defaultdict(lambda: defaultdict(list))
    seen: dict[Any, str] = {}
    for path in paths:
        for number, line in enumerate(_lines(path), 1):
            fields = line.split()
            if not fields or line.lstrip().startswith("#"):
                continue
            where = f"{path}:{number}"
            try:
                if len(fields) == 4:
                    qid, doc = trec_unescape(fields[0]), trec_unescape(fields[2])
                    first_seen(seen, ("qrels", qid, doc), where, f"qrels line for query {qid!r}, document {doc!r}")
                    qrels[qid][doc] = _relevance(fields[3])
                elif len(fields) == 6:
                    qid, doc, tag = trec_unescape(fields[0]), trec_unescape(fields[2]), trec_unescape(fields[5])
                    first_seen(
                        seen, ("run", tag, qid, doc), where, f"run line for {tag!r}, query {qid!r}, document {doc!r}"
                    )
                    runs[tag][qid].append((doc, _score(fields[4])))
                else:
                    raise ValueError(f"expected 4 (qrels) or 6 (run) fields, got {len(fields)}")
            except ValueError as exc:
                raise CorpusError(f"{where}: not a TREC qrels or run line ({exc})") from None
    if not qrels:
        raise CorpusError(f"{', '.join(map(str, paths))}: no qrels lines (qid iter docid rel) to build cases from")
    return qrels, runs


def trec_order(pairs: list[tuple[str, float]]) -> list[str]:
    """Documents ranked as trec_eval ranks them: score descending, then docid descending."""
    return [doc for doc, _ in sorted(pairs, key=lambda p: (p[1], p[0]), reverse=True)]


def trec_corpus(qrels: Qrels, root: str) -> dict[str, Any]:
    """A retrieval corpus with one case per qrels query, its documents relative to fixture ``trec``."""
    cases = [
        {
            "name": qid,
            "query": qid,
            "repoFixture": "trec",
            "expectedPrimary": sorted(doc for doc, rel in docs.items() if rel > 0),
        }
        for qid, docs in sorted(qrels.items())
    ]
    return {
        "description": "Imported from TREC qrels by `workbench import trec` (queries are the qids).",
        "k": 5,
        "fixtureRoots": {"trec": root},
        "retrieval": cases,
    }


def import_trec(
    paths: list[Path], corpus_out: Path, repos: Path | None = None, runs_dir: Path | None = None
) -> tuple[Path, Path | None]:
    """Write the corpus of the qrels to ``corpus_out`` and, if there are run files, the run; both paths."""
    from ..corpus.write import write_corpus

    qrels, runs = read_trec(paths)
    if corpus_out.exists():
        raise CorpusError(f"{corpus_out}: exists; choose another --out")
    root = str(repos.resolve()) if repos else "."
    with all_or_nothing() as written:
        written += [*new_dirs(corpus_out), corpus_out]
        write_corpus(corpus_out, trec_corpus(qrels, root))
        if not runs:
            return corpus_out, None
        rankings = {tag: {qid: trec_order(pairs) for qid, pairs in by_query.items()} for tag, by_query in runs.items()}
        source = {"format": "trec", "files": [str(p) for p in paths]}
        kwargs = {"out_dir": runs_dir} if runs_dir else {}
        run = recorded_run(corpus_out, "retrieval", rankings, _observation, source, **kwargs)
    return corpus_out, run


def _observation(docs: list[str]) -> dict[str, Any]:
    return {"primary": list(dict.fromkeys(docs)), "related": [], "reasons": {}}


def export_trec(run_path: Path, out_dir: Path, target: str = "") -> list[Path]:
    """Write ``qrels.txt`` and one ``<target>.run`` per target (or only ``target``) of a run's retrieval
    suite; the paths written."""
    from ..store.runs import load_run

    run = load_run(run_path)
    cases = run.cases
    if cases.empty or "suite" not in cases or not (cases["suite"] == "retrieval").any():
        raise StoreError(f"{run_path}: no retrieval cases to export")
    rows = cases[cases["suite"] == "retrieval"]
    if target:
        rows = rows[rows["target"] == target]
        if rows.empty:
            raise StoreError(f"{run_path}: no retrieval cases of target {target!r}")
    out_dir.mkdir(parents=True, exist_ok=True)
    first = rows[rows["target"] == rows["target"].iloc[0]]
    qrels = [
        f"{trec_id(str(case))} 0 {trec_id(str(doc))} 1\n"
        for case, expected in zip(first["case"], first["expected"], strict=True)
        if isinstance(expected, list)
        for doc in expected
    ]
    written = [out_dir / "qrels.txt"]
    from ..files import write_text_atomic

    write_text_atomic(written[0], "".join(qrels))
    for target, group in rows.groupby("target", sort=False):
        lines = []
        for case, returned, fallback in zip(group["case"], group["returned"], group["fallback"], strict=True):
            if fallback or not isinstance(returned, list):
                continue
            lines += [
                f"{trec_id(str(case))} Q0 {trec_id(str(doc))} {rank} {len(returned) - rank + 1} "
                f"{trec_id(str(target))}\n"
                for rank, doc in enumerate(returned, 1)
            ]
        path = out_dir / f"{safe_id(str(target), 'target')}.run"
        if path in written:
            raise StoreError(f"{run_path}: targets {target!r} and another both export as {path.name}")
        write_text_atomic(path, "".join(lines))
        written.append(path)
    return written
