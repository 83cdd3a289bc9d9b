"""The calibration page: its tables from ``--json`` output, its notebook thin, and rendered end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

from workbench.calibration import Window, calibrate, render_text
from workbench.cli import main
from workbench.errors import RenderError
from workbench.report import render_calibration, views

from ..conftest import REPO_ROOT, assert_thin_notebook
from .test_calibrate import PayTarget, planted

NOTEBOOK = REPO_ROOT / "notebooks" / "calibration.ipynb"
IMG = re.compile(r'<img [^>]*src="data:image/png;base64,')


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("page") / "shop"
    planted(root)
    return root


def test_the_page_tables_say_what_the_terminal_says(repo: Path) -> None:
    result = calibrate(repo, PayTarget(), Window(days=30))
    data = json.loads(json.dumps(result.to_json()))  # exactly what --json prints
    table = views.calibration_flags(views.open_calibration(data), "either").data.set_index("flag")
    money = table.loc["concept:money flow"]
    assert (money["flagged"], money["unflagged"]) == (41, 60)
    assert money["lift [95%]"].startswith(f"{(14 / 41) / (4 / 60):.2f} [") and money["lift [95%]"] in render_text(
        result
    )
    assert "withheld" not in money["rate flagged [95%]"]
    assert "no Brier score" in repr(views.brier_scores(data))
    header = views.calibration_header(data)
    assert "101 observed" in header and "either 18" in header


def test_a_file_that_is_no_calibration_result_fails_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"repo": "r"}')
    with pytest.raises(RenderError, match=r"x.json: missing target, flags"):
        views.open_calibration(bad)


def test_the_notebook_is_thin() -> None:
    assert_thin_notebook(NOTEBOOK, "calibration")


@pytest.mark.notebooks
def test_the_page_renders_with_its_figures(repo: Path, tmp_path: Path) -> None:
    scored = calibrate(repo, PayTarget(scores=True), Window(days=30)).to_json()
    page = render_calibration(scored, tmp_path / "page", notebook_dir=REPO_ROOT / "notebooks")
    text = page.read_text()
    assert len(IMG.findall(text)) == 2  # the lifts and the reliability diagram
    assert "<table" in text and "Traceback" not in text and "concept:money flow" in text
    assert json.loads((tmp_path / "page" / "calibration.json").read_text())["observed"] == 101
    outputs: list[Any] = [
        o for c in nbformat.read(str(page.with_suffix(".ipynb")), 4).cells for o in c.get("outputs", [])
    ]
    assert not [o for o in outputs if o.output_type == "error" or o.get("name") == "stderr"]


@pytest.mark.notebooks
def test_cli_out_writes_the_page(repo: Path, tmp_path: Path, capsys: Any) -> None:
    assert (
        main(
            [
                "calibrate",
                str(repo),
                "--window",
                "30d",
                "--out",
                str(tmp_path / "o"),
                "--target",
                "python:tests.calibration.test_calibrate:make_target",
            ]
        )
        == 0
    )
    assert (tmp_path / "o" / "calibration.html").is_file()
    assert "report: " in capsys.readouterr().err
