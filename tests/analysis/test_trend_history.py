"""``workbench trend`` shows every recording of each baseline (issue 42, item 6): the file on disk
and the earlier recordings a ``--force`` re-record overwrote, read read-only from git history, each
with its commits; a malformed version in history is skipped with a note; outside git, or without
git, only the files on disk, saying so."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import workbench as wb
from workbench.analysis.trend import Trend, trend
from workbench.analysis.trend_history import recordings
from workbench.cli import main
from workbench.store.baselines import record_baseline

from ..git_history import commit, git, init
from .test_trend import build_trend_project

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="needs git"
)


def build_git_trend_project(root: Path) -> tuple[Path, list[str]]:
    """``build_trend_project`` inside a git repository: baseline ``builtin`` recorded from the first
    run and committed, a malformed version committed over it, then re-recorded (``--force``) from
    the second run and committed; returns the root and the three commits."""
    init(root)
    build_trend_project(root, baseline=False)
    first = _record(root, "20261201T100000Z-builtin", force=False)
    commits = [commit(root, "baseline builtin", {}, 1)]
    commits.append(commit(root, "a broken baseline", {"corpus/baselines/builtin.json": '{"format": '}, 2))
    _record(root, "20261202T100000Z-builtin")
    commits.append(commit(root, "baseline builtin re-recorded", {}, 3))
    assert first.is_file() and git(root, "status", "--porcelain") == ""
    return root, commits


def _record(root: Path, run_id: str, force: bool = True) -> Path:
    """``workbench baseline record RUN --name builtin [--force]`` on the project's corpus."""
    run = wb.load_run(root / "runs" / run_id)
    return record_baseline(run, "builtin", root / "corpus" / "corpus.json", target="builtin", force=force)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    return build_git_trend_project(tmp_path_factory.mktemp("trend-git") / "repo")


def _trend(root: Path) -> Trend:
    return trend(root / "corpus" / "corpus.json", root / "runs", targets=["builtin"], metrics=["mrr"])


def test_both_recordings_are_listed_with_their_commits(project: tuple[Path, list[str]]) -> None:
    root, (first, broken, second) = project
    head = git(root, "rev-parse", "HEAD")
    result = _trend(root)
    marks = result.baselines
    assert marks["committed_in"].tolist() == [first, second]
    assert marks["run_id"].tolist() == ["20261201T100000Z-builtin", "20261202T100000Z-builtin"]
    assert marks["on_disk"].tolist() == [False, True] and marks["git_commit"].tolist() == ["1" * 40, "2" * 40]
    assert [n for n in result.notes if broken[:12] in n and "skipped" in n], result.notes
    text = result.to_text()
    assert "1 baseline(s) in 2 recording(s)" in text.splitlines()[0]
    assert f"baseline recorded at commit 111111111111, committed in {first[:12]}" in text
    assert f"baseline recorded at commit 222222222222, committed in {second[:12]} (current)" in text
    markdown = result.to_markdown()
    assert f"committed in {first[:12]} |" in markdown and f"committed in {second[:12]} (current) |" in markdown
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert [b["committed_in"] for b in data["baselines"]] == [first, second]
    assert Trend.from_dict(data).to_text() == text
    assert git(root, "rev-parse", "HEAD") == head and git(root, "status", "--porcelain") == ""  # read-only


def test_an_uncommitted_re_recording_is_listed_after_the_committed_ones(tmp_path: Path) -> None:
    root, (first, _, second) = build_git_trend_project(tmp_path / "repo")
    _record(root, "20261203T100000Z-builtin")
    marks = _trend(root).baselines
    assert marks["committed_in"].tolist()[:2] == [first, second] and pd_isna(marks["committed_in"].iloc[2])
    assert marks["on_disk"].tolist() == [False, False, True]
    assert "baseline recorded at commit 333333333333 (current)" in _trend(root).to_text()


def pd_isna(value: object) -> bool:
    return value is None or value != value


def test_the_cli_text_json_and_markdown(project: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    root, (first, _, second) = project
    args = ["trend", "--corpus", str(root / "corpus" / "corpus.json"), "--runs-dir", str(root / "runs")]
    assert main([*args, "--metric", "mrr", "--target", "builtin"]) == 0
    out = capsys.readouterr().out
    assert f"committed in {first[:12]}" in out and f"committed in {second[:12]} (current)" in out
    assert main([*args, "--metric", "mrr", "--format", "json"]) == 0
    baselines = json.loads(capsys.readouterr().out)["baselines"]
    assert sorted({b["committed_in"] for b in baselines}) == sorted([first, second])
    assert main([*args, "--metric", "mrr", "--format", "markdown"]) == 0
    assert f"committed in {first[:12]}" in capsys.readouterr().out


def test_outside_git_or_without_git_only_the_files_on_disk(
    tmp_path: Path, project: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = build_trend_project(tmp_path / "plain")
    result = trend(plain / "corpus" / "corpus.json", plain / "runs", metrics=["mrr"])
    assert len(result.baselines.drop_duplicates("run_id")) == 1
    assert any("not in a git repository" in n for n in result.notes)
    assert any("not in a git repository" in line for line in result.to_text().splitlines()[:3])
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    without = _trend(project[0])
    assert without.baselines["on_disk"].tolist() == [True] and pd_isna(without.baselines["committed_in"].iloc[0])
    assert any("git is not installed" in n for n in without.notes)


def test_a_linked_worktree_reads_the_same_history(project: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, (first, _, second) = project
    git(root, "worktree", "add", "-q", "--detach", str(tmp_path / "linked"), "HEAD")
    found, _ = recordings(tmp_path / "linked" / "corpus" / "baselines")
    assert [r.commit for r in found] == [first, second] and [r.on_disk for r in found] == [False, True]


@pytest.mark.slow
@pytest.mark.notebooks
def test_the_page_shows_every_recording(
    project: tuple[Path, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, (first, broken, second) = project
    args = ["trend", "--corpus", str(root / "corpus" / "corpus.json"), "--runs-dir", str(root / "runs")]
    assert main([*args, "--target", "builtin", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().err.strip() == f"report: {tmp_path / 'trend.html'}"
    page = (tmp_path / "trend.html").read_text()
    assert "1 baseline(s) in 2 recording(s)" in page and "data:image/png;base64," in page
    assert f"committed in {first[:12]}" in page and f"committed in {second[:12]} (current)" in page
    assert f"at commit {broken[:12]}: skipped" in page and "Traceback" not in page


def test_a_hostile_name_from_history_is_drawn_as_text(tmp_path: Path) -> None:
    import io

    from workbench.report.trend_plots import trend_lines

    root, _ = build_git_trend_project(tmp_path / "repo")
    path = root / "corpus" / "baselines" / "builtin.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "name": "$\\frac{<script>$", "recorded": "2026-12-05T00:00:00Z"}))
    commit(root, "a hostile name", {}, 4)
    result = _trend(root)
    assert "$\\frac{<script>$" in set(result.baselines["name"])
    figure = trend_lines(result)
    figure.savefig(io.BytesIO(), format="png")  # mathtext would raise on the unclosed brace


def test_the_figure_names_the_corpus_by_its_folder_not_the_checkout(tmp_path: Path) -> None:
    from workbench.report.trend_plots import trend_lines

    root, _ = build_git_trend_project(tmp_path / "repo")
    result = _trend(root)
    alt = trend_lines(result).alt_text()
    assert "corpus/corpus.json" in alt and str(tmp_path) not in alt  # the same picture from any clone
