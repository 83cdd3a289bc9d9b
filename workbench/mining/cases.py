"""Sampled candidates as cases: each gold file read at the parent revision, the query's shape, and
the definitions the commit's diff edits (``expectedSymbols``).

Gold files come from one ``git cat-file --batch`` process, read a group ahead of the cases; the
diffs of every sampled commit from one ``git diff-tree --stdin``, read in a thread as git writes
them (a batch waits only for its own; folders holding only the commits' other files, their tests,
are left out). A gold blob is read once for its names and ranges (``blobs.GoldBlobs``), a Python
one only where its case looks: its changed lines and its query's words (``pyfacts``). The helper
process reads its share of a batch's blobs while this process builds the last batch's cases.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..console import Progress
from ..corpus.gitio import CatFile
from ..corpus.sources import GitRepo
from ..errors import GitError
from .blobs import Batch, GoldBlobs, Request
from .filters import Candidate
from .gold_symbols import Change, PatchReader, diff_changes, old_blob_ids, symbols_of_changes
from .pyfacts import name_words
from .shapes import names_file, query_shape

_CASE_BATCH = 32
Gold = list[tuple[str, str, bytes]]  # (blob id, path, bytes) of each gold file of a case
_NONE: frozenset[bytes] = frozenset()


def _case(candidate: Candidate, fixture: str, shape: str, symbols: list[str]) -> dict[str, Any]:
    commit = candidate.commit
    when = datetime.fromtimestamp(commit.time, tz=UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    case: dict[str, Any] = {
        "name": f"{fixture}-{commit.sha[:10]}",
        "query": candidate.query,
        "repoFixture": fixture,
        "revision": commit.parents[0],
        "expectedPrimary": list(candidate.source),
        **({"expectedSymbols": symbols} if symbols else {}),
        "shape": shape,
        "source": {"commit": commit.sha, "date": when, "subject": commit.subject},
    }
    if candidate.tests:
        case["tests"] = list(candidate.tests)
    return case


def shape_cases(
    repo: GitRepo, picked: list[Candidate], fixture: str, helper: Executor | None = None, progress: bool = False
) -> list[dict[str, Any]]:
    """The cases of ``picked``, each with its shape and its ``expectedSymbols`` (gold files read at
    the parent revision; the commits' diffs from one ``git diff-tree --stdin``, read while the gold
    files are parsed: ``gold_symbols.PatchReader``).

    Every gold blob is read once, per blob id: its definition ranges around the changed lines are
    always needed, its names only when the query does not already name a file (the shape's first
    rule); both come from that one read (``blobs.GoldBlobs``; a batch's Python blobs are read ahead,
    partly in a helper process on two cores: ``helper``, a ``blobs.parse_helper``). Cases are built
    ``_CASE_BATCH`` at a time; their gold files are read a group ahead (``CatFile.stream``). With
    ``progress``, how many cases are done shows on stderr (``console.Progress``)."""
    from concurrent.futures import ThreadPoolExecutor

    cases = []
    pairs = [(c.commit.sha, c.commit.parents[0]) for c in picked]
    paths = [path for c in picked for path in c.source]
    bar = Progress(len(picked), f"cases of {fixture}", "case", progress)
    with bar, ThreadPoolExecutor(1) as pool, CatFile(repo.git_dir) as objects:
        facts = GoldBlobs(helper=helper)
        expected = set(paths)
        others = {path for c in picked for _, path in c.commit.changes if path not in expected}
        diffs = PatchReader(repo.git_dir, pairs, paths, others)
        pool.submit(diffs.run)
        found = objects.stream(_gold_specs(picked, diffs))
        last: _Pending | None = None
        for start in range(0, len(picked), _CASE_BATCH):
            batch = picked[start : start + _CASE_BATCH]
            gold = _gold_blobs(repo, found, batch)
            patches = diffs.upto(start + len(batch), [c.commit.sha for c in batch])
            changes = [diff_changes(patches.get(c.commit.sha, "")) for c in batch]
            named = [names_file(c.query, c.source) for c in batch]
            reads = facts.start(_requests(batch, gold, changes, named))
            facts.read_here(reads)
            if last is not None:  # the last batch's cases, while the helper reads this one's share
                cases += _cases(last, fixture, facts)
                bar.update(len(last.batch))
            last = _Pending(batch, gold, changes, named, reads)
        if last is not None:
            cases += _cases(last, fixture, facts)
            bar.update(len(last.batch))
    return cases


@dataclass
class _Pending:
    """A batch whose blobs are being read: its candidates, gold files, changes and names-file flags."""

    batch: list[Candidate]
    gold: list[Gold]
    changes: list[dict[str, list[Change]]]
    named: list[bool]
    reads: Batch


def _cases(pending: _Pending, fixture: str, facts: GoldBlobs) -> list[dict[str, Any]]:
    """The cases of a batch, once the helper's share of its blobs is in."""
    facts.finish(pending.reads)
    out = []
    for candidate, blobs, change, by_file in zip(
        pending.batch, pending.gold, pending.changes, pending.named, strict=True
    ):
        shape = "names-file" if by_file else _shape(candidate, blobs, facts)
        out.append(_case(candidate, fixture, shape, _expected_symbols(blobs, change, facts)))
    return out


def _requests(
    batch: list[Candidate], gold: list[Gold], changes: list[dict[str, list[Change]]], named: list[bool]
) -> list[Request]:
    """What each gold blob is read for: the old lines its commit changes, and, when the query names no
    gold file (the shape then depends on the names), the query's words that could name a symbol."""
    return [
        (
            blob,
            path,
            data,
            frozenset(c.line for c in change.get(path, [])),
            name_words(c.query) if not by_file else _NONE,
        )
        for c, blobs, change, by_file in zip(batch, gold, changes, named, strict=True)
        for blob, path, data in blobs
    ]


def _expected_symbols(blobs: Gold, changes: dict[str, list[Change]], facts: GoldBlobs) -> list[str]:
    """``path:Name`` of the definitions the diff's ``changes`` edit in each gold file, in file order."""
    return [
        symbol
        for blob, path, data in blobs
        for symbol in symbols_of_changes(path, data, changes.get(path, []), facts.ranges(blob, path, data))
    ]


def _gold_specs(picked: list[Candidate], diffs: PatchReader) -> Iterator[str]:
    """What git cat-file is asked for each case's gold files: the old blob id its commit's diff names
    (git then walks no tree), else ``parent:path`` (a file shown without one: binary, a mode change)."""
    for index, candidate in enumerate(picked):
        sha = candidate.commit.sha
        ids = old_blob_ids(diffs.upto(index + 1, [sha]).get(sha, ""))
        for path in candidate.source:
            yield ids.get(path) or f"{candidate.commit.parents[0]}:{path}"


def _gold_blobs(repo: GitRepo, found: Iterator[tuple[str, str, bytes] | None], batch: list[Candidate]) -> list[Gold]:
    """Each candidate's gold files at its parent revision, the next of ``found`` (git cat-file's answers
    to every case's ``_gold_specs``, in order, read ahead: ``CatFile.stream``) for each."""
    gold: list[Gold] = []
    for candidate in batch:
        blobs: Gold = []
        for path in candidate.source:
            item = next(found)
            if item is None or item[1] != "blob":
                parent = candidate.commit.parents[0]
                raise GitError(
                    f"{repo.path}: {path} is missing at {parent[:12]} (commit {candidate.commit.sha[:12]} modifies it)"
                )
            blobs.append((item[0], path, item[2]))
        gold.append(blobs)
    return gold


def _shape(candidate: Candidate, blobs: Gold, facts: GoldBlobs) -> str:
    """The shape of a case whose query names no gold file: names-symbol or words-only."""
    symbols = set().union(*(facts.names(blob, path, data) for blob, path, data in blobs))
    return query_shape(candidate.query, list(candidate.source), symbols)
