"""How a run runs: the options of ``workbench run`` as one value object."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..paths import DEFAULT_RUNS_DIR


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
    # A baseline (name or file) to compare with; its section is part of the summary as written.
    baseline: str | None = None
    # Seconds the whole run may take: no case starts after it (see ``workbench.run.deadline``).
    deadline: float | None = None
    # Where cases run: ``local`` (this process, ``jobs`` threads) or ``ray[:ADDRESS]`` (run/executors.py).
    executor: str = "local"
    # With ``ray``: while Ray starts and the engines' actors come up, this process runs cases itself.
    warm_start: bool = True
    # Every case runs this many times (run/repeats.py); part of the journal's key.
    repeat: int = 1
    # Reuse unchanged results of known-version targets (run/cache.py).
    cache: bool = False
    # ``controls``: a suite without floors is judged by "beats bm25 (else random) significantly".
    gate: str | None = None


# Options that decide a run's results: a resumed run takes them from its journal.
RESUME_KEYS = ("suites", "targets", "seed", "shard", "timeout", "strict", "repeat")
