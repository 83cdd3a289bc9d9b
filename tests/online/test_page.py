"""The interleaving page: its tables from ``interleave analyze --json`` output, hand-counted; its
notebook thin; rendered end to end by ``interleave analyze LOG --out DIR``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.errors import RenderError
from workbench.online import analyze_log
from workbench.report import plots, views

from ..conftest import REPO_ROOT, assert_thin_notebook

NOTEBOOK = REPO_ROOT / "notebooks" / "interleaving.ipynb"
IMG = re.compile(r'<img [^>]*src="data:image/png;base64,')
PAIR = {"a": "alpha", "b": "beta"}


def _impression(ident: str, at: str, repo: str) -> dict:
    shown = [{"repo": repo, "path": "x.py", "team": "a"}, {"repo": repo, "path": "y.py", "team": "b"}]
    return {"impression": ident, "at": at, "query": f"task {ident}", "targets": PAIR, "shown": shown}


@pytest.fixture
def log(tmp_path: Path) -> Path:
    """Five tasks, written out of time order: api has A, A, B; web has B and a tie; one feedback is
    for an unknown impression."""
    rows = [
        _impression("i3", "2026-12-01T10:03:00Z", "api"),
        _impression("i1", "2026-12-01T10:01:00Z", "api"),
        _impression("i2", "2026-12-01T10:02:00Z", "api"),
        _impression("i4", "2026-12-01T10:04:00Z", "web"),
        _impression("i5", "2026-12-01T10:05:00Z", "web"),
        {"feedback": "i1", "opened": ["x.py"]},
        {"feedback": "i2", "edited": ["api/x.py"]},
        {"feedback": "i3", "opened": ["y.py"]},
        {"feedback": "i4", "opened": ["y.py"]},
        {"feedback": "i5", "opened": ["x.py", "y.py"]},
        {"feedback": "nope", "opened": ["x.py"]},
    ]
    path = tmp_path / "impressions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_page_tables_hold_the_hand_counts(log: Path) -> None:
    data = views.open_interleaving(json.loads(json.dumps(analyze_log(log).to_dict())))
    by_repo = views.interleaving_by_repo(data).data.set_index("repositories")
    assert by_repo.loc["api"].tolist() == [3, 2, 0, 1, round((1 - 2) / 3, 3)]
    assert by_repo.loc["web"].tolist() == [2, 0, 1, 1, 0.5]
    won_a = views.interleaving_won(data, "a").data
    assert won_a["query"].tolist() == ["task i1", "task i2"]  # oldest first, whatever the log's order
    assert views.interleaving_won(data, "b").data["query"].tolist() == ["task i3", "task i4"]
    header = views.interleaving_header(data)
    assert "5 with feedback" in header and "unknown impression 1" in header and "Wins A 2, ties 1, wins B 2" in header
    assert plots.preference_over_time(data) is not None


def test_a_long_query_is_shown_whole_and_escaped(tmp_path: Path) -> None:
    query = "a long task " * 12 + "<b>bold</b>"  # under the 200 characters analyze keeps
    path = tmp_path / "one.jsonl"
    first = _impression("i1", "2026-12-01T10:01:00Z", "api")
    path.write_text(
        json.dumps({**first, "query": query}) + "\n" + json.dumps({"feedback": "i1", "opened": ["x.py"]}) + "\n"
    )
    data = analyze_log(path).to_dict()
    html = views.interleaving_won(data, data["cases"][0]["outcome"])._repr_html_()  # what a notebook shows
    assert query.replace("<", "&lt;").replace(">", "&gt;") in html and "<b>bold" not in html and "..." not in html


def test_a_file_that_is_no_analysis_fails_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"log": "l"}')
    with pytest.raises(RenderError, match=r"x.json: missing a, b, counts"):
        views.open_interleaving(bad)


def test_a_log_without_feedback_gives_notes_not_tables(tmp_path: Path) -> None:
    path = tmp_path / "quiet.jsonl"
    path.write_text(json.dumps(_impression("i1", "2026-12-01T10:01:00Z", "api")) + "\n")
    data = analyze_log(path).to_dict()
    assert "No task with feedback" in repr(views.interleaving_by_repo(data))
    assert "won no task" in repr(views.interleaving_won(data, "b"))
    assert "no preference" in views.interleaving_header(data)
    assert "No task" in repr(plots.preference_over_time(data))


def test_the_notebook_is_thin() -> None:
    assert_thin_notebook(NOTEBOOK, "interleaving")


@pytest.mark.notebooks
def test_analyze_out_renders_the_page(log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["interleave", "analyze", str(log), "--out", str(tmp_path / "page")]) == 0
    page = tmp_path / "page" / "interleaving.html"
    text = page.read_text()
    assert len(IMG.findall(text)) == 1 and "Traceback" not in text
    assert "task i3" in text and "api" in text and "web" in text
    assert json.loads((tmp_path / "page" / "interleaving.json").read_text())["counts"]["tasks"] == 5
    assert f"report: {page}" in capsys.readouterr().err
