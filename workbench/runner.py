"""Run suites x targets over a corpus into a Run directory.

Every case of every (suite, target) pair is run with its error captured, so a
crashing, hanging or garbage-answering engine fails only its cases (``strict``
stops at the first error instead). Scores are then computed per (suite, target)
in one vectorized pass, compared with the corpus floors, and written atomically.
"""
from __future__ import annotations

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

from .columns import CASE, ERROR, METRIC, PASSED, SUITE, TARGET, VALUE
from .corpus import Corpus
from .errors import SuiteError, WorkbenchError
from .manifest import build_manifest
from .store import DEFAULT_RUNS_DIR, Run, load_run, write_run
from .suites import Outcome, RunContext, Suite, get_suite, suite_names, suite_section
from .targets import close_target, resolve_target
from .targets.base import CONTROL_TARGETS, capabilities



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
    """Run the suites and targets in ``options`` over ``corpus`` and write the run directory."""
    names = options.suites or [n for n in suite_names() if corpus.data.get(suite_section(n))]
    suites = [get_suite(n) for n in names]
    if not suites:
        raise SuiteError(f"{corpus.path}: no suite has cases in this corpus")
    targets = [resolve_target(spec, options.seed, options.timeout) for spec in options.targets]
    names = [t.name for t in targets]
    if len(set(names)) != len(names):
        raise SuiteError(f"two targets share a name ({', '.join(names)}): give each engine its own")
    started = datetime.now(timezone.utc)
    ctx = RunContext(corpus=corpus, timeout=options.timeout, seed=options.seed)
    summaries: dict[str, dict[str, Any]] = {}
    case_rows: list[dict[str, Any]] = []
    score_frames: list[pd.DataFrame] = []
    plan = [(s, name, t, _select_cases(cases, options.shard))
            for s in suites for name, t, cases in s.plan(corpus, targets)]
    total = sum(len(cases) for s, _, t, cases in plan if _capable(s, t))
    try:
        with tqdm(total=total, desc="cases", unit="case", disable=not options.progress or None,
                  dynamic_ncols=True) as bar:
            for suite, name, target, cases in plan:
                floors = corpus.thresholds.get(suite.name, {})
                per_suite = summaries.setdefault(suite.name, {})
                if not _capable(suite, target):
                    per_suite[name] = _skipped(f"target lacks capability {suite.capability!r}", floors)
                    continue
                if not cases:
                    per_suite[name] = _skipped("no cases in this corpus (or shard)", floors)
                    continue
                bar.set_postfix_str(f"{suite.name} / {name}")
                outcomes = _run_cases(suite, target, name, cases, ctx, options, bar, on_case)
                summary, rows, scores = _summarise(suite, name, outcomes, ctx, floors)
                per_suite[name] = summary
                case_rows += rows
                score_frames.append(scores)
    finally:
        for target in targets:
            close_target(target)
    summary = {"run_dir": None, "passed": overall_passed(summaries), "suites": summaries}
    manifest = build_manifest(corpus, targets, options, started)
    scores = pd.concat(score_frames, ignore_index=True) if score_frames else pd.DataFrame(
        columns=[SUITE, TARGET, CASE, METRIC, VALUE])
    path = write_run(options.out_dir, manifest["run_id"], manifest, summary, case_rows, scores)
    return load_run(path)


def _capable(suite: Suite, target: Any) -> bool:
    return suite.capability is None or suite.capability in capabilities(target)


def _run_cases(suite: Suite, target: Any, name: str, cases: list[dict[str, Any]], ctx: RunContext,
               options: RunOptions, bar: tqdm, on_case: Callable[[], None] | None) -> list[Outcome]:
    def one(case: dict[str, Any]) -> Outcome:
        outcome = _run_one(suite, target, case, ctx)
        bar.update(1)
        if on_case:
            on_case()
        return outcome

    if options.jobs > 1:
        with ThreadPoolExecutor(max_workers=options.jobs) as pool:
            outcomes = list(pool.map(one, cases))
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


def run_eval(corpus_path: Path | str = "corpus/corpus.json", suites: list[str] | None = None,
             targets: list[str] | None = None, out_dir: Path | str = DEFAULT_RUNS_DIR,
             baseline: str | None = None, **options: Any) -> Run:
    """Load a corpus, run it, and (with ``baseline``) add the baseline comparison to the summary.

    The one call behind ``workbench run``; keyword options are those of ``RunOptions``.
    """
    from .corpus import load_corpus
    corpus = load_corpus(corpus_path)
    result = run(corpus, RunOptions(suites=suites, targets=targets or ["builtin"],
                                    out_dir=Path(out_dir), **options))
    if baseline:
        from .baseline import baseline_section
        from .files import write_json_atomic
        result.summary["baseline"] = baseline_section(result, baseline)
        write_json_atomic(result.path / "summary.json", result.summary)
    return result
