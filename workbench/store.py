"""Write and read run directories (``reports/runs/<run-id>/``), atomically.

A run directory holds ``manifest.json``, ``summary.json``, ``cases.jsonl`` and
``scores.parquet`` (see DESIGN.md, "A run"). It is written into a temporary
sibling directory and renamed into place, so a reader never sees half a run.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .columns import CASE, ERROR, METRIC, PASSED, SCORE_COLUMNS, SUITE, TARGET, VALUE
from .errors import StoreError

DEFAULT_RUNS_DIR = Path("reports/runs")
RUN_FILES = ("manifest.json", "summary.json", "cases.jsonl", "scores.parquet")


@dataclass
class Run:
    """A finished run: its manifest, summary, one row per case, and the long score frame."""

    path: Path
    manifest: dict[str, Any]
    summary: dict[str, Any]
    cases: pd.DataFrame
    scores: pd.DataFrame

    @property
    def run_id(self) -> str:
        return str(self.manifest.get("run_id", self.path.name))

    def targets(self) -> list[str]:
        """Target names in the order they were run."""
        return [t["name"] for t in self.manifest.get("targets", [])] or sorted(self.scores[TARGET].unique())

    def suites(self) -> list[str]:
        """Suite names present in the summary."""
        return list(self.summary.get("suites", {}))

    def select(self, target: str) -> "Run":
        """The same run restricted to one target (for ``RUN#TARGET`` comparisons)."""
        if target not in self.targets():
            raise StoreError(f"{self.path}: no target {target!r} in this run (has {', '.join(self.targets())})")
        suites = {s: {target: per[target]} for s, per in self.summary.get("suites", {}).items() if target in per}
        manifest = dict(self.manifest, targets=[t for t in self.manifest.get("targets", []) if t["name"] == target])
        return Run(self.path, manifest, dict(self.summary, suites=suites),
                   self.cases[self.cases[TARGET] == target].reset_index(drop=True),
                   self.scores[self.scores[TARGET] == target].reset_index(drop=True))


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [_json_safe(v) for v in items]
    if hasattr(value, "item") and callable(value.item):
        return _json_safe(value.item())
    if isinstance(value, Path):
        return str(value)
    return value


def dumps(obj: Any, **kwargs: Any) -> str:
    """JSON text with NaN/inf as null and numpy scalars, sets and paths made plain."""
    return json.dumps(_json_safe(obj), ensure_ascii=False, allow_nan=False, **kwargs)


def write_text_atomic(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` via a temp file in the same directory and ``os.replace``.

    An existing file keeps its permissions; a new one gets 0644 (mkstemp's 0600 would hide
    reports and baselines from other users).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path | str, obj: Any, **kwargs: Any) -> None:
    """Atomically write ``obj`` as JSON (indent 2 unless told otherwise)."""
    kwargs.setdefault("indent", 2)
    write_text_atomic(path, dumps(obj, **kwargs) + "\n")


def scores_frame(rows: pd.DataFrame | list[dict[str, Any]]) -> pd.DataFrame:
    """Normalise a score frame to the stable column order and dtypes."""
    frame = pd.DataFrame(rows, columns=SCORE_COLUMNS) if not isinstance(rows, pd.DataFrame) else rows
    frame = frame.reindex(columns=SCORE_COLUMNS)
    for column in (SUITE, TARGET, CASE, METRIC):
        frame[column] = frame[column].astype(str)
    frame[VALUE] = pd.to_numeric(frame[VALUE], errors="coerce").astype("float64")
    return frame.reset_index(drop=True)


def write_run(out_dir: Path | str, run_id: str, manifest: dict[str, Any], summary: dict[str, Any],
              case_rows: list[dict[str, Any]], scores: pd.DataFrame) -> Path:
    """Write a run directory atomically and return its final path."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    final = _unique(out_dir / run_id)
    summary = dict(summary, run_dir=str(final))
    manifest = dict(manifest, run_id=final.name)
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


def _unique(path: Path) -> Path:
    candidate, counter = path, 1
    while candidate.exists():
        counter += 1
        candidate = path.with_name(f"{path.name}-{counter}")
    return candidate


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoreError(f"{path}: missing (not a complete run directory)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StoreError(f"{path}: unreadable ({exc})") from None


def _read_cases(path: Path) -> pd.DataFrame:
    rows = []
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    rows.append(json.loads(line))
    except FileNotFoundError:
        raise StoreError(f"{path}: missing (not a complete run directory)") from None
    except json.JSONDecodeError as exc:
        raise StoreError(f"{path}:{number}: invalid JSON line ({exc.msg})") from None
    frame = pd.DataFrame(rows)
    for column in (SUITE, TARGET, CASE, PASSED, ERROR):
        if column not in frame:
            frame[column] = pd.Series(dtype=object)
    return frame


def load_run(path: Path | str) -> Run:
    """Read a run directory written by ``workbench run``."""
    path = Path(path)
    if not path.is_dir():
        raise StoreError(f"{path}: no such run directory")
    try:
        scores = pd.read_parquet(path / "scores.parquet")
    except FileNotFoundError:
        raise StoreError(f"{path / 'scores.parquet'}: missing (not a complete run directory)") from None
    except Exception as exc:  # pyarrow raises many types for a corrupt file
        raise StoreError(f"{path / 'scores.parquet'}: unreadable ({exc})") from None
    return Run(path=path, manifest=_read_json(path / "manifest.json"),
               summary=_read_json(path / "summary.json"), cases=_read_cases(path / "cases.jsonl"),
               scores=scores_frame(scores))


def latest_run(runs_dir: Path | str = DEFAULT_RUNS_DIR) -> Path:
    """The most recently written complete run directory under ``runs_dir``."""
    runs_dir = Path(runs_dir)
    complete = [p for p in runs_dir.glob("*") if p.is_dir() and not p.name.startswith(".")
                and all((p / name).exists() for name in RUN_FILES)] if runs_dir.is_dir() else []
    if not complete:
        raise StoreError(f"{runs_dir}: no runs yet (run `workbench run` first)")
    return max(complete, key=lambda p: ((p / "manifest.json").stat().st_mtime, p.name))
