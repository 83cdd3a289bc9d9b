"""``workbench trend`` (issue 42, item 6): every run of a corpus over time, grouped by corpus
version, baselines marked with their commit, each significant step between consecutive runs
flagged by the paired test on their shared cases; text, markdown, JSON and the page."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import workbench as wb
from workbench.analysis.trend import Trend, trend
from workbench.cli import main
from workbench.store.baselines import record_baseline

from ..report_runs import build_run

# (run id, seed, builtin skill, corpus version): the third run collapses, the fourth is on a new corpus
RUNS = [
    ("20261201T100000Z-builtin", 1, 0.9, 1),
    ("20261202T100000Z-builtin", 2, 0.9, 1),
    ("20261203T100000Z-builtin", 3, 0.1, 1),
    ("20261204T100000Z-builtin", 4, 0.9, 2),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_trend_project(tmp_path_factory.mktemp("trend"))


def build_trend_project(root: Path, baseline: bool = True) -> Path:
    """Four runs of one corpus (two versions of it) in ``root/runs``, and (with ``baseline``)
    baseline ``builtin`` recorded, then re-recorded over, from the second run; returns ``root``."""
    corpus = root / "corpus" / "corpus.json"
    corpus.parent.mkdir(parents=True)
    corpus.write_text('{"k": 5, "retrieval": []}\n')
    versions = {1: hashlib.sha256(corpus.read_bytes()).hexdigest(), 2: "f" * 64}
    for run_id, seed, skill, version in RUNS:
        path = build_run(root / "runs", seed=seed, run_id=run_id, suites=("retrieval",), skill={"builtin": skill})
        manifest = json.loads((path / "manifest.json").read_text())
        manifest["created"] = f"{run_id[:4]}-{run_id[4:6]}-{run_id[6:8]}T10:00:00Z"
        manifest["corpus"].update(path=str(corpus), sha256=versions[version])
        manifest["git_commit"] = f"{seed}" * 40
        (path / "manifest.json").write_text(json.dumps(manifest))
    if not baseline:
        return root
    second = wb.load_run(root / "runs" / RUNS[1][0])
    record_baseline(wb.load_run(root / "runs" / RUNS[0][0]), "builtin", corpus, target="builtin")
    record_baseline(second, "builtin", corpus, target="builtin", force=True)  # re-recorded
    return root


def _trend(root: Path, **options: object) -> Trend:
    return trend(root / "corpus" / "corpus.json", root / "runs", **options)  # type: ignore[arg-type]


def test_points_versions_steps_and_the_re_recorded_baseline(project: Path) -> None:
    result = _trend(project, targets=["builtin"], metrics=["mrr"])
    points = result.points
    assert list(points["run_id"]) == [r[0] for r in RUNS] and set(points["metric"]) == {"mrr"}
    assert list(points["version"]) == [1, 1, 1, 2]
    assert [v["first_run"] for v in result.versions] == [RUNS[0][0], RUNS[3][0]]
    assert (points["ci_low"] <= points["value"]).all() and (points["value"] <= points["ci_high"]).all()
    # the collapse and the recovery are significant steps on the cases both runs share
    assert list(points["step"].fillna("")) == ["", "", "REGRESSED", "IMPROVED"]
    assert points.loc[2, "step_p"] < 0.05 and points.loc[2, "step_delta"] < 0
    marks = result.baselines
    assert list(marks["name"]) == ["builtin"] and marks["run_id"].tolist() == [RUNS[1][0]]
    assert marks["git_commit"].tolist() == ["2" * 40]
    text = result.to_text()
    assert text.splitlines()[0].startswith("Trend of ") and "4 run(s), 2 corpus version(s), 1 baseline(s)" in text
    assert "REGRESSED: " in text and "corpus changed (v2)" in text
    assert "baseline recorded at commit 222222222222" in text


def test_since_targets_and_the_three_forms(project: Path) -> None:
    later = _trend(project, since="2026-12-03", metrics=["mrr"])
    assert sorted(set(later.points["run_id"])) == [RUNS[2][0], RUNS[3][0]]
    assert set(later.points["target"]) == {"builtin", "bm25", "random"}
    markdown = later.to_markdown()
    assert markdown.startswith("### workbench trend") and "| when | run | corpus |" in markdown
    data = later.to_dict()
    json.dumps(data, allow_nan=False)
    again = Trend.from_dict(data)
    assert again.to_text() == later.to_text()
    with pytest.raises(wb.WorkbenchError, match="no run of"):
        _trend(project, since="2027-01-01")


def test_the_cli_prints_the_table_the_markdown_and_the_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["trend", "--corpus", str(project / "corpus" / "corpus.json"), "--runs-dir", str(project / "runs")]
    assert main([*args, "--target", "builtin", "--metric", "mrr,recallAtK"]) == 0
    out = capsys.readouterr().out
    assert "REGRESSED" in out and " recallAtK " in out and " bm25 " not in out
    assert main([*args, "--format", "markdown", "--metric", "mrr"]) == 0
    assert capsys.readouterr().out.startswith("### workbench trend")
    assert main([*args, "--format", "json", "--metric", "mrr"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == 4


@pytest.mark.slow
@pytest.mark.notebooks
def test_the_cli_writes_the_trend_page(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["trend", "--corpus", str(project / "corpus" / "corpus.json"), "--runs-dir", str(project / "runs")]
    assert main([*args, "--target", "builtin", "--out", str(tmp_path)]) == 0
    page = (tmp_path / "trend.html").read_text()
    assert capsys.readouterr().err.strip() == f"report: {tmp_path / 'trend.html'}"
    assert "4 run(s), 2 corpus version(s), 1 baseline(s)" in page and "data:image/png;base64," in page
    assert "Traceback" not in page and "REGRESSED" in page
