"""Baselines: record a run's numbers, reload them as a run, and compare new runs with them.

A baseline is ``corpus/baselines/<name>.json``: sorted keys, one top-level key
and one case per line, so a re-record diffs cleanly in review. Recording with
``write_thresholds`` also rewrites the corpus floors (see ``workbench.floors``)
and the "Current baseline" table in EVALS.md, atomically, file by file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..columns import CASE, ERROR, METRIC, PASSED, SUITE, TARGET, VALUE
from ..errors import StoreError
from ..files import create_text_atomic, dumps, locked, write_text_atomic
from ..options import BaselineOptions
from ..paths import DEFAULT_CORPUS, Locations, project_path
from .floors import DEFAULT_SLACK, compute_floors, replace_thresholds, update_evals
from .headers import BASELINE_FORMAT, DEFAULT_BASELINES_DIR, read_baseline
from .runs import scores_frame

if TYPE_CHECKING:
    import pandas as pd

FORMAT = BASELINE_FORMAT
DEFAULT_DIR = DEFAULT_BASELINES_DIR


@dataclass
class Baseline:
    """A recorded baseline; usable wherever a ``Run`` is read (compare, reports)."""

    path: Path
    data: dict[str, Any]
    cases: pd.DataFrame
    scores: pd.DataFrame

    @property
    def name(self) -> str:
        return str(self.data["name"])

    @property
    def run_id(self) -> str:
        return f"baseline:{self.name}"

    @property
    def manifest(self) -> dict[str, Any]:
        d = self.data
        return {
            "run_id": self.run_id,
            "created": d.get("recorded"),
            "corpus": d.get("corpus"),
            "targets": [d["target"]],
            "git_commit": d.get("git_commit"),
            "workbench_version": d.get("workbench_version"),
            "source_run": d.get("run_id"),
        }

    @property
    def summary(self) -> dict[str, Any]:
        target, counts = self.data["target"]["name"], self.data.get("suites", {})
        return {
            "run_dir": str(self.path),
            "passed": None,
            "suites": {
                suite: {
                    target: {
                        **counts.get(suite, {}),
                        "metrics": metrics,
                        "thresholds": self.data.get("thresholds", {}).get(suite, {}),
                        "skipped": None,
                    }
                }
                for suite, metrics in self.data["metrics"].items()
            },
        }

    @property
    def targets(self) -> list[str]:
        return [self.data["target"]["name"]]

    def select(self, target: str) -> Baseline:
        if target not in self.targets:
            raise StoreError(f"{self.path}: baseline is for target {self.targets[0]!r}, not {target!r}")
        return self


def baseline_corpus(run: Any, corpus_path: Path | str | None = None) -> Path:
    """The corpus a baseline of ``run`` belongs to: ``corpus_path`` when given, else the corpus the
    run was made on (its manifest), else the default corpus; found from the project root too."""
    made_on = (getattr(run, "manifest", None) or {}).get("corpus", {}).get("path")
    return project_path(corpus_path or made_on or DEFAULT_CORPUS)


def record_baseline(
    run: Any,
    name: str,
    corpus_path: Path | str | None = None,
    write_thresholds: bool = False,
    slack: float = DEFAULT_SLACK,
    force: bool = False,
    target: str | None = None,
    baselines_dir: Path | str | None = None,
    evals_md: Path | str | None = None,
) -> Path:
    """Write ``<baselines_dir>/<name>.json`` from ``run`` (one target) and return its path;
    ``baselines_dir`` defaults to ``<corpus dir>/baselines/`` of ``baseline_corpus(run, corpus_path)``.

    With ``write_thresholds`` the corpus floors become baseline minus ``slack`` (pass
    rates: one more failing case trips them) and EVALS.md's baseline table is regenerated
    (``evals_md`` defaults to EVALS.md beside the corpus directory, when it exists), all under the
    corpus's lock (``files.locked``). Without ``force`` the file is created exclusively: of two
    records of one name at once, one wins and the other is refused, never silently replaced.
    """
    BaselineOptions(name=name, write_thresholds=write_thresholds, slack=slack, force=force)  # its checks
    corpus_path = baseline_corpus(run, corpus_path)
    path = (Path(baselines_dir) if baselines_dir else Locations.of(corpus_path).baselines) / f"{name}.json"
    exists = f"{path}: baseline {name!r} already exists; pass --force to overwrite it"
    if path.exists() and not force:
        raise StoreError(exists)
    run = _one_target(run, target)
    if not write_thresholds:
        text = _read_corpus(run, corpus_path)
        doc = baseline_document(run, name, corpus_path, text, json.loads(text).get("thresholds", {}))
        return _write_baseline(path, doc, force, exists)
    with locked(corpus_path):  # the corpus's floors are a read-modify-write
        text = _read_corpus(run, corpus_path)
        floors = compute_floors(run.summary, run.scores, run.targets[0], json.loads(text).get("thresholds", {}), slack)
        text = replace_thresholds(text, floors, corpus_path)
        doc = baseline_document(run, name, corpus_path, text, floors)
        _write_baseline(path, doc, force, exists)
        write_text_atomic(corpus_path, text)
        evals = Path(evals_md) if evals_md else corpus_path.resolve().parent.parent / "EVALS.md"
        if evals_md or evals.exists():
            update_evals(evals, doc)
    return path


def _write_baseline(path: Path, doc: dict[str, Any], force: bool, exists: str) -> Path:
    """Write the baseline file: replacing one only with ``force``; without it the file is created
    exclusively, so of two concurrent records of one name exactly one wins (``exists`` for the other)."""
    if force:
        write_text_atomic(path, dumps_baseline(doc))
    else:
        create_text_atomic(path, dumps_baseline(doc), exists)
    return path


def _one_target(run: Any, target: str | None) -> Any:
    targets = run.targets
    if target is None and len(targets) != 1:
        raise StoreError(f"{run.run_id}: has targets {', '.join(targets)}; record one of them as {run.run_id}#<target>")
    # select even a single-target run: suites that score recorded data (findings) add their own
    # agents as targets, and those rows do not belong to the engine's baseline
    return run.select(target or targets[0])


def _read_corpus(run: Any, corpus_path: Path) -> str:
    """The corpus text, checked to be the corpus the run was made on."""
    try:
        raw = corpus_path.read_bytes()
    except OSError as exc:
        raise StoreError(f"{corpus_path}: cannot read corpus ({exc.strerror})") from None
    recorded = (run.manifest.get("corpus") or {}).get("sha256")
    actual = hashlib.sha256(raw).hexdigest()
    if recorded and recorded != actual:
        raise StoreError(
            f"{corpus_path}: sha256 {actual[:12]} differs from the corpus run {run.run_id} "
            f"used ({recorded[:12]}); re-run on the current corpus before recording"
        )
    return raw.decode("utf-8")


def baseline_document(
    run: Any, name: str, corpus_path: Path, corpus_text: str, thresholds: dict[str, Any]
) -> dict[str, Any]:
    """The baseline object: provenance, aggregate metrics, floors in force, every case's scores."""
    target = run.targets[0]
    suites = {
        s: per[target]
        for s, per in run.summary.get("suites", {}).items()
        if target in per and not per[target].get("skipped")
    }
    entry = next((t for t in run.manifest.get("targets", []) if t.get("name") == target), {"name": target})
    return {
        "format": FORMAT,
        "name": name,
        "run_id": run.run_id,
        "recorded": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "corpus": {
            "path": corpus_path.as_posix(),
            "sha256": hashlib.sha256(corpus_text.encode("utf-8")).hexdigest(),
            "run_sha256": (run.manifest.get("corpus") or {}).get("sha256"),
        },
        "target": entry,
        "git_commit": run.manifest.get("git_commit"),
        "workbench_version": run.manifest.get("workbench_version"),
        "metrics": {s: r.get("metrics", {}) for s, r in suites.items()},
        "suites": {s: {k: r.get(k) for k in ("cases", "scored", "passed_cases", "errors")} for s, r in suites.items()},
        "thresholds": thresholds,
        "cases": case_records(run.cases, run.scores),
    }


def case_records(cases: pd.DataFrame, scores: pd.DataFrame) -> list[dict[str, Any]]:
    """One record per (suite, case): pass/fail, error and every metric, sorted for stable diffs."""
    import numpy as np
    import pandas as pd

    per_case: dict[tuple[str, str], dict[str, Any]] = {}
    for suite, case, passed, error in cases[[SUITE, CASE, PASSED, ERROR]].itertuples(index=False):
        per_case[(suite, case)] = {
            "suite": suite,
            "case": case,
            "scores": {},
            "passed": None if pd.isna(passed) else bool(passed),
            "error": None if pd.isna(error) else str(error),
        }
    for suite, case, metric, value in scores[[SUITE, CASE, METRIC, VALUE]].itertuples(index=False):
        record = per_case.setdefault(
            (suite, case), {"suite": suite, "case": case, "scores": {}, "passed": None, "error": None}
        )
        record["scores"][metric] = None if np.isnan(value) else float(value)
    return [per_case[key] for key in sorted(per_case)]


def dumps_baseline(doc: dict[str, Any]) -> str:
    """JSON with sorted keys, one top-level key per line and one case per line."""
    lines = []
    for key in sorted(doc):
        value = doc[key]
        if key == "cases" and value:
            body = ",\n".join(f"    {dumps(case, sort_keys=True)}" for case in value)
            text = f"[\n{body}\n  ]"
        else:
            text = dumps(value, sort_keys=True)
        lines.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def load_baseline(path_or_name: Path | str, baselines_dir: Path | str = DEFAULT_DIR) -> Baseline:
    """Read a baseline by file path or by name (``<baselines_dir>/<name>.json``)."""
    import numpy as np
    import pandas as pd

    path, data = read_baseline(path_or_name, baselines_dir)
    target = data["target"]["name"]
    cases = pd.DataFrame(
        [
            {SUITE: c["suite"], TARGET: target, CASE: c["case"], PASSED: c.get("passed"), ERROR: c.get("error")}
            for c in data["cases"]
        ],
        columns=[SUITE, TARGET, CASE, PASSED, ERROR],
    )
    scores = scores_frame(
        [
            {SUITE: c["suite"], TARGET: target, CASE: c["case"], METRIC: m, VALUE: np.nan if v is None else v}
            for c in data["cases"]
            for m, v in c["scores"].items()
        ]
    )
    return Baseline(path, data, cases, scores)


def list_baselines(directory: Path | str = DEFAULT_DIR) -> pd.DataFrame:
    """One row per baseline file: name, recorded, target, version, cases, corpus sha256, path.

    A file that does not read as a baseline does not hide the others: its row has the path and
    the reason in ``error`` (and nothing else)."""
    import pandas as pd

    columns = ["name", "recorded", "target", "version", "cases", "corpus_sha256", "path", "error"]
    rows: list[list[Any]] = []
    for path in sorted(Path(directory).glob("*.json")):
        try:
            d = read_baseline(path)[1]
        except StoreError as exc:
            rows.append([None, None, None, None, None, None, str(path), str(exc)])
            continue
        rows.append(
            [
                d["name"],
                d.get("recorded"),
                d["target"]["name"],
                d["target"].get("version"),
                len(d["cases"]),
                (d.get("corpus") or {}).get("sha256"),
                str(path),
                None,
            ]
        )
    return pd.DataFrame(rows, columns=columns)
