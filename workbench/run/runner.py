"""Run suites x targets over a corpus into a Run directory.

Every case of every (suite, target) pair is run with its error captured, so a
crashing, hanging or garbage-answering engine fails only its cases (``strict``
stops at the first error instead). Scores are then computed per (suite, target)
in one vectorized pass, compared with the corpus floors, and written atomically.

While it runs, every finished case is appended to a journal beside the run directory
(``workbench.journal``), so an interrupted run resumes (``RunOptions.resume``) by running
only the cases its journal lacks, under its original run id.
"""
from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import pandas as pd
from tqdm import tqdm

# tqdm's monitor thread outlives every bar; with a second thread alive the reference engine
# cannot fork its parsing pool and indexes serially. Bars here update often enough without it.
tqdm.monitor_interval = 0

from ..columns import CASE, ERROR, METRIC, PASSED, SUITE, TARGET, VALUE
from ..corpus import Corpus
from ..errors import CorpusError, SuiteError, WorkbenchError
from .resume import Journal, Key, as_outcome, case_hash, find_journal, read_journal_header, refuse_complete, reusable
from .manifest import build_manifest
from ..store.runs import DEFAULT_RUNS_DIR, Run, load_run, write_run
from ..suites import Outcome, RunContext, Suite, get_suite, suite_names, suite_section
from ..targets import close_target, resolve_target
from ..contract import CONTROL_TARGETS, capabilities



@dataclass
class RunOptions:
    """How to run: which suites and targets, limits, and where to write."""

    suites: list[str] | None = None
    targets: list[str] = field(default_factory=lambda: ["builtin"])
    out_dir: Path = DEFAULT_RUNS_DIR
    strict: bool = False
    timeout: float = 60.0
    jobs: int = 1
    seed: int = 0
    shard: tuple[int, int] | None = None
    progress: bool = True
    # The journal directory of an interrupted run to finish (see ``run_eval(resume=...)``).
    resume: Path | None = None
    # Called with the journal once it exists, so a caller can say how to resume if the run fails.
    on_journal: Callable[[Journal], None] | None = None


# Options that decide a run's results: a resumed run takes them from its journal.
RESUME_KEYS = ("suites", "targets", "seed", "shard", "timeout", "strict")


def _run_one(suite: Suite, target: Any, case: dict[str, Any], ctx: RunContext) -> Outcome:
    started = time.perf_counter()
    try:
        observation = suite.run_case(target, case, ctx)
        return Outcome(case, observation, None, time.perf_counter() - started)
    except Exception as exc:  # an engine failing a case is data, not a crash
        message = str(exc) or type(exc).__name__
        if not isinstance(exc, WorkbenchError):
            message = f"{type(exc).__name__}: {message}"
        return Outcome(case, None, message, time.perf_counter() - started)


def _select_cases(cases: list[dict[str, Any]], shard: tuple[int, int] | None) -> list[dict[str, Any]]:
    if shard is None:
        return cases
    index, count = shard
    return [case for position, case in enumerate(cases) if position % count == index]


def threshold_failures(metrics: dict[str, Any], floors: dict[str, float]) -> list[str]:
    """One line per floor not met (a missing metric fails its floor)."""
    return [f"{m} {'missing' if metrics.get(m) is None else f'{metrics[m]:.3f}'} < {floor:g}"
            for m, floor in floors.items() if metrics.get(m) is None or metrics[m] < floor]


def suite_summary(suite: Suite, scores: pd.DataFrame, cases: pd.DataFrame,
                  floors: dict[str, float]) -> dict[str, Any]:
    """The summary of one (suite, target): aggregates, floors, verdict. Frames hold that pair only."""
    metrics = suite.aggregate(scores, cases)
    failures = threshold_failures(metrics, floors)
    errors = int(cases[ERROR].notna().sum()) if ERROR in cases else 0
    if errors:
        failures.append(f"{errors} case(s) errored")
    return {"cases": len(cases), "scored": int(scores.groupby(CASE)[VALUE].count().gt(0).sum()),
            "passed_cases": int(cases[PASSED].fillna(False).astype(bool).sum()), "errors": errors,
            "metrics": metrics, "thresholds": floors, "passed": not failures, "failures": failures,
            "skipped": None}


def _summarise(suite: Suite, target: str, outcomes: list[Outcome], ctx: RunContext,
               floors: dict[str, float]) -> tuple[dict[str, Any], list[dict[str, Any]], pd.DataFrame]:
    scored = suite.score(outcomes, ctx)
    by_name = {o.name: o for o in outcomes}
    rows = []
    for row in scored.case_rows:
        outcome = by_name[row["case"]]
        rows.append({SUITE: suite.name, TARGET: target, **row, ERROR: outcome.error,
                     "seconds": round(outcome.seconds, 4)})
    summary = suite_summary(suite, scored.scores, pd.DataFrame(rows), floors)
    return summary, rows, scored.scores.assign(**{SUITE: suite.name, TARGET: target})


def _skipped(reason: str, floors: dict[str, float]) -> dict[str, Any]:
    return {"cases": 0, "scored": 0, "passed_cases": 0, "errors": 0, "metrics": {},
            "thresholds": floors, "passed": None, "failures": [], "skipped": reason}


def overall_passed(suites: dict[str, dict[str, dict[str, Any]]]) -> bool:
    """A run passes when every non-skipped suite passes for every gating target.

    Controls (``random``, ``bm25``) calibrate a report; they gate only a run that has no other target.
    """
    targets = {t for per in suites.values() for t in per}
    gating = targets - CONTROL_TARGETS or targets
    verdicts = [per[t]["passed"] for per in suites.values() for t in gating
                if t in per and per[t]["skipped"] is None]
    return all(verdicts)


def run(corpus: Corpus, options: RunOptions,
        on_case: Callable[[], None] | None = None) -> Run:
    """Run the suites and targets in ``options`` over ``corpus`` and write the run directory.

    Each finished case goes to the run's journal first; with ``options.resume`` the journal's
    outcomes are reused and only the missing cases run. The journal is removed once the run
    directory is written, and kept (for ``--resume``) when anything interrupts the run.
    """
    suites = _suites(corpus, options)
    header = _resume_header(corpus, options) if options.resume else None
    targets = _resolve_targets(options)
    try:
        manifest = header or build_manifest(corpus, targets, options, datetime.now(timezone.utc))
        plan = [(s, name, t, _select_cases(cases, options.shard))
                for s in suites for name, t, cases in s.plan(corpus, targets)]
        journal = Journal.reopen(options.resume, manifest["run_id"]) if options.resume else \
            Journal.create(options.out_dir, manifest)
        try:
            if options.on_journal:
                options.on_journal(journal)
            session = _Session(RunContext(corpus=corpus, timeout=options.timeout, seed=options.seed),
                               options, journal, reusable(journal.path) if options.resume else {}, on_case)
            manifest = _note_resume(manifest, plan, session)
            summary, case_rows, scores = _run_plan(plan, corpus, session)
        finally:
            journal.close()
    finally:
        for target in targets:
            close_target(target)
    path = write_run(journal.path.parent, journal.run_id, manifest, summary, case_rows, scores)
    journal.remove()
    return load_run(path)


def _suites(corpus: Corpus, options: RunOptions) -> list[Suite]:
    """The suites asked for, else every suite the corpus has cases for."""
    names = options.suites or [n for n in suite_names() if corpus.data.get(suite_section(n))]
    if not names:
        raise SuiteError(f"{corpus.path}: no suite has cases in this corpus")
    return [get_suite(n) for n in names]


def _resolve_targets(options: RunOptions) -> list[Any]:
    """The target objects of ``options.targets``; two with one name would mix their rows."""
    targets = [resolve_target(spec, options.seed, options.timeout) for spec in options.targets]
    names = [t.name for t in targets]
    if len(set(names)) != len(names):
        for target in targets:
            close_target(target)
        raise SuiteError(f"two targets share a name ({', '.join(names)}): give each engine its own")
    return targets


@dataclass
class _Session:
    """What every (suite, target) pair of one run shares while its cases run."""

    ctx: RunContext
    options: RunOptions
    journal: Journal
    prior: dict[Key, dict[str, Any]]  # journal records a resume may reuse
    on_case: Callable[[], None] | None = None
    bar: Any = None  # the tqdm bar, once open


Plan = list[tuple[Suite, str, Any, list[dict[str, Any]]]]


def _run_plan(plan: Plan, corpus: Corpus, session: _Session
              ) -> tuple[dict[str, Any], list[dict[str, Any]], pd.DataFrame]:
    """Run (or reuse) every planned case and score each (suite, target): the summary, the case
    rows and the long score frame of the run."""
    summaries: dict[str, dict[str, Any]] = {}
    case_rows: list[dict[str, Any]] = []
    score_frames: list[pd.DataFrame] = []
    total = sum(len(_missing(session, s, name, cases)) for s, name, t, cases in plan if _capable(s, t))
    with tqdm(total=total, desc="cases", unit="case", disable=not session.options.progress or None,
              dynamic_ncols=True) as session.bar:
        for suite, name, target, cases in plan:
            floors = corpus.thresholds.get(suite.name, {})
            per_suite = summaries.setdefault(suite.name, {})
            if not _capable(suite, target):
                per_suite[name] = _skipped(f"target lacks capability {suite.capability!r}", floors)
                continue
            if not cases:
                per_suite[name] = _skipped("no cases in this corpus (or shard)", floors)
                continue
            session.bar.set_postfix_str(f"{suite.name} / {name}")
            outcomes = _run_cases(session, suite, name, target, cases)
            per_suite[name], rows, scores = _summarise(suite, name, outcomes, session.ctx, floors)
            case_rows += rows
            score_frames.append(scores)
    scores = pd.concat(score_frames, ignore_index=True) if score_frames else pd.DataFrame(
        columns=[SUITE, TARGET, CASE, METRIC, VALUE])
    return {"run_dir": None, "passed": overall_passed(summaries), "suites": summaries}, case_rows, scores


def _capable(suite: Suite, target: Any) -> bool:
    return suite.capability is None or suite.capability in capabilities(target)


def _key(suite: Suite, target_name: str, case: dict[str, Any]) -> Key:
    """How a journal record is matched to a case: same suite, target, name and definition."""
    return suite.name, target_name, str(case.get("name")), case_hash(case)


def _missing(session: _Session, suite: Suite, name: str, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cases of one (suite, target) the journal has no outcome for."""
    if not session.prior:  # a new run: every case, and no case hashed to look it up
        return cases
    return [case for case in cases if _key(suite, name, case) not in session.prior]


def _note_resume(manifest: dict[str, Any], plan: Plan, session: _Session) -> dict[str, Any]:
    """On a resume, tell the user how many outcomes are reused and record it in the manifest."""
    if not session.options.resume:
        return manifest
    live = [(s, name, cases) for s, name, t, cases in plan if _capable(s, t)]
    todo = sum(len(_missing(session, s, name, cases)) for s, name, cases in live)
    reused = sum(len(cases) for _, _, cases in live) - todo
    if session.options.progress:
        tqdm.write(f"resuming {session.journal.run_id}: {reused} case(s) reused from {session.journal.path}, "
                   f"{todo} to run", file=sys.stderr)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    return dict(manifest, resumed={"at": now, "reused_cases": reused})


def _run_cases(session: _Session, suite: Suite, name: str, target: Any,
               cases: list[dict[str, Any]]) -> list[Outcome]:
    """Every case's outcome in corpus order: from the journal when it has the case, else run now."""
    if not session.prior:
        return _run_fresh(session, suite, name, target, cases)
    keys = [_key(suite, name, case) for case in cases]
    fresh = iter(_run_fresh(session, suite, name, target, [c for c, k in zip(cases, keys) if k not in session.prior]))
    return [as_outcome(session.prior[k], c) if k in session.prior else next(fresh) for c, k in zip(cases, keys)]


def _run_fresh(session: _Session, suite: Suite, name: str, target: Any,
               cases: list[dict[str, Any]]) -> list[Outcome]:
    """Run ``cases`` (in threads with ``--jobs``), journaling each as it finishes. Under
    ``--strict`` an errored case is not journaled: it stops the run, and a resume runs it again."""
    options = session.options

    def one(case: dict[str, Any]) -> Outcome:
        outcome = _run_one(suite, target, case, session.ctx)
        if not (options.strict and outcome.error):
            outcome = session.journal.append(suite.name, name, outcome)
        session.bar.update(1)
        if session.on_case:
            session.on_case()
        return outcome

    if options.jobs > 1:
        with ThreadPoolExecutor(max_workers=options.jobs) as pool:
            try:
                outcomes = list(pool.map(one, cases))
            except BaseException:  # Ctrl-C: let the cases in flight finish, start no more
                pool.shutdown(wait=True, cancel_futures=True)
                raise
    else:
        outcomes = []
        for case in cases:
            outcomes.append(one(case))
            if options.strict and outcomes[-1].error:
                break
    failed = next((o for o in outcomes if o.error), None)
    if options.strict and failed is not None:
        raise SuiteError(f"{suite.name}[{failed.name}] on {name}: {failed.error} (--strict)")
    return outcomes


def resume_settings(manifest: dict[str, Any]) -> dict[str, Any]:
    """The ``RunOptions`` fields named in RESUME_KEYS, as the run of ``manifest`` had them."""
    options = manifest.get("options", {})
    shard = options.get("shard")
    return {"suites": options.get("suites"), "targets": [t["spec"] for t in manifest.get("targets", [])],
            "seed": manifest.get("seed", 0), "shard": tuple(shard) if shard else None,
            "timeout": options.get("timeout", 60.0), "strict": bool(options.get("strict"))}


def check_agrees(manifest: dict[str, Any], given: dict[str, Any]) -> None:
    """Raise a SuiteError naming every option in ``given`` (RESUME_KEYS only) whose value differs
    from the journaled run's: resuming must reproduce that run, not mix two runs in one."""
    settings = resume_settings(manifest)

    def show(value: Any) -> str:
        if value is None:
            return "the default"
        if isinstance(value, tuple):
            return "/".join(map(str, value))
        return ",".join(map(str, value)) if isinstance(value, list) else str(value)

    wrong = [f"{_FLAGS.get(key, '--' + key)} {show(given[key])} (the run has {show(settings[key])})"
             for key in RESUME_KEYS if key in given and given[key] != settings[key]]
    if wrong:
        raise SuiteError(f"cannot resume {manifest.get('run_id')}: {'; '.join(wrong)}; "
                         "resume takes these from the journal")


_FLAGS = {"suites": "--suite", "targets": "--target"}


def _resume_header(corpus: Corpus, options: RunOptions) -> dict[str, Any]:
    """The manifest an interrupted run began with, once it is checked that resuming it with
    ``corpus`` and ``options`` reproduces that run (same corpus bytes, same deciding options)."""
    journal = Path(options.resume or "")
    manifest = read_journal_header(journal)["manifest"]
    run_id = str(manifest.get("run_id"))
    refuse_complete(journal.parent / run_id)
    old = str(manifest.get("corpus", {}).get("sha256"))
    if old != corpus.sha256:
        raise CorpusError(f"{corpus.path}: changed since run {run_id} started (SHA-256 {old[:12]} -> "
                          f"{corpus.sha256[:12]}); its outcomes cannot be reused, start a new run")
    check_agrees(manifest, {key: getattr(options, key) for key in RESUME_KEYS})
    return manifest


def run_eval(corpus_path: Path | str | None = None, suites: list[str] | None = None,
             targets: list[str] | None = None, out_dir: Path | str = DEFAULT_RUNS_DIR,
             baseline: str | None = None, resume: Path | str | None = None, **options: Any) -> Run:
    """Load a corpus, run it, and (with ``baseline``) add the baseline comparison to the summary.

    The one call behind ``workbench run``; keyword options are those of ``RunOptions``. The corpus
    defaults to ``corpus/corpus.json``. ``resume`` (a run id under ``out_dir``, or a journal
    path) finishes an interrupted run: suites, targets, seed, shard, timeout, strictness and
    the corpus come from its journal, and any of them given here must agree with it.
    """
    from ..corpus import load_corpus
    if resume is not None:
        corpus_path, run_options = _resume_options(resume, corpus_path, suites, targets, out_dir, options)
    else:
        run_options = RunOptions(suites=suites, targets=targets or ["builtin"], out_dir=Path(out_dir), **options)
    result = run(load_corpus(corpus_path or "corpus/corpus.json"), run_options)
    if baseline:
        from ..store.baselines import baseline_section
        from ..store.files import write_json_atomic
        result.summary["baseline"] = baseline_section(result, baseline)
        write_json_atomic(result.path / "summary.json", result.summary)
    return result


def _resume_options(resume: Path | str, corpus_path: Path | str | None, suites: list[str] | None,
                    targets: list[str] | None, out_dir: Path | str, options: dict[str, Any]
                    ) -> tuple[Path | str, RunOptions]:
    """The corpus and RunOptions that finish the run journaled at ``resume``; a given option
    that contradicts the journal is an error."""
    journal = find_journal(resume, out_dir)
    manifest = read_journal_header(journal)["manifest"]
    check_agrees(manifest, {key: value for key, value in {**options, "suites": suites, "targets": targets}.items()
                            if key in RESUME_KEYS and value is not None})
    rest = {key: value for key, value in options.items() if key not in RESUME_KEYS}
    return (corpus_path or manifest["corpus"]["path"],
            RunOptions(**resume_settings(manifest), **rest, out_dir=journal.parent, resume=journal))
