"""A user's script against the public API, type-checked by ``test_public_api.py`` (never run).

Every call here is correct: mypy must pass it. ``client_wrong.py`` holds the same calls with wrong
types, which mypy must report, so a public name typed ``Any`` fails the test.
"""

from __future__ import annotations

from pathlib import Path

import workbench as wb


def headline(run_id: str, baseline_id: str) -> str:
    run: wb.Run = wb.load_run(run_id)
    other = wb.load_run(Path("reports/runs") / baseline_id, runs_dir="reports/runs")
    result: wb.Comparison = wb.compare(other, run, gate="none", seed=1)
    return f"{run.run_id}: {result.verdict} ({result.reason})"


def rerun(corpus: Path) -> wb.Run:
    options = wb.RunOptions(timeout=30.0, jobs=2, seed=7, suites=["retrieval"])
    problems = wb.validate_corpus(corpus)
    if problems:
        raise wb.WorkbenchError(str(problems[0]))
    _ = options.timeout + 1.0
    return wb.run_eval(corpus)


def table(run: wb.Run) -> object:
    return wb.views.verdicts(run)
