"""Re-record a committed baseline in one step: a fresh run of the corpus with the baseline's
target, recorded over the old file with its floors and EVALS.md's table (``make baseline``).

The committed ``corpus/baselines/builtin.json`` is checked against a fresh run by a test
(``tests/test_committed_baseline.py``, ``stale_baseline``); when an intended change moves the
numbers, this is the one command that brings the baseline, the floors and the table back in line.
"""

from __future__ import annotations

from pathlib import Path

from ..paths import DEFAULT_CORPUS
from ..store.baselines import record_baseline
from ..store.floors import DEFAULT_SLACK
from .runner import run_eval

RERECORD_COMMAND = "make baseline"


def rerecord(
    corpus: Path | str = DEFAULT_CORPUS,
    name: str = "builtin",
    target: str = "builtin",
    runs_dir: Path | str = Path("reports/runs"),
    slack: float = DEFAULT_SLACK,
) -> Path:
    """Run ``corpus`` with ``target`` into ``runs_dir`` and record it as baseline ``name`` (over the
    old one), rewriting the corpus floors and EVALS.md's table; return the baseline's path."""
    run = run_eval(corpus, targets=[target], out_dir=Path(runs_dir), progress=False)
    return record_baseline(run, name, corpus, write_thresholds=True, slack=slack, force=True, target=target)
