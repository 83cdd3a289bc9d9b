"""``workbench calibrate``: do a target's risk flags predict what history did next to a change?

Each non-merge commit that changes a file is a *change*. Its outcomes (``outcomes.py``): reverted,
fixed, and either. Its flags: the target's ``risk_concepts`` on the commit message (mode ``query``)
and on each changed path (mode ``path``), one flag per concept returned (``concept:<label>``), any of
them (``any concept``), and the path predicates (``gate-mode``, ``secret-mode``: the target returned
something for a path in that mode). A change whose window reaches past the newest commit read is
*censored* (its outcome is not yet known) and left out of every rate, with its count shown.

A target may answer ``risk_concepts`` with a mapping ``{label: score in [0, 1]}`` instead of a set;
then each concept's score for a change (its highest over the change's calls) gets a Brier score and
reliability bins against ``either``. Where the target has ``gate``, its verdict on each of the newest
observed changes (``gating.py``: the commit's tree staged against its parent) adds the gate flags,
tabulated over the changes gated.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contract import capabilities
from ..corpus.sources import open_repo
from ..errors import GitError, UsageError
from ..mining.history import Commit, iter_commits
from .gating import DEFAULT_LIMIT, Gated, progress_bar, run_gates
from .outcomes import Found, Window, find_outcomes

if TYPE_CHECKING:
    import pandas as pd

OUTCOMES = ("reverted", "fixed", "either")
MAX_MESSAGE = 2000  # characters of the message asked about (a squash of fifty commits is not a task)


@dataclass
class Calibration:
    """What ``calibrate`` measured: counts, the per-flag table and, when the target scores, Brier and bins."""

    repo: str
    target: str
    window: Window
    commits: int = 0
    changes: int = 0
    observed: int = 0
    target_errors: int = 0
    outcome_counts: dict[str, int] = field(default_factory=dict)
    found: Found = field(default_factory=Found)
    table: Any = None  # pandas frame from stats.flag_table
    brier: Any = None
    reliability: Any = None
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    gated: int | None = None  # changes the gate judged (None: the target has no gate)
    gate_errors: int = 0
    gate_verdicts: dict[str, int] = field(default_factory=dict)

    @property
    def censored(self) -> int:
        return self.changes - self.observed - self.target_errors

    def to_json(self) -> dict[str, Any]:
        """The result as JSON-ready data (withheld figures are null)."""
        return {
            "repo": self.repo,
            "target": self.target,
            "window": {"days": self.window.days, "commits": self.window.commits},
            "commits": self.commits,
            "changes": self.changes,
            "observed": self.observed,
            "censored": self.censored,
            "targetErrors": self.target_errors,
            "outcomes": self.outcome_counts,
            "gated": self.gated,
            "gateErrors": self.gate_errors,
            "gateVerdicts": self.gate_verdicts,
            "fixCommits": self.found.fixes,
            "blameCalls": self.found.blames,
            "minOutcomes": _min_outcomes(),
            "flags": _records(self.table),
            "brier": _records(self.brier) if self.brier is not None else None,
            "reliability": _records(self.reliability) if self.reliability is not None else None,
            "notes": self.notes,
            "seconds": round(self.seconds, 3),
        }


def _min_outcomes() -> int:
    from .stats import MIN_OUTCOMES

    return MIN_OUTCOMES


def _records(frame: pd.DataFrame | None) -> list[dict[str, Any]]:
    if frame is None:
        return []
    rows = frame.to_dict(orient="records")
    return [{k: _plain(v) for k, v in row.items()} for row in rows]


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value


class _Asker:
    """Asks the target once per distinct (mode, text); remembers labels and their scores."""

    def __init__(self, target: Any) -> None:
        self.target = target
        self.seen: dict[tuple[str, str], dict[str, float | None]] = {}
        self.scored = False

    def ask(self, mode: str, text: str) -> dict[str, float | None]:
        key = (mode, text)
        if key not in self.seen:
            self.seen[key] = self._labels(self.target.risk_concepts(mode, text))
        return self.seen[key]

    def _labels(self, answer: Any) -> dict[str, float | None]:
        if isinstance(answer, Mapping):
            labels: dict[str, float | None] = {}
            for label, score in answer.items():
                if not isinstance(label, str) or isinstance(score, bool) or not isinstance(score, (int, float)):
                    raise ValueError("risk_concepts mapping must be label -> number")
                if not 0.0 <= float(score) <= 1.0:
                    raise ValueError(f"risk_concepts score {score!r} for {label!r} is outside [0, 1]")
                labels[label] = float(score)
            self.scored = True
            return labels
        if isinstance(answer, (str, bytes)) or not hasattr(answer, "__iter__"):
            raise ValueError(f"risk_concepts returned {type(answer).__name__}")
        items = list(answer)
        if not all(isinstance(label, str) for label in items):
            raise ValueError("risk_concepts returned a non-string concept")
        return dict.fromkeys(items, None)


def _flags_of(asker: _Asker, commit: Commit) -> dict[str, float]:
    """Flag -> score (1.0 for an unscored label) of one change; raises when the target misbehaves."""
    flags: dict[str, float] = {}

    def add(name: str, score: float | None) -> None:
        flags[name] = max(flags.get(name, 0.0), 1.0 if score is None else score)

    for label, score in asker.ask("query", commit.message[:MAX_MESSAGE]).items():
        add(f"concept:{label}", score)
    for path in dict.fromkeys(commit.paths()):
        for label, score in asker.ask("path", path).items():
            add(f"concept:{label}", score)
        if asker.ask("gate", path):
            add("gate-mode", None)
        if asker.ask("secret", path):
            add("secret-mode", None)
    concepts = [v for k, v in flags.items() if k.startswith("concept:")]
    if concepts:
        flags["any concept"] = max(concepts)
    return flags


def _observed(commits: list[Commit], window: Window) -> list[bool]:
    """Per commit (newest first): whether its whole window lies inside the history read."""
    if window.commits is not None:
        return [i >= window.commits for i in range(len(commits))]
    newest = max((c.time for c in commits), default=0)
    return [newest - c.time >= (window.days or 0) * 86400 for c in commits]


def calibrate(
    repo_path: Path | str,
    target: Any,
    window: Window | None = None,
    max_commits: int | None = None,
    since: int | None = None,
    gate_changes: int = DEFAULT_LIMIT,
    progress: bool = False,
) -> Calibration:
    """Mine ``repo_path``'s history (the newest ``max_commits`` commits, or all; changes from
    ``since``, Unix seconds, on) for each change's outcomes, ask ``target`` for its flags (and its
    gate verdict on the newest ``gate_changes`` observed changes), and tabulate flagged against
    unflagged outcome rates."""
    import pandas as pd

    from .stats import brier_table, flag_table

    started = time.perf_counter()
    window = window or Window()
    has = capabilities(target)
    if "risk_concepts" not in has:
        raise UsageError(f"target {getattr(target, 'name', target)!r} has no risk_concepts capability to calibrate")
    try:
        repo = open_repo(repo_path)
        commits = list(itertools.islice(iter_commits(repo.git_dir), max_commits))
    except GitError as exc:
        message = str(exc)
        raise UsageError(message if str(repo_path) in message else f"{repo_path}: {message}") from None
    result = Calibration(repo.name, str(getattr(target, "name", "target")), window, commits=len(commits))
    order = [(c.sha, c.time, c.message, len(c.parents) > 1) for c in commits]
    result.found = find_outcomes(repo.git_dir, order, window, progress=progress) if commits else Found()
    asker, rows, flag_rows, kept = _Asker(target), [], [], []
    observed = _observed(commits, window)
    changes = [
        (c, seen)
        for c, seen in zip(commits, observed, strict=True)
        if len(c.parents) <= 1 and c.changes and (since is None or c.time >= since)
    ]
    bar = progress_bar(changes, f"flagging {repo.name}", progress)
    for commit, seen in bar:
        result.changes += 1
        if not seen:
            continue
        try:
            flags = _flags_of(asker, commit)
        except Exception:  # an untrusted answer never stops the report: the change is counted and left out
            result.target_errors += 1
            continue
        reverted, fixed = commit.sha in result.found.reverted_by, commit.sha in result.found.fixed_by
        rows.append((reverted, fixed, reverted or fixed))
        flag_rows.append(flags)
        kept.append(commit)
    bar.close()
    result.observed = len(rows)
    outcomes = pd.DataFrame(rows, columns=list(OUTCOMES), dtype=bool)
    scores = pd.DataFrame(flag_rows, dtype=float).fillna(0.0)
    names = sorted(scores.columns, key=lambda n: (not n.startswith("concept:"), n == "any concept", n))
    scores = scores.reindex(columns=names) if names else pd.DataFrame(index=range(len(rows)))
    result.outcome_counts = {k: int(outcomes[k].sum()) for k in OUTCOMES}
    result.table = flag_table(scores > 0, outcomes)
    if "gate" in has:
        gate = _gate_table(result, repo, target, kept, outcomes, gate_changes, progress)
        result.table = pd.concat([result.table, gate], ignore_index=True)
    if asker.scored and names:
        concept = [n for n in names if n.startswith("concept:")]
        result.brier, result.reliability = brier_table(scores[concept], outcomes["either"])
    if result.target_errors:
        result.notes.append(f"{result.target_errors} change(s) left out: the target's risk_concepts failed on them")
    result.seconds = time.perf_counter() - started
    return result


def _gate_table(
    result: Calibration, repo: Any, target: Any, kept: list[Commit], outcomes: pd.DataFrame, limit: int, progress: bool
) -> pd.DataFrame:
    """The gate flags' rows, over the newest ``limit`` observed non-root changes the gate judged."""
    import pandas as pd

    from .stats import flag_table

    picked = [i for i, c in enumerate(kept) if c.parents][:limit]
    gated = run_gates(repo.git_dir, repo.name, target, [kept[i] for i in picked], progress) if picked else Gated()
    rows = [i for i in picked if kept[i].sha in gated.flags]
    result.gated, result.gate_errors, result.gate_verdicts = len(rows), gated.errors, gated.verdicts
    skipped = sum(1 for c in kept if c.parents) - len(picked)
    result.notes.append(
        f"gate: judged {len(rows)} change(s) (newest first, at most {limit}; {skipped} older left out"
        + (f", {gated.errors} gate call(s) failed" if gated.errors else "")
        + "); its flags are tabulated over those changes only"
    )
    flags = pd.DataFrame([gated.flags[kept[i].sha] for i in rows], dtype=float).fillna(0.0)
    if flags.empty:
        return flag_table(pd.DataFrame(index=range(0)), outcomes.iloc[rows])
    flags = flags.reindex(columns=sorted(flags.columns, key=lambda n: (n.startswith("gate check:"), n)))
    return flag_table(flags > 0, outcomes.iloc[rows].reset_index(drop=True))
