"""Find and check runs and baselines on disk without loading their frames (no pandas).

``store`` and ``baseline`` build DataFrames from these files; the report's parent process
only needs to know that a run or baseline is there and well-formed, and its manifest and
summary, so it reads them here and leaves pandas to the notebook kernels.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..columns import SCORE_COLUMNS
from ..errors import StoreError
from ..paths import DEFAULT_BASELINES_DIR, DEFAULT_RUNS_DIR, Locations, SideRef, project_path, split_target
from ..strictjson import read_json as strict_read_json
from ..strictjson import read_jsonl as strict_read_jsonl
from .shapes import check_baseline, check_case_rows, check_manifest, check_summary

RUN_FILES = ("manifest.json", "summary.json", "cases.jsonl", "scores.parquet")
BASELINE_FORMAT = 1


def read_json(path: Path) -> Any:
    """One JSON file of a run, strictly; a StoreError names the file when it is missing or unreadable."""
    if not path.exists():
        raise StoreError(f"{path}: missing (not a complete run directory)")
    return strict_read_json(path, "run file", StoreError)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The values of a JSON-lines file (blank lines skipped), strictly; errors name the file and line."""
    if not path.exists():
        raise StoreError(f"{path}: missing (not a complete run directory)")
    return strict_read_jsonl(path, "run file", StoreError)


def check_scores(path: Path) -> None:
    """Check that ``scores.parquet`` exists and is a parquet file with the score columns
    (reads only its footer)."""
    import pyarrow.parquet as pq

    try:
        names = set(pq.read_schema(path).names)
    except FileNotFoundError:
        raise StoreError(f"{path}: missing (not a complete run directory)") from None
    except Exception as exc:  # pyarrow raises many types for a corrupt file
        raise StoreError(f"{path}: unreadable ({exc})") from None
    missing = [c for c in SCORE_COLUMNS if c not in names]
    if missing:
        raise StoreError(f"{path}: no column(s) {', '.join(missing)}")


@dataclass(frozen=True)
class RunHeader:
    """A run directory's manifest and summary: what a caller needs before loading the frames."""

    path: Path
    manifest: dict[str, Any]
    summary: dict[str, Any]

    @property
    def run_id(self) -> str:
        return str(self.manifest.get("run_id", self.path.name))

    @property
    def targets(self) -> list[str]:
        """Target names in the order they were run."""
        return [t["name"] for t in self.manifest.get("targets", [])]


def read_header(path: Path | str) -> RunHeader:
    """Check every file of a run directory parses (the parquet file by its footer) and return
    its manifest and summary; a StoreError names the first bad file."""
    path = Path(path)
    if not path.is_dir():
        raise StoreError(f"{path}: no such run directory")
    check_scores(path / "scores.parquet")
    header = RunHeader(
        path,
        check_manifest(read_json(path / "manifest.json"), path / "manifest.json"),
        check_summary(read_json(path / "summary.json"), path / "summary.json"),
    )
    check_case_rows(read_jsonl(path / "cases.jsonl"), path / "cases.jsonl")
    return header


def is_complete_run(path: Path) -> bool:
    """Whether ``path`` is a run directory holding every run file."""
    return path.is_dir() and all((path / name).exists() for name in RUN_FILES)


def latest_run(runs_dir: Path | str = DEFAULT_RUNS_DIR) -> Path:
    """The most recently written complete run directory under ``runs_dir`` (found from the project
    root too, see ``project_path``)."""
    runs_dir = project_path(runs_dir)
    complete = (
        [p for p in runs_dir.glob("*") if not p.name.startswith(".") and is_complete_run(p)]
        if runs_dir.is_dir()
        else []
    )
    if not complete:
        raise StoreError(f"{runs_dir}: no runs yet (run `workbench run` first)")
    return max(complete, key=lambda p: ((p / "manifest.json").stat().st_mtime, p.name))


def read_baseline(
    path_or_name: Path | str, baselines_dir: Path | str = DEFAULT_BASELINES_DIR
) -> tuple[Path, dict[str, Any]]:
    """A baseline file (by path, or by name in ``baselines_dir``) and its checked document."""
    path = Locations(baselines=project_path(baselines_dir)).baseline(path_or_name)
    if not path.is_file():
        raise StoreError(f"{path}: no such baseline (see `workbench baseline list`)")
    return path, check_baseline(strict_read_json(path, "baseline", StoreError), path)


def check_side(spec: str, where: Locations | None = None) -> SideRef:
    """``where.side(spec)`` (default locations), then check the run or baseline reads and has the
    named target."""
    side = (where or Locations.of()).side(spec)
    if side.is_run:
        targets = read_header(side.path).targets
    else:
        targets = [read_baseline(side.path)[1]["target"]["name"]]
    if side.target and targets and side.target not in targets:
        raise StoreError(f"{spec}: no target {side.target!r} (has {', '.join(targets)})")
    return side


def locations_for(specs: Iterable[str | Path | None], corpus: Path | str | None, runs: Path | str | None) -> Locations:
    """The one way a command finds a baseline: in ``<corpus dir>/baselines/`` of ``corpus`` when
    given, else of the corpus the first run among ``specs`` was made on (its manifest), else of
    the default corpus; runs under ``runs`` (default ``reports/runs``), from the project root too."""
    where = Locations.of(corpus, runs)
    if corpus is not None:
        return where
    for spec in specs:
        run = where.run_dir(split_target(spec)[0]) if spec else None
        manifest = run / "manifest.json" if run else None
        made_on = (
            ((read_json(manifest) or {}).get("corpus") or {}).get("path") if manifest and manifest.is_file() else None
        )
        if made_on:
            return Locations.of(made_on, where.runs)
    return where
