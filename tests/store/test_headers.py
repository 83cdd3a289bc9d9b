"""Runs and baselines checked on disk without pandas (the report's parent process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.errors import StoreError
from workbench.paths import Locations
from workbench.store.headers import check_side, read_baseline, read_header

from ..report_runs import build_run


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_run(tmp_path_factory.mktemp("runs"), suites=("retrieval",))


def copy_run(run_dir: Path, tmp_path: Path) -> Path:
    copy = tmp_path / run_dir.name
    copy.mkdir()
    for file in run_dir.iterdir():
        (copy / file.name).write_bytes(file.read_bytes())
    return copy


def test_header_has_the_manifest_and_summary(run_dir: Path) -> None:
    header = read_header(run_dir)
    assert header.run_id == run_dir.name
    assert header.targets == ["builtin", "bm25", "random"]
    assert set(header.summary["suites"]) == {"retrieval"}


@pytest.mark.parametrize(
    "file, content, message",
    [
        ("cases.jsonl", '{"suite": "retrieval"}\n{not json\n', r"cases\.jsonl:2: column 2: invalid JSON"),
        ("scores.parquet", "not parquet", r"scores\.parquet: unreadable"),
        ("summary.json", "{", r"summary\.json: column 2: invalid JSON"),
    ],
)
def test_a_bad_file_is_named(run_dir: Path, tmp_path: Path, file: str, content: str, message: str) -> None:
    broken = copy_run(run_dir, tmp_path)
    (broken / file).write_text(content)
    with pytest.raises(StoreError, match=message):
        read_header(broken)


def test_a_missing_file_or_directory_is_named(run_dir: Path, tmp_path: Path) -> None:
    broken = copy_run(run_dir, tmp_path)
    (broken / "manifest.json").unlink()
    with pytest.raises(StoreError, match=r"manifest\.json: missing"):
        read_header(broken)
    with pytest.raises(StoreError, match="no such run directory"):
        read_header(tmp_path / "nope")


def test_scores_without_the_score_columns_are_rejected(run_dir: Path, tmp_path: Path) -> None:
    import pandas as pd

    broken = copy_run(run_dir, tmp_path)
    pd.DataFrame({"suite": ["retrieval"], "value": [1.0]}).to_parquet(broken / "scores.parquet")
    with pytest.raises(StoreError, match=r"scores\.parquet: no column\(s\) target, case, metric"):
        read_header(broken)


def test_sides_resolve_to_runs_and_baselines(run_dir: Path, tmp_path: Path) -> None:
    baselines = tmp_path / "baselines"
    baselines.mkdir()
    doc = {"format": 1, "name": "b", "target": {"name": "builtin"}, "metrics": {}, "cases": []}
    (baselines / "b.json").write_text(json.dumps(doc))
    where = Locations(tmp_path, baselines)
    assert Locations().side(f"{run_dir}#bm25").is_run and Locations().side(f"{run_dir}#bm25").target == "bm25"
    assert Locations(runs=run_dir.parent).side(run_dir.name).path == run_dir
    assert check_side("b", where).path == baselines / "b.json"
    with pytest.raises(StoreError, match=r"#nope: no target 'nope' \(has builtin, bm25, random\)"):
        check_side(f"{run_dir}#nope")
    with pytest.raises(StoreError, match=r"b#bm25: no target 'bm25' \(has builtin\)"):
        check_side("b#bm25", where)
    with pytest.raises(StoreError, match="not a run directory, a run id in"):
        check_side("nothing", where)


def test_a_malformed_baseline_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text(
        json.dumps(
            {
                "format": 1,
                "name": "b",
                "target": {"name": "x"},
                "metrics": {},
                "cases": [{"suite": "s", "case": "c", "scores": {"m": "high"}}],
            }
        )
    )
    with pytest.raises(StoreError, match=r"b\.json: cases\[0\]\.scores\.m: expected number or null, got 'high'"):
        read_baseline(path)


def test_the_report_parent_never_loads_pandas(run_dir: Path, tmp_path: Path) -> None:
    """Reading the run, checking a baseline and writing the index stay pandas-free: the parent
    process shares the cores with the kernels, which load the frames themselves."""
    code = (
        f"import sys; from pathlib import Path; import workbench.report.render as r; "
        f"from workbench.paths import Locations; "
        f"run, out = r._prepare({str(run_dir)!r}, Path({str(tmp_path)!r}), Locations()); "
        f"r._check_baseline({str(run_dir) + '#bm25'!r}, None, Locations()); r.write_index(run, [], out); "
        f"r.write_runs_index(Path({str(tmp_path)!r})); print(sorted(m for m in ('pandas', 'scipy', "
        f"'matplotlib') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    assert (tmp_path / run_dir.name / "index.html").is_file()
