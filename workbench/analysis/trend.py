"""Every run of a corpus over time: one line per (target, suite, metric), grouped by corpus
version, with the baselines recorded on it, and each significant step between consecutive runs.

A point is one run's mean of a metric over its cases, with a percentile-bootstrap 95% interval.
Consecutive runs of one target are compared case by case on the cases both have (paired t-test,
as ``compare``): a step with p below ``alpha`` is flagged ``REGRESSED`` or ``IMPROVED`` by the
metric's direction. A run on another corpus version (its manifest's SHA-256) than the one before
starts a new version; every recording of each baseline (``<corpus dir>/baselines/``, and the
earlier recordings git history holds, ``trend_history``) is marked with when it was recorded, the
commit its run was made at and the commit that stored it. ``workbench trend`` prints
``Trend.to_text``, ``--format markdown`` and ``--format json`` its other forms, and ``--out``
renders the trend page from ``to_dict``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..columns import CASE, METRIC, SUITE, TARGET, VALUE
from ..errors import StoreError
from ..paths import DEFAULT_CORPUS, Locations, project_path
from . import stats
from .gates import IMPROVED, REGRESSED
from .registry import higher_is_better

if TYPE_CHECKING:
    import pandas as pd

    from ..store.runs import Run

ALPHA = 0.05
RUN_ID, CREATED, VERSION, SHA = "run_id", "created", "version", "corpus_sha256"
POINT_COLUMNS = [CREATED, RUN_ID, VERSION, SHA, TARGET, SUITE, METRIC, VALUE, "ci_low", "ci_high", "n"]
STEP_COLUMNS = ["step", "step_delta", "step_p", "step_n"]
COMMITTED, CURRENT = "committed_in", "on_disk"  # the commit whose tree holds a recording; the file now
BASELINE_COLUMNS = ["recorded", "name", "git_commit", COMMITTED, CURRENT, RUN_ID, SHA, TARGET, SUITE, METRIC, VALUE]


@dataclass
class Trend:
    """The points (``POINT_COLUMNS`` + ``STEP_COLUMNS``, one row per run and line), the baselines
    (``BASELINE_COLUMNS``) and the corpus versions (``version``, ``sha256``, ``first_run``)."""

    corpus: str
    points: pd.DataFrame
    baselines: pd.DataFrame
    versions: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The ``--format json`` object and the trend page's input; NaN becomes null."""
        import json

        from ..files import dumps

        body = {
            "corpus": self.corpus,
            "runs": int(self.points[RUN_ID].nunique()),
            "versions": self.versions,
            "notes": self.notes,
            "points": self.points.to_dict("records"),
            "baselines": self.baselines.to_dict("records"),
        }
        return dict(json.loads(dumps(body)))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trend:
        """A trend read back from ``to_dict`` (the page's JSON)."""
        import pandas as pd

        points = pd.DataFrame(data.get("points") or [], columns=POINT_COLUMNS + STEP_COLUMNS)
        baselines = pd.DataFrame(data.get("baselines") or [], columns=BASELINE_COLUMNS)
        return cls(
            str(data.get("corpus")), points, baselines, list(data.get("versions") or []), data.get("notes") or []
        )

    def table(self) -> pd.DataFrame:
        """Points and baseline marks in one frame, by line then time: what the text and markdown show."""
        from .trend_text import trend_rows

        return trend_rows(self)

    def to_text(self) -> str:
        from .trend_text import trend_text

        return trend_text(self)

    def to_markdown(self) -> str:
        from .trend_text import trend_markdown

        return trend_markdown(self)


def trend(
    corpus: Path | str | None = None,
    runs_dir: Path | str | None = None,
    since: str | None = None,
    targets: list[str] | None = None,
    metrics: list[str] | None = None,
    seed: int = 0,
) -> Trend:
    """The trend of ``corpus`` (default ``corpus/corpus.json``) over the runs in ``runs_dir``
    (default ``reports/runs``) made on it, from ``since`` (an ISO date or time) on, for the
    ``targets`` and ``metrics`` named (default: all); baselines from ``<corpus dir>/baselines/``."""
    import pandas as pd

    where = Locations.of(corpus, runs_dir)
    path = project_path(corpus or DEFAULT_CORPUS).resolve()
    runs = runs_of(path, where.runs, since)
    if not runs:
        after = f" since {since}" if since else ""
        raise StoreError(f"{where.runs}: no run of {path}{after} (run `workbench run --corpus {path}` first)")
    values = pd.concat([_case_values(run, targets, metrics) for run in runs], ignore_index=True)
    versions = _versions(runs)
    points = _points(values, versions, seed)
    baselines, notes = _baselines(where.baselines, targets, metrics)
    notes += [] if not values.empty else ["no values for the targets and metrics asked for"]
    return Trend(str(path), _with_steps(points, values), baselines, versions, notes)


def runs_of(corpus: Path, runs_dir: Path, since: str | None) -> list[Run]:
    """The complete runs under ``runs_dir`` made on ``corpus`` (its path, resolved from the project
    root when relative), created at or after ``since``, oldest first."""
    from ..store.headers import is_complete_run, read_json
    from ..store.runs import load_run

    found = []
    for run_dir in sorted(p for p in Path(runs_dir).glob("*") if not p.name.startswith(".")):
        if not run_dir.is_dir() or not is_complete_run(run_dir):
            continue
        manifest = read_json(run_dir / "manifest.json")
        made_on = (manifest.get("corpus") or {}).get("path")
        if not made_on or project_path(made_on).resolve() != corpus:
            continue
        if since and str(manifest.get(CREATED, "")) < since:
            continue
        found.append(load_run(run_dir))
    return sorted(found, key=lambda run: (str(run.manifest.get(CREATED, "")), run.run_id))


def _case_values(run: Run, targets: list[str] | None, metrics: list[str] | None) -> pd.DataFrame:
    """One run's per-case values of the lines asked for, with its id, time and corpus version."""
    scores = run.scores[[SUITE, TARGET, CASE, METRIC, VALUE]]
    if targets:
        scores = scores[scores[TARGET].isin(targets)]
    if metrics:
        wanted = {m.lower() for m in metrics}
        scores = scores[scores[METRIC].str.lower().isin(wanted)]
    corpus = run.manifest.get("corpus") or {}
    return scores.assign(**{RUN_ID: run.run_id, CREATED: run.manifest.get(CREATED), SHA: corpus.get("sha256")})


def _versions(runs: list[Run]) -> list[dict[str, Any]]:
    """Each corpus version in the order it first appears: number, SHA-256 and first run."""
    seen: dict[str, dict[str, Any]] = {}
    for run in runs:
        sha = str((run.manifest.get("corpus") or {}).get("sha256"))
        if sha not in seen:
            seen[sha] = {"version": len(seen) + 1, "sha256": sha, "first_run": run.run_id}
    return list(seen.values())


def _points(values: pd.DataFrame, versions: list[dict[str, Any]], seed: int) -> pd.DataFrame:
    """One row per run and line: the mean over the cases with a value, and its 95% interval."""
    import pandas as pd

    number = {v["sha256"]: v["version"] for v in versions}
    rows = []
    keys = [CREATED, RUN_ID, SHA, TARGET, SUITE, METRIC]
    for key, group in values.dropna(subset=[VALUE]).groupby(keys, sort=False):
        data = group[VALUE].to_numpy(float)
        low, high = stats.bootstrap_ci(data, seed=seed)
        record = dict(zip(keys, key, strict=True), ci_low=low, ci_high=high, n=int(data.size))
        rows.append({**record, VERSION: number.get(str(record[SHA])), VALUE: float(data.mean())})
    return pd.DataFrame(rows, columns=POINT_COLUMNS)


def _with_steps(points: pd.DataFrame, values: pd.DataFrame) -> pd.DataFrame:
    """Each point with the step from the previous run of its line: the paired t-test on the cases
    both runs have, flagged ``REGRESSED``/``IMPROVED`` when p < ``ALPHA``."""
    import pandas as pd

    points = points.sort_values([TARGET, SUITE, METRIC, CREATED, RUN_ID], kind="stable").reset_index(drop=True)
    by_run = {key: group for key, group in values.groupby([RUN_ID, TARGET, SUITE, METRIC], sort=False)}
    steps: list[tuple[Any, ...]] = []
    previous: tuple[Any, ...] | None = None
    for row in points.itertuples(index=False):
        line = (row.target, row.suite, row.metric)
        here = by_run.get((row.run_id, *line))
        before = by_run.get((previous[0], *line)) if previous and previous[1:] == line else None
        steps.append(_step(before, here, row.metric))
        previous = (row.run_id, *line)
    return pd.concat([points, pd.DataFrame(steps, columns=STEP_COLUMNS, index=points.index)], axis=1)


def _step(before: pd.DataFrame | None, here: pd.DataFrame | None, metric: str) -> tuple[Any, ...]:
    """(flag, mean delta, p, pairs) between two runs of one line on their shared cases."""
    if before is None or here is None:
        return None, None, None, 0
    paired = before[[CASE, VALUE]].merge(here[[CASE, VALUE]], on=CASE, suffixes=("_a", "_b")).dropna()
    diffs = (paired[f"{VALUE}_b"] - paired[f"{VALUE}_a"]).to_numpy(float)
    if diffs.size < 2:
        return None, None, None, int(diffs.size)
    delta, p = float(diffs.mean()), stats.paired_t(diffs).p
    gain = delta if higher_is_better(metric) else -delta
    flag = (IMPROVED if gain > 0 else REGRESSED) if p == p and p < ALPHA and gain != 0 else None
    return flag, delta, (None if p != p else float(p)), int(diffs.size)


def _baselines(directory: Path, targets: list[str] | None, metrics: list[str] | None) -> tuple[pd.DataFrame, list[str]]:
    """Every recording of each baseline in ``directory``, on disk and in git history: one row per
    (recording, suite, metric), with the commit its run was made at and the commit that stored it;
    and the notes on what could not be read."""
    import pandas as pd

    from .trend_history import recordings

    found, notes = recordings(Path(directory))
    rows = []
    wanted = {m.lower() for m in metrics or []}
    for recording in found:
        data = recording.data
        target = data["target"]["name"]
        if targets and target not in targets:
            continue
        corpus = data.get("corpus") or {}
        sha = corpus.get("run_sha256") or corpus.get("sha256")  # the version its numbers were measured on
        head = dict(recorded=data.get("recorded"), name=data["name"], git_commit=data.get("git_commit"))
        head.update({COMMITTED: recording.commit, CURRENT: recording.on_disk})
        head.update({RUN_ID: data.get("run_id"), SHA: sha, TARGET: target})
        for suite, values in (data.get("metrics") or {}).items():
            for metric, value in values.items():
                if value is not None and (not wanted or metric.lower() in wanted):
                    rows.append({**head, SUITE: suite, METRIC: metric, VALUE: float(value)})
    return pd.DataFrame(rows, columns=BASELINE_COLUMNS), notes
