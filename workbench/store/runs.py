"""Write and read run directories (``reports/runs/<run-id>/``), atomically.

A run directory holds ``manifest.json``, ``summary.json``, ``cases.jsonl`` and
``scores.parquet`` (see DESIGN.md, "A run"). It is written into a temporary
sibling directory and renamed into place, so a reader never sees half a run.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..columns import CASE, ERROR, METRIC, PASSED, SCORE_COLUMNS, SUITE, TARGET, VALUE
from ..errors import StoreError
from ..files import dumps, write_json_atomic, write_text_atomic, writing
from ..paths import DEFAULT_RUNS_DIR, Locations, journal_path
from .headers import read_json, read_jsonl
from .shapes import check_case_rows, check_manifest, check_summary

if TYPE_CHECKING:
    from datetime import datetime

    import pandas as pd


class RunLike(Protocol):
    """What compare, baselines and the report views read from a run or a recorded baseline."""

    path: Path
    cases: pd.DataFrame
    scores: pd.DataFrame

    @property
    def run_id(self) -> str: ...

    @property
    def targets(self) -> list[str]: ...

    def select(self, target: str) -> RunLike: ...


class Run:
    """A finished run: its manifest, summary, one row per case, and the long score frame.

    A frame given as None is read from the run directory when first used (``written_run``: a
    run just written needs its case rows only if the caller looks at them)."""

    def __init__(
        self,
        path: Path,
        manifest: dict[str, Any],
        summary: dict[str, Any],
        cases: pd.DataFrame | None,
        scores: pd.DataFrame | None,
    ) -> None:
        self.path, self.manifest, self.summary = path, manifest, summary
        self._cases, self._scores = cases, scores

    @property
    def cases(self) -> pd.DataFrame:
        """One row per case (``suite, target, case, passed, error`` and the suite's own columns)."""
        if self._cases is None:
            self._cases = _read_cases(self.path)
        return self._cases

    @cases.setter
    def cases(self, frame: pd.DataFrame) -> None:
        self._cases = frame

    @property
    def scores(self) -> pd.DataFrame:
        """The long score frame: ``suite, target, case, metric, value``."""
        if self._scores is None:
            self._scores = _read_scores(self.path)
        return self._scores

    @scores.setter
    def scores(self, frame: pd.DataFrame) -> None:
        self._scores = frame

    @property
    def run_id(self) -> str:
        return str(self.manifest.get("run_id", self.path.name))

    @property
    def targets(self) -> list[str]:
        """Target names in the order they were run."""
        return [t["name"] for t in self.manifest.get("targets", [])] or sorted(self.scores[TARGET].unique())

    @property
    def suites(self) -> list[str]:
        """Suite names present in the summary."""
        return list(self.summary.get("suites", {}))

    def select(self, target: str | None = None, suite: str | None = None) -> Run:
        """The same run restricted to one target (for ``RUN#TARGET`` comparisons), one suite, or both:
        ``run.select(suite="retrieval", target="bm25")``. An unknown name is a StoreError listing the known."""
        run = self
        if target is not None:
            if target not in run.targets:
                raise StoreError(f"{run.path}: no target {target!r} in this run (has {', '.join(run.targets)})")
            suites = {s: {target: per[target]} for s, per in run.summary.get("suites", {}).items() if target in per}
            manifest = dict(run.manifest, targets=[t for t in run.manifest.get("targets", []) if t["name"] == target])
            run = Run(
                run.path,
                manifest,
                dict(run.summary, suites=suites),
                run.cases[run.cases[TARGET] == target].reset_index(drop=True),
                run.scores[run.scores[TARGET] == target].reset_index(drop=True),
            )
        if suite is not None:
            if suite not in run.suites:
                raise StoreError(f"{run.path}: no suite {suite!r} in this run (has {', '.join(run.suites)})")
            summary = dict(run.summary, suites={suite: run.summary["suites"][suite]})
            run = Run(
                run.path,
                run.manifest,
                summary,
                run.cases[run.cases[SUITE] == suite].reset_index(drop=True),
                run.scores[run.scores[SUITE] == suite].reset_index(drop=True),
            )
        return run

    def __repr__(self) -> str:
        """``Run('20261201T101500Z-builtin+bm25': suites retrieval, risk; targets builtin, bm25; 214 cases,
        820 scores; passed)``: what a notebook shows instead of five frames."""

        def listed(names: list[str]) -> str:
            return ", ".join(names[:6]) + (f", +{len(names) - 6} more" if len(names) > 6 else "") or "none"

        passed = self.summary.get("passed")
        verdict = "passed" if passed else "failed" if passed is False else "no verdict"
        return (
            f"Run({self.run_id!r}: suites {listed(self.suites)}; targets {listed(self.targets)}; "
            f"{len(self.cases)} cases, {len(self.scores)} scores; {verdict})"
        )


def scores_frame(rows: pd.DataFrame | list[dict[str, Any]]) -> pd.DataFrame:
    """Normalise a score frame to the stable column order and dtypes."""
    import pandas as pd

    frame = pd.DataFrame(rows, columns=SCORE_COLUMNS) if not isinstance(rows, pd.DataFrame) else rows
    frame = frame.reindex(columns=SCORE_COLUMNS)
    for column in (SUITE, TARGET, CASE, METRIC):
        frame[column] = frame[column].astype(str)
    frame[VALUE] = pd.to_numeric(frame[VALUE], errors="coerce").astype("float64")
    return frame.reset_index(drop=True)


def has_repeats(cases: pd.DataFrame) -> bool:
    """Whether a run's case rows were folded from repeats (``--repeat`` above 1)."""
    import pandas as pd

    return "repeats" in cases and bool(pd.to_numeric(cases["repeats"], errors="coerce").fillna(1).gt(1).any())


RUN_ID_TIME = "%Y%m%dT%H%M%SZ"  # a run id's leading UTC time: ids sort by when the run started


def stamped_run_id(started: datetime, label: str) -> str:
    """``20261129T211500Z-<label>``: the one spelling of a run id (run, merge and imported runs
    alike), sortable by time and readable at a glance."""
    return f"{started.strftime(RUN_ID_TIME)}-{label}"


def free_run_id(out_dir: Path | str, base: str) -> str:
    """``base``, or ``base-2``, ``base-3``... : the first id that neither a run directory nor the
    journal of a run in progress under ``out_dir`` has."""
    counter = 1
    while True:
        run_id = base if counter == 1 else f"{base}-{counter}"
        if not (Path(out_dir) / run_id).exists() and not journal_path(out_dir, run_id).exists():
            return run_id
        counter += 1


def write_run(
    out_dir: Path | str,
    run_id: str,
    manifest: dict[str, Any],
    summary: dict[str, Any],
    case_rows: list[dict[str, Any]],
    scores: pd.DataFrame,
) -> Path:
    """Write the run directory ``out_dir/run_id`` (an id reserved beforehand) atomically, once."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    final = out_dir / run_id
    if final.exists():
        raise StoreError(f"{final}: a run with this id exists already (ids are reserved once, before a run)")
    summary = dict(summary, run_dir=str(final))
    manifest = dict(manifest, run_id=final.name)
    with writing(final):
        tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=out_dir))
        try:
            write_json_atomic(tmp / "manifest.json", manifest)
            write_json_atomic(tmp / "summary.json", summary)
            lines = "".join(dumps(row, sort_keys=False) + "\n" for row in case_rows)
            write_text_atomic(tmp / "cases.jsonl", lines)
            scores_frame(scores).to_parquet(tmp / "scores.parquet", index=False)
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return final


def in_memory_run(
    path: Path, manifest: dict[str, Any], summary: dict[str, Any], case_rows: list[dict[str, Any]], scores: pd.DataFrame
) -> Run:
    """The Run that ``write_run`` with these arguments would load back, without writing it."""
    run = written_run(path, manifest, summary)
    run.cases = _cases_frame([json.loads(dumps(row, sort_keys=False)) for row in case_rows])
    run.scores = scores_frame(scores)
    return run


def _cases_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame(rows)
    for column in (SUITE, TARGET, CASE, PASSED, ERROR):
        if column not in frame:
            frame[column] = pd.Series(dtype=object)
    return frame


def load_run(path: Path | str, runs_dir: Path | str = DEFAULT_RUNS_DIR) -> Run:
    """Read a run written by ``workbench run``: its directory, or its run id under ``runs_dir``
    (``wb.load_run("20261129T211500Z-builtin")``), as ``compare`` and ``report`` resolve it."""
    found = Locations.of(runs=runs_dir).run_dir(path)
    if found is None:
        raise StoreError(f"{path}: no such run directory, nor a run id in {runs_dir}")
    path = found
    scores = _read_scores(path)
    return Run(
        path=path,
        manifest=check_manifest(read_json(path / "manifest.json"), path / "manifest.json"),
        summary=check_summary(read_json(path / "summary.json"), path / "summary.json"),
        cases=_read_cases(path),
        scores=scores,
    )


def written_run(path: Path, manifest: dict[str, Any], summary: dict[str, Any]) -> Run:
    """The run ``write_run`` has just written to ``path``, from the manifest and summary it was
    given (as JSON reads them back); its frames are read from the directory when first used."""
    return Run(
        path=path,
        manifest=json.loads(dumps(dict(manifest, run_id=path.name))),
        summary=json.loads(dumps(dict(summary, run_dir=str(path)))),
        cases=None,
        scores=None,
    )


def _read_scores(path: Path) -> pd.DataFrame:
    import pandas as pd

    try:
        scores = pd.read_parquet(path / "scores.parquet")
    except FileNotFoundError:
        raise StoreError(f"{path / 'scores.parquet'}: missing (not a complete run directory)") from None
    except Exception as exc:  # pyarrow raises many types for a corrupt file
        raise StoreError(f"{path / 'scores.parquet'}: unreadable ({exc})") from None
    return scores_frame(scores)


def _read_cases(path: Path) -> pd.DataFrame:
    return _cases_frame(check_case_rows(read_jsonl(path / "cases.jsonl"), path / "cases.jsonl"))


def rewrite_run(
    final: Path,
    manifest: dict[str, Any],
    summary: dict[str, Any],
    case_rows: list[dict[str, Any]],
    scores: pd.DataFrame,
) -> Path:
    """Write a run over the existing run directory ``final`` (a resumed run over the one its
    ``--deadline`` cut short), restoring the old directory if the write fails."""
    aside = final.with_name(f".{final.name}.superseded")
    shutil.rmtree(aside, ignore_errors=True)
    os.rename(final, aside)
    try:
        path = write_run(final.parent, final.name, manifest, summary, case_rows, scores)
    except BaseException:
        os.rename(aside, final)
        raise
    shutil.rmtree(aside, ignore_errors=True)
    return path
