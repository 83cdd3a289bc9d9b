"""Shared display helpers: open a run, one-line notes, target roles, tidy per-case frames, tables.

Every public helper in ``workbench.views`` returns something Jupyter displays (a DataFrame, a
Styler, an ``Html`` block or a one-line ``Note``). A suite the run lacks is never an error: the
helper returns a ``Note`` saying so, so a notebook runs top to bottom on any run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from ...columns import CASE, ERROR, METRIC, PASSED, SUITE, TARGET, VALUE
from ...contract import CONTROL_TARGETS
from ...errors import RenderError, SuiteError, TargetError
from ...paths import Locations, project_root
from ...store.headers import latest_run
from ...store.runs import Run, load_run
from .._html import escape_table, escaped
from .._kernel_cache import remember, stamp

CONTROLS = CONTROL_TARGETS
PASS_CSS, FAIL_CSS, MUTED_CSS = "background-color:#e6f4ea", "background-color:#fce8e6", "color:#888"


class Html(str):
    """A string that Jupyter (and nbconvert) shows as HTML."""

    def _repr_html_(self) -> str:
        return str(self)


class Note(Html):
    """One line shown in place of a table or figure: a suite absent, no baseline, no data."""

    text: str

    def __new__(cls, text: str) -> Note:
        note = super().__new__(cls, f'<p class="wb-note"><em>{escaped(text)}</em></p>')
        note.text = text
        return note

    def __repr__(self) -> str:
        return self.text


def open_result(
    source: str | Path | dict[str, Any], needs: tuple[str, ...], kind: str, hint: str = ""
) -> dict[str, Any]:
    """A command's ``--json`` result (a dict, or the file holding one) that has every key of
    ``needs``; a RenderError names the file (or ``kind``) and what it lacks."""
    if isinstance(source, dict):
        data: Any = source
    else:
        try:
            data = json.loads(Path(source).read_text())
        except (OSError, ValueError) as exc:
            raise RenderError(f"{source}: not a {kind} result ({type(exc).__name__}: {exc})") from None
    missing = [key for key in needs if not isinstance(data, dict) or key not in data]
    if missing:
        where = kind if isinstance(source, dict) else str(source)
        raise RenderError(f"{where}: missing {', '.join(missing)}" + (f" {hint}" if hint else ""))
    return dict(data)


def unless_quiet(note: Note, quiet: bool) -> Html:
    """``note``, or nothing when the caller is a second view of a section whose first view shows it."""
    return Html("") if quiet else note


def _run_path(run_dir: str | Path | None) -> Path:
    """The run a notebook names: a directory (also relative to the project root, for a notebook
    opened from ``notebooks/``) or a run id under the project's ``reports/runs``; default the latest."""
    where = Locations.project()
    if not run_dir:
        return latest_run(where.runs)
    beside = next((p for p in (Path(run_dir), project_root() / run_dir) if p.is_dir()), None)
    return beside or where.run_dir(run_dir) or Path(run_dir)


def open_run(run_dir: str | Path | None = None, target: str | None = None, suite: str | None = None) -> Run:
    """The run at ``run_dir``, or the latest under ``reports/runs`` when None.

    ``target`` and ``suite``, when given (a notebook's parameters), must name a target and a suite
    of the run: an unknown one is a ``TargetError``/``SuiteError`` that fails the notebook in one
    line, never an empty page. Cached per process on the files' modification times, so the
    notebooks of one report sharing a kernel read the run once. Treat the frames as read-only.
    """
    path = _run_path(run_dir).resolve()
    if not path.is_dir():
        return load_run(path)  # its StoreError names the path
    run = remember(("run", stamp(path)), lambda: load_run(path))
    check_names(run, target, suite)
    return run


def check_names(run: Run, target: str | None = None, suite: str | None = None) -> None:
    """Raise when ``target`` or ``suite`` (None: not given) is not one of ``run``'s."""
    if target:
        known = targets_of(run)
        if target not in known:
            raise TargetError(f"target {target!r} is not in run {run.path.name} (its targets: {', '.join(known)})")
    if suite:
        suites = list(run.summary.get("suites") or {})
        if suite not in suites:
            raise SuiteError(f"suite {suite!r} is not in run {run.path.name} (its suites: {', '.join(suites)})")


def is_control(target: str) -> bool:
    """Controls (``random``, ``bm25``) calibrate a report; they never gate it."""
    return target in CONTROLS


def label(target: str) -> str:
    """A target's display name: ``bm25 (control)`` for controls."""
    return f"{target} (control)" if is_control(target) else target


def targets_of(run: Run) -> list[str]:
    """Every target with results, in run order; suites that plan their own targets (the findings
    suite's recorded agents) add theirs after the run's."""
    named = list(run.targets)
    extra = [t for per in (run.summary.get("suites") or {}).values() for t in per if t not in named]
    return named + list(dict.fromkeys(extra))


def primary_target(run: Run) -> str:
    """The target a per-case breakdown shows by default: the first that is not a control."""
    targets = run.targets
    return next((t for t in targets if not is_control(t)), targets[0] if targets else "")


def k_of(run: Run) -> int:
    """The retrieval cut-off the run was scored at."""
    return int((run.manifest.get("corpus") or {}).get("k") or 5)


def scope_text(run: Run) -> str:
    """``gold scope: tests, docs, ... are never gold``, or ``no gold scope: any file may be gold``
    (the corpus's ``goldScope``, as the run's manifest recorded it)."""
    scope = (run.manifest.get("corpus") or {}).get("goldScope")
    exclude = scope.get("exclude") if isinstance(scope, dict) else None
    if not exclude:
        return "no gold scope: any file may be gold"
    return f"gold scope: {', '.join(map(str, exclude))} files are never gold (the controls index the rest)"


def suite_rows(run: Run, suite: str, target: str | None = None) -> pd.DataFrame | Note:
    """The case rows of one suite (and target), or a Note saying why there are none. Columns no row
    of this suite fills (other suites' fields, such as findings' ``expected_verdict`` beside the gate's
    ``expectedVerdict``) are left out."""
    per_target = (run.summary.get("suites") or {}).get(suite)
    if not per_target:
        return Note(f"No {suite} results in this run (the suite was not run).")
    cases = run.cases
    rows = cases[(cases[SUITE] == suite) & ((cases[TARGET] == target) if target else True)]
    if rows.empty:
        reasons = sorted({str(r["skipped"]) for r in per_target.values() if r.get("skipped")})
        why = f": skipped ({'; '.join(reasons)})" if reasons else ""
        scope = f" for {target}" if target else ""
        return Note(f"No {suite} cases in this run{scope}{why}.")
    others = cases[cases[SUITE] != suite]
    foreign = [c for c in rows.columns if c not in _KEEP and rows[c].isna().all() and others[c].notna().any()]
    return rows.drop(columns=foreign).reset_index(drop=True)


_KEEP = frozenset({SUITE, TARGET, CASE, PASSED, ERROR, "seconds"})


def wide_scores(run: Run, suite: str) -> pd.DataFrame:
    """One row per (target, case) of a suite, one column per metric."""
    scores = run.scores[run.scores[SUITE] == suite]
    wide = scores.groupby([TARGET, CASE, METRIC], sort=False)[VALUE].first().unstack(METRIC)
    return wide.reindex(columns=list(dict.fromkeys(scores[METRIC]))).rename_axis(columns=None).reset_index()


def failures_first(rows: pd.DataFrame, *keys: str) -> pd.DataFrame:
    """Rows ordered failing cases first, then by ``keys`` (default: target, case)."""
    order = [c for c in (keys or (TARGET, CASE)) if c in rows.columns]
    passed = rows[PASSED].fillna(False).astype(bool)
    return rows.assign(_passed=passed).sort_values(["_passed", *order], kind="stable").drop(columns="_passed")


def joined(values: Any, sep: str = ", ") -> str:
    """A list-like cell as text; scalars unchanged, missing as an empty string."""
    if isinstance(values, (list, tuple, set)):
        return sep.join(str(v) for v in values)
    if isinstance(values, dict):
        return sep.join(f"{k}: {v}" for k, v in values.items())
    return "" if values is None or (isinstance(values, float) and pd.isna(values)) else str(values)


def mark(passed: Any) -> str:
    """``PASS`` / ``FAIL`` for a case's passed flag."""
    return "PASS" if bool(passed) and not pd.isna(passed) else "FAIL"


def _verdict_css(value: Any) -> str:
    text = str(value)
    if text.startswith("PASS") or text == "yes":
        return PASS_CSS
    if text.startswith("FAIL") or text == "NO":
        return FAIL_CSS
    return MUTED_CSS if text.startswith("skipped") else ""


class Table(Styler):
    """A Styler whose every text is escaped as it is rendered (``_html.escape_table``), whatever a
    view did to it after ``table`` (a later ``format``, ``relabel_index`` or ``set_caption``)."""

    def _translate(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return escape_table(super()._translate(*args, **kwargs))


def table(frame: pd.DataFrame, name: str, verdict_columns: Iterable[str] = (), precision: int = 3) -> Styler:
    """A ``Table`` with a stable id (deterministic HTML), no index, and PASS/FAIL cells coloured.
    Every view's table is made here, so every cell, header and caption text is escaped."""
    styler = (
        Table(frame)
        .set_uuid(name)
        .hide(axis="index")
        .format(precision=precision, na_rep="-", thousands=",")
        .set_table_styles(
            [
                # Wider than the page: the table scrolls sideways rather than cutting columns off.
                {"selector": "", "props": "display:block; max-width:100%; overflow-x:auto; table-layout:auto"},
                {
                    "selector": "td",
                    "props": "text-align:left; vertical-align:top; white-space:pre-line; "
                    "overflow-wrap:break-word; word-break:normal; max-width:40em",
                },
                {"selector": "th", "props": "white-space:nowrap"},
            ]
        )
    )
    subset = [c for c in verdict_columns if c in frame.columns]
    return styler.map(_verdict_css, subset=subset) if subset else styler
