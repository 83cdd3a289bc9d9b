"""Run suites x targets over a corpus into a Run directory.

Every case of every (suite, target) pair runs with its error captured, so a crashing, hanging or
garbage-answering engine fails only its cases (``strict`` stops at the first error). Scores are
computed per (suite, target) in one vectorized pass, judged against the floors, written atomically.
Each finished case is journaled beside the run directory (``workbench.run.resume``), so an
interrupted run resumes (``RunOptions.resume``) with only the cases its journal lacks.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from contextlib import closing
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..analysis.regressions import check_baseline_corpus, with_baseline
from ..columns import CASE, METRIC, SUITE, TARGET, VALUE
from ..console import Progress
from ..contract import capabilities
from ..corpus import Corpus, load_corpus
from ..corpus.fixtures import open_in_background
from ..errors import RunError, RunStopped, StoreError
from ..options import RunOptions
from ..paths import DEFAULT_CORPUS
from ..sandbox import sandbox_kind
from ..store.runs import Run, in_memory_run, rewrite_run, write_run, written_run
from ..suites import Outcome, RunContext, Suite
from ..targets.handshake import note_unsupported, skip_reason
from .budget import RunBudget, note_budget
from .cache import ResultCache, cached_outcome, storable
from .controls import gated_targets, with_controls
from .deadline import RunDeadline, note_deadline
from .engines import Engines
from .executors import Executor
from .manifest import build_manifest
from .plan import Plan, check_has_cases, resolve_targets, select_suites, without_unavailable
from .repeats import summarise_repeats
from .resume import Journal, Key, as_outcome, case_hash, resume_header, resume_options, reusable
from .shards import ids_record, select_shard
from .summary import overall, skipped
from .work import WorkItem, by_fixture

if TYPE_CHECKING:
    import pandas as pd


def run(corpus: Corpus, options: RunOptions, on_case: Callable[[], None] | None = None) -> Run:
    """Run the suites and targets in ``options`` over ``corpus`` and write the run directory once.

    Each finished case goes to the run's journal first; with ``options.resume`` the journal's
    outcomes are reused and only the missing cases run. With ``options.baseline`` the summary's
    ``baseline`` section is computed before anything is written. The journal is removed once the
    run directory is written; when anything interrupts the run it is kept, and ``RunStopped``
    (carrying the cause) says how to resume.
    """
    opening = open_in_background(corpus.data, corpus.fixtures)  # bundles clone while the suites import
    try:
        if options.baseline:  # before any case runs: the baseline exists and is of this corpus version
            check_baseline_corpus(options.baseline, corpus.path, corpus.sha256, options.on_shared_cases)
        deadline = RunDeadline(options.deadline)  # counts from here: starting the engines is part of the run
        budget = RunBudget(options.budget_usd, options.budget_seconds)
        suites = select_suites(corpus, options)
        header = resume_header(corpus, options) if options.resume else None
        targets = resolve_targets(options)
    finally:
        opening.join()  # before any engine or worker forks
    with Engines(options, targets, deadline) as engines:
        whole, unavailable = _whole_plan(corpus, suites, engines.targets)
        manifest = header or _new_manifest(corpus, engines.targets, options, whole)
        plan = [(s, name, t, select_shard(s.name, cases, options.shard)) for s, name, t, cases in whole]
        journal = Journal.reopen(options.resume, manifest["run_id"]) if options.resume else None
        journal = journal or Journal.create(options.out_dir, manifest)
        session = _Session(corpus, options, journal, engines, on_case, budget)
        manifest, summary, case_rows, scores = _journaled(session, manifest, plan, unavailable)
    return _write(session, manifest, summary, case_rows, scores)


def _whole_plan(corpus: Corpus, suites: list[Suite], targets: list[Any]) -> tuple[Plan, dict[str, dict[str, str]]]:
    """Every (suite, target, cases) of the run, without the cases this machine cannot run (a
    missing toolchain), which are left out before the case ids are recorded, so shards of one
    plan still add up to it."""
    whole, unavailable = without_unavailable(
        [(s, name, t, cases) for s in suites for name, t, cases in s.plan(corpus, targets)], corpus
    )
    check_has_cases(whole, unavailable, corpus)
    return whole, unavailable


def _new_manifest(corpus: Corpus, targets: list[Any], options: RunOptions, whole: Plan) -> dict[str, Any]:
    """The manifest of a new run, with the ids of every case it will run (over all shards)."""
    ids = ids_record((s.name, name, str(c.get("name"))) for s, name, t, cases in whole if _capable(s, t) for c in cases)
    return dict(build_manifest(corpus, targets, options, datetime.now(UTC)), case_ids=ids)


def _journaled(
    session: _Session, manifest: dict[str, Any], plan: Plan, unavailable: dict[str, dict[str, str]]
) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]], pd.DataFrame]:
    """Run the plan, each case journaled: the final manifest, summary, case rows and scores. If
    anything stops it, the journal is kept and ``RunStopped`` says how to resume."""
    journal, engines = session.journal, session.engines
    try:
        session.prior = reusable(journal.path) if session.options.resume else {}
        manifest = _note_resume(manifest, plan, session)
        summary, case_rows, scores = _run_plan(plan, session.corpus, session, unavailable)
        manifest = dict(manifest, executor=engines.executor.describe() if engines.executor else None)
        if engines.cache is not None:
            manifest["cache"] = {"hits": engines.cache.hits, "stored": engines.cache.stored}
        suites = list({s.name: s for s, _, _, _ in plan}.values())
        summary = with_controls(summary, scores, suites, session.options.gate)
        summary = note_budget(note_deadline(summary, engines.deadline), session.budget)
    except BaseException as exc:
        journal.close()
        saved = journal.saved()
        raise RunStopped(str(saved.path), saved.run_id, saved.cases, exc) from exc
    journal.close()
    return manifest, summary, case_rows, scores


def _write(
    session: _Session, manifest: dict[str, Any], summary: dict[str, Any], case_rows: list[dict[str, Any]], scores: Any
) -> Run:
    """Write the run directory (over the one a ``--deadline`` resume continues), with the baseline
    section when asked; the journal goes unless the deadline left cases for a resume."""
    options, journal = session.options, session.journal
    final = journal.path.parent / journal.run_id
    if options.baseline:  # a comparison that cannot be made is noted in the summary: the run is written
        summary = with_baseline(summary, in_memory_run(final, manifest, summary, case_rows, scores), options)
    try:
        path = (
            rewrite_run(final, manifest, summary, case_rows, scores)
            if options.resume and final.exists()
            else write_run(journal.path.parent, journal.run_id, manifest, summary, case_rows, scores)
        )
    except StoreError as exc:  # a full disk: the journal stays, so --resume writes the run later
        saved = journal.saved()
        raise RunStopped(str(saved.path), saved.run_id, saved.cases, exc) from exc
    if not session.deadline.not_run and not session.budget.unreached:  # cases left out: --resume runs them
        journal.remove()
    return written_run(path, manifest, summary)


class _Session:
    """What every (suite, target) pair of one run shares while its cases run."""

    def __init__(
        self,
        corpus: Corpus,
        options: RunOptions,
        journal: Journal,
        engines: Engines,
        on_case: Callable[[], None] | None,
        budget: RunBudget,
    ) -> None:
        self.corpus, self.options, self.journal, self.engines, self.on_case = corpus, options, journal, engines, on_case
        self.budget = budget
        self.ctx = RunContext(corpus=corpus, timeout=options.timeout, seed=options.seed)
        self.prior: dict[Key, dict[str, Any]] = {}  # the journal records a resume may reuse (read by _journaled)
        self.bar: Progress = Progress(None, "cases", enabled=False)  # the progress line, once open
        self.items: dict[tuple[str, str], list[WorkItem]] = {}  # per (suite, target), made once

    @property
    def cache(self) -> ResultCache | None:
        return self.engines.cache

    @property
    def deadline(self) -> RunDeadline:
        return self.engines.deadline

    @property
    def executor(self) -> Executor:
        assert self.engines.executor is not None  # set on entering the engines' block
        return self.engines.executor


def _run_plan(
    plan: Plan, corpus: Corpus, session: _Session, unavailable: dict[str, dict[str, str]]
) -> tuple[dict[str, Any], list[dict[str, Any]], pd.DataFrame]:
    """Run (or reuse) every planned case and score each (suite, target): the summary, the case
    rows and the long score frame of the run. Cases this machine cannot run are listed in their
    suite's ``skipped_cases``; a suite with no other case is skipped with their reasons."""
    import pandas as pd

    summaries: dict[str, dict[str, Any]] = {}
    case_rows: list[dict[str, Any]] = []
    score_frames: list[pd.DataFrame] = []
    total = sum(len(_missing(session, s, name, cases)) for s, name, t, cases in plan if _capable(s, t))
    with Progress(total, "cases", "case", enabled=session.options.progress) as session.bar:
        for suite, name, target, cases in plan:
            floors = corpus.thresholds.get(suite.name, {})
            per_suite = summaries.setdefault(suite.name, {})
            if not _capable(suite, target):
                per_suite[name] = skipped(skip_reason(target, str(suite.capability)), floors)
                continue
            gone = unavailable.get(suite.name, {})
            if not cases:
                why = (
                    f"every case needs what this machine lacks: {'; '.join(sorted(set(gone.values())))}"
                    if gone
                    else "no cases in this corpus (or shard)"
                )
                per_suite[name] = dict(skipped(why, floors), **({"skipped_cases": gone} if gone else {}))
                continue
            session.bar.set_postfix_str(f"{suite.name} / {name}")
            by_repeat = _run_cases(session, suite, name, target, cases)
            note_unsupported(target, str(suite.capability), [o.error for outcomes in by_repeat for o in outcomes])
            if not _capable(suite, target):  # a case answer said "unsupported capability"
                per_suite[name] = skipped(skip_reason(target, str(suite.capability)), floors)
                continue
            per_suite[name], rows, scores = summarise_repeats(suite, name, by_repeat, session.ctx, floors)
            _store_cached(session, suite, name, target, by_repeat, rows)
            if gone:
                per_suite[name]["skipped_cases"] = gone
            case_rows += rows
            score_frames.append(scores)
    scores = (
        pd.concat(score_frames, ignore_index=True)
        if score_frames
        else pd.DataFrame(columns=[SUITE, TARGET, CASE, METRIC, VALUE])
    )
    return (
        {"run_dir": None, **overall(summaries), "suites": summaries, "sandbox": sandbox_kind()},
        case_rows,
        scores,
    )


def _capable(suite: Suite, target: Any) -> bool:
    return suite.capability is None or suite.capability in capabilities(target)


def _key(suite: Suite, target_name: str, item: WorkItem) -> Key:
    """How a journal record is matched to a case: same suite, target, name, definition and repeat."""
    return suite.name, target_name, str(item.case.get("name")), item.digest or case_hash(item.case), item.repeat


def _items(session: _Session, suite: Suite, name: str, cases: list[dict[str, Any]]) -> list[WorkItem]:
    """Every (case, repeat) of one (suite, target), repeat by repeat, numbered in that order (made
    once per pair: each case's definition is digested once)."""
    if (suite.name, name) not in session.items:
        digests = [case_hash(case) for case in cases]
        pairs = [(case, digest, r) for r in range(session.options.repeat) for case, digest in zip(cases, digests)]
        session.items[suite.name, name] = [WorkItem(n, case, r, digest) for n, (case, digest, r) in enumerate(pairs)]
    return session.items[suite.name, name]


def _missing(session: _Session, suite: Suite, name: str, cases: list[dict[str, Any]]) -> list[WorkItem]:
    """The work items of one (suite, target) the journal has no outcome for."""
    items = _items(session, suite, name, cases)
    if not session.prior:  # a new run: every item, and no case hashed to look it up
        return items
    return [i for i in items if _key(suite, name, i) not in session.prior]


def _note_resume(manifest: dict[str, Any], plan: Plan, session: _Session) -> dict[str, Any]:
    """On a resume, tell the user how many outcomes are reused and record it in the manifest."""
    if not session.options.resume:
        return manifest
    live = [(s, name, cases) for s, name, t, cases in plan if _capable(s, t)]
    todo = sum(len(_missing(session, s, name, cases)) for s, name, cases in live)
    reused = sum(len(cases) for _, _, cases in live) * session.options.repeat - todo
    if session.options.progress:
        print(
            f"resuming {session.journal.run_id}: {reused} case(s) reused from {session.journal.path}, {todo} to run",
            file=sys.stderr,
        )
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return dict(manifest, resumed={"at": now, "reused_cases": reused})


def _run_cases(
    session: _Session, suite: Suite, name: str, target: Any, cases: list[dict[str, Any]]
) -> list[list[Outcome]]:
    """Each repeat's outcomes in corpus order: from the journal when it has the case, else from
    the cache (``--cache``), else run now by the executor."""
    items = _items(session, suite, name, cases)
    todo = _missing(session, suite, name, cases)
    wanted = {item.index for item in todo}
    results = {i.index: as_outcome(session.prior[_key(suite, name, i)], i.case) for i in items if i.index not in wanted}
    todo = _from_cache(session, suite, name, target, by_fixture(todo), results)
    results.update(_run_fresh(session, suite, name, target, todo))
    ordered = [results[item.index] for item in items]
    return [ordered[start : start + len(cases)] for start in range(0, len(ordered), len(cases))]


def _from_cache(
    session: _Session, suite: Suite, name: str, target: Any, items: list[WorkItem], results: dict[int, Outcome]
) -> list[WorkItem]:
    """Put the cached outcomes of ``items`` in ``results`` (journaled like any other) and return
    the items still to run."""
    if session.cache is None or not items:
        return items
    keys = [session.cache.key(suite, target, item.case, item.repeat, session.ctx, item.digest) for item in items]
    hits = session.cache.get_many([key for key in keys if key])
    found = [(item, key) for item, key in zip(items, keys, strict=True) if key in hits]
    journaled = session.journal.append_many(
        suite.name,
        name,
        [(cached_outcome(item.case, hits[key], item.repeat), item.digest) for item, key in found],
        read_back=False,  # a hit is decoded JSON already: what the journal would read back
    )
    for (item, _), outcome in zip(found, journaled, strict=True):
        results[item.index] = outcome
        _tick(session)
    return [item for item, key in zip(items, keys, strict=True) if key not in hits]


def _store_cached(
    session: _Session, suite: Suite, name: str, target: Any, by_repeat: list[list[Outcome]], rows: list[dict[str, Any]]
) -> None:
    """Cache the fresh answers of cases that passed (every repeat) without error."""
    if session.cache is None:
        return
    digests = {str(item.case.get("name")): item.digest for item in session.items.get((suite.name, name), [])}
    entries = []
    for outcome in (o for outcomes in by_repeat for o in storable(outcomes, rows)):
        repeat = int(outcome.meta.get("repeat", 0))
        key = session.cache.key(suite, target, outcome.case, repeat, session.ctx, digests.get(outcome.name))
        if key and outcome.observation is not None:
            entries.append((key, outcome.observation))
    session.cache.put_many(entries)


def _tick(session: _Session) -> None:
    session.bar.update(1)
    if session.on_case:
        session.on_case()


def _run_fresh(session: _Session, suite: Suite, name: str, target: Any, items: list[WorkItem]) -> dict[int, Outcome]:
    """Run ``items`` on the executor, journaling each outcome as it arrives. Under ``--strict``
    an errored case is not journaled: it stops the run, and a resume runs it again. Once the
    deadline passes, or the budget is spent, no item starts: those left are recorded as not
    reached, and not journaled (see ``deadline`` and ``budget``)."""
    strict, deadline, budget = session.options.strict, session.deadline, session.budget
    # An executor that starts items as it takes them stops at the budget itself; Ray is cut off.
    lazy = bool(getattr(session.executor, "starts_lazily", False))
    results: dict[int, Outcome] = {}
    if not items:
        return results
    with closing(session.executor.run(suite, target, budget.feed(items), session.ctx)) as stream:
        while not deadline.passed() and (lazy or not budget.spent()):
            arrived = next(stream, None)
            if arrived is None:
                break
            item, outcome = arrived
            if session.cache is not None:
                outcome.meta.setdefault("cached", False)
            if outcome.error and deadline.passed():  # the deadline closed its engine mid-request
                results[item.index] = deadline.cut_short(outcome)
                session.bar.update(1)
                continue
            budget.spend(outcome)
            if not (strict and outcome.error):
                outcome = session.journal.append(suite.name, name, outcome, item.digest)
            results[item.index] = outcome
            _tick(session)
            if strict and outcome.error:
                raise RunError(f"{suite.name}[{outcome.name}] on {name}: {outcome.error} (--strict)")
    left_out = deadline.not_reached if deadline.passed() or not budget.spent() else budget.not_reached
    for item in items:  # what the deadline or the budget left out: a resume runs it
        if item.index not in results:
            results[item.index] = left_out(item.case)
            session.bar.update(1)
    return results


def run_eval(
    corpus_path: Path | str | None = None,
    options: RunOptions | None = None,
    given: Collection[str] | None = None,
    **fields: Any,
) -> Run:
    """Load a corpus (default ``corpus/corpus.json``) and run it with ``options``.

    The one call behind ``workbench run``. Without ``options``, keyword ``fields`` of
    ``RunOptions`` make them. With ``options.resume`` (a run id under ``out_dir``, or a journal
    path) it finishes an interrupted run: the corpus and the deciding options (suites, targets,
    seed, shard, timeout, strictness, repeat) come from its journal, and any of them named in
    ``given`` (default: those set to other than their default) must agree with it.
    """
    options = options or RunOptions(**_names(fields))
    if options.resume is None:
        options = replace(options, targets=gated_targets(options.targets, options.gate))
    if options.resume is not None:
        given = options.changed() if given is None else given
        corpus_path, options = resume_options(options.resume, options, given, corpus_path)
    return run(load_corpus(corpus_path or DEFAULT_CORPUS), options)


def _names(fields: dict[str, Any]) -> dict[str, Any]:
    """``suites``/``targets`` given as one name (``targets="builtin"``) become one-name lists."""
    return {
        key: [value] if key in ("suites", "targets") and isinstance(value, str) else value
        for key, value in fields.items()
    }
