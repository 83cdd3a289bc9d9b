"""Mine retrieval cases from a repository's history (``workbench mine``).

One streaming ``git log`` reads every commit; the filters keep commits whose
message describes a change to 1-3 existing source files; a seeded sample spread
evenly over the history (one pick per equal slice of the candidates, oldest to
newest) becomes the cases. Each case runs at the commit's parent (``revision``),
expects the modified source files, records the tests the commit changed (not
scored) and its provenance, and carries its ``shape`` and ``expectedSymbols`` (the definitions
the commit edits, ``gold_symbols``; ``cases``). The filters that need only ``git log``'s entry (its
parents and changed files) run first, so the commits they drop are never read. On two cores, one
forked helper process reads the older half of a long history meanwhile (``split``), then parses
gold files (``blobs.parse_helper``).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any

from ..code.collector import collector_paused
from ..console import Progress
from ..corpus.sources import GitRepo, open_repo
from ..options import MineOptions
from .blobs import HELPER_MIN_CASES, parse_helper
from .candidates import mined_candidates
from .cases import shape_cases
from .filters import MineFilters, filter_names
from .history import LogEntry, count_commits, log_entries
from .sample import spread_sample
from .split import Kept, Split

DEFAULT_MAX_CASES = MineOptions.max_cases  # written once, in workbench/options.py


@dataclass
class MineResult:
    """What mining saw and kept: commit count, drops per filter, candidates and the cases."""

    repo: GitRepo
    fixture: str
    commits: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    candidates: int = 0
    cases: list[dict[str, Any]] = field(default_factory=list)
    ranking: tuple[Path, int] | None = None  # the ranking golden written and its mined lines (--ranking)

    def drop_table(self) -> str:
        """The ``--dry-run`` report: commits read, dropped per filter (first failing filter), kept."""
        width = max(len(n) for n in filter_names())
        lines = [f"{self.repo.name}: {self.commits} commits read"]
        lines += [f"  {name:<{width}}  dropped {self.dropped.get(name, 0):>6}" for name in filter_names()]
        lines.append(f"  {'candidates':<{width}}  kept    {self.candidates:>6}")
        lines.append(f"  {'cases':<{width}}  sampled {len(self.cases):>6}")
        return "\n".join(lines)


def parse_date(text: str, end: bool = False) -> int:
    """``2024-01-31`` (the whole day; ``end`` means its last second) or an ISO time, as Unix seconds (UTC)."""
    try:
        if len(text) == 10:
            day = datetime.strptime(text, "%Y-%m-%d").date()
            moment = datetime.combine(day, time.max if end else time.min, tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
            moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    except ValueError:
        raise ValueError(f"expected a date (YYYY-MM-DD) or an ISO time, got {text!r}") from None
    return int(moment.timestamp())


def _candidates(
    repo: GitRepo, options: MineFilters, result: MineResult, progress: bool, helper: Executor | None
) -> Kept:
    """The commits every filter keeps, oldest first (``split.Kept``: the older half's are fetched from the
    helper once sampled). The log filters run on git log's entries, so the
    commits they drop (merges, the root) are never read. With a helper process, a long history's
    older half is read there meanwhile (``split``)."""
    split = Split(helper, repo.git_dir, options) if helper is not None else None
    entries = log_entries(repo.git_dir)
    entries = _counting(split.newer(entries) if split is not None else entries, result)
    # The total (one more git process) only where a bar shows it; a log gets the count and the rate.
    total = count_commits(repo.git_dir) if progress and sys.stderr.isatty() else None
    with Progress(total, f"mining {repo.name}", "commit", progress) as bar:
        entries = _shown(entries, bar)
        newer = list(mined_candidates(repo.git_dir, entries, options, result.dropped))
        kept = Kept(newer)
        if split is not None:
            kept, dropped, count = split.older(newer)
            result.dropped.update(dropped)
            result.commits += count
            bar.update(count)
    result.candidates = len(kept)
    return kept


def _shown(entries: Iterable[LogEntry], bar: Progress) -> Iterator[LogEntry]:
    for entry in entries:
        bar.update()
        yield entry


def _counting(entries: Iterable[LogEntry], result: MineResult) -> Iterator[LogEntry]:
    for entry in entries:
        result.commits += 1
        yield entry


def mine(
    repo_path: Path | str | GitRepo,
    options: MineFilters | None = None,
    max_cases: int | None = DEFAULT_MAX_CASES,
    seed: int = 0,
    fixture: str | None = None,
    dry_run: bool = False,
    progress: bool = True,
) -> MineResult:
    """Mine cases from the repository at ``repo_path`` (work tree, bare repository or bundle, or one
    already opened), read-only."""
    options = options or MineFilters()
    if isinstance(repo_path, GitRepo):
        repo = replace(repo_path, name=fixture or repo_path.name)
    else:
        repo = open_repo(repo_path, fixture)
    result = MineResult(repo=repo, fixture=repo.name)
    # One helper process (two cores or more): it reads a long history's older half, then parses gold files.
    with collector_paused(), parse_helper(HELPER_MIN_CASES if max_cases is None else max_cases) as helper:
        kept = _candidates(repo, options, result, progress, helper)
        # The sample's slices run through the history in order, oldest first.
        picked = kept.take(spread_sample(range(len(kept)), max_cases, seed))
        if dry_run:
            result.cases = [{"name": c.commit.sha} for c in picked]
        else:
            result.cases = shape_cases(repo, picked, result.fixture, helper, progress)
    return result


def mine_corpus(repo_path: Path | str, options: MineOptions | None = None) -> tuple[MineResult, str | None]:
    """Mine ``repo_path`` into the corpus file ``options.out`` (None: return the text for stdout).

    Without ``append`` an existing ``out`` is refused (nothing is overwritten); with it the
    cases are merged in and the rest of the corpus is kept. ``dry_run`` writes nothing.
    ``ranking`` also writes the cases that have gold symbols as a ranking golden beside ``out``
    (``ranking_out``; ``result.ranking`` holds its path and line count).
    The fixture is named ``name``, else after the repository (``corpus.sources.repo_name``).
    The returned text is the corpus JSON when ``out`` is None, else None. Bad option values were
    refused when ``options`` was made (a UsageError). Writing ``out`` holds its lock
    (``files.locked``) from the first read to the atomic write, so concurrent mines into one
    corpus keep every case.
    """
    from ..files import locked

    options = options or MineOptions()
    # The corpus file (and its ranking goldens) are read, mined into and rewritten under its lock:
    # two mines into one corpus at once take turns, and neither one's cases are lost.
    with locked(options.out) if options.out is not None and not options.dry_run else nullcontext():
        return _mine_into(repo_path, options)


def _mine_into(repo_path: Path | str, options: MineOptions) -> tuple[MineResult, str | None]:
    """``mine_corpus``'s read, mine, merge and write (under the corpus's lock when it writes one)."""
    from ..corpus.write import corpus_text, fixture_name, merged_corpus, read_existing, write_corpus
    from ..errors import CorpusError

    out, append, dry_run, name = options.out, options.append, options.dry_run, options.name
    if out is not None and out.exists() and not append and not dry_run:
        raise CorpusError(f"{out}: exists; pass --append to merge the mined cases into it, or choose another --out")
    existing = read_existing(out) if out is not None and append else {}
    repo = open_repo(repo_path, name)
    fixture = name or fixture_name(repo, existing, out)
    golden = _golden_records(out, fixture, append, dry_run) if options.ranking and out is not None else None
    result = mine(repo, filters_of(options), options.max_cases, options.seed, fixture, dry_run, options.progress)
    if dry_run:
        return result, None
    data = merged_corpus(existing, result.repo, result.fixture, result.cases, out)
    if out is None:
        return result, corpus_text(data)
    if golden is not None:
        data = _write_ranking(out, result, golden, data)
    write_corpus(out, data)
    return result, None


def filters_of(options: MineOptions) -> MineFilters:
    """The commit filters ``options`` asks for (every language the engine parses when it names none)."""
    filters = MineFilters(since=options.since, until=options.until, paths=options.paths, with_body=options.with_body)
    if options.extensions is not None:
        filters.extensions = options.extensions
    return filters


def _golden_records(out: Path, fixture: str, append: bool, dry_run: bool) -> list[dict[str, Any]]:
    """The existing records of the fixture's golden beside ``out`` (checked before mining), refusing
    to overwrite one without ``append``."""
    from ..errors import CorpusError
    from .ranking_out import golden_path, read_golden_records

    path = golden_path(out, fixture)
    if path.exists() and not append and not dry_run:
        raise CorpusError(f"{path}: exists; pass --append to merge the mined queries into it, or choose another --out")
    return read_golden_records(path) if append else []


def _write_ranking(
    out: Path, result: MineResult, existing: list[dict[str, Any]], data: dict[str, Any]
) -> dict[str, Any]:
    """Write the ranking golden of the mined cases; ``data`` with its ranking set."""
    from .ranking_out import golden_lines, golden_path, merged_golden, with_ranking_set, write_golden

    path = golden_path(out, result.fixture)
    lines = golden_lines(result.cases)
    write_golden(path, merged_golden(existing, lines))
    result.ranking = (path, len(lines))
    return with_ranking_set(data, result.fixture, path.name)
