"""Issue 23, part 2: cost and latency beside quality, and the quality-against-cost page."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import workbench as wb
from workbench.cli import main
from workbench.corpus import load_corpus
from workbench.options import RunOptions
from workbench.report import latencies, render_scoreboard
from workbench.report.render import render_report
from workbench.run.runner import run

from ..targets.test_usage import USAGE_ENGINE, usage_corpus

DEAR = f"cmd:{sys.executable} {USAGE_ENGINE} --cost 0.02"
CHEAP = f"cmd:{sys.executable} {USAGE_ENGINE} --cost 0.005 --miss-every 2"
DEAR_NAME = f"cmd:{Path(sys.executable).name} usage_engine.py --cost 0.02"
CHEAP_NAME = f"cmd:{Path(sys.executable).name} usage_engine.py --cost 0.005 --miss-every 2"


@pytest.fixture
def priced(tmp_path: Path):
    """Six cases (queries of 2..7 words) run by a dear engine that passes all, a cheap one that
    misses the even-word queries (3 of 6) and the random control (no usage)."""
    corpus = load_corpus(usage_corpus(tmp_path, 6))
    options = RunOptions(targets=[DEAR, CHEAP, "random"], out_dir=tmp_path / "runs", progress=False)
    return run(corpus, options)


def test_pareto_front_by_hand() -> None:
    cost = np.array([1.0, 2.0, 2.0, 3.0, np.nan, 0.5])
    quality = np.array([0.5, 0.9, 0.8, 0.9, 1.0, 0.5])
    # 0.5 at cost 0.5 beats 0.5 at 1.0; 0.9 at 2.0 beats 0.8 at 2.0 and 0.9 at 3.0; unknown cost is off it
    assert list(wb.views.pareto(cost, quality)) == [False, True, False, False, False, True]


def test_cost_frame_and_front_for_two_engines_that_report_usage(priced) -> None:
    frame = wb.views.with_baseline(priced).set_index("target")
    assert frame.loc[DEAR_NAME, "cost (USD)"] == pytest.approx(0.12)
    assert frame.loc[CHEAP_NAME, "cost/case (USD)"] == pytest.approx(0.005)
    assert frame.loc[DEAR_NAME, "pass rate"] == 1.0 and frame.loc[CHEAP_NAME, "pass rate"] == 0.5
    assert np.isnan(frame.loc["random", "cost (USD)"])  # no usage: unknown, never 0
    assert frame.loc[DEAR_NAME, "front (cost)"] and frame.loc[CHEAP_NAME, "front (cost)"]
    assert not frame.loc["random", "front (cost)"]
    html = wb.views.costs(priced).to_html()
    assert "1 target(s) reported no usage" in html and ">-<" in html
    board = wb.views.leaderboard(priced).data.set_index("target")
    assert board.loc[DEAR_NAME, "cost (USD)"] == pytest.approx(0.12) and np.isnan(board.loc["random", "cost (USD)"])


def test_the_baseline_joins_the_frame_and_the_figure_draws(priced) -> None:
    frame = wb.views.with_baseline(priced, priced.select(CHEAP_NAME))
    assert list(frame["role"]) == ["candidate", "candidate", "control", "baseline"]
    figure = wb.plots.quality_vs_cost(priced, priced.select(CHEAP_NAME))
    assert figure.png()[:4] == b"\x89PNG"


def test_the_scoreboard_text_shows_cost_and_latency(priced) -> None:
    text = render_scoreboard(priced.summary, latency=latencies(priced.cases))
    lines = text.splitlines()
    dear = lines[lines.index(next(x for x in lines if x.startswith(f"Retrieval [{DEAR_NAME}]"))) + 1]
    assert dear.startswith("  - cost: $0.12 (6/6 cases reported; 27 in / 42 out tokens; paced-1); latency: ")
    control = lines[lines.index(next(x for x in lines if x.startswith("Retrieval [random]"))) + 1]
    assert control.startswith("  - cost: -; latency: ") and "s/case" in control


def test_cli_run_prints_the_cost_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = usage_corpus(tmp_path, 2)
    assert main(["run", "--corpus", str(path), "--target", DEAR, "--out", str(tmp_path / "runs")]) == 0
    assert "  - cost: $0.04 (2/2 cases reported" in capsys.readouterr().out


@pytest.mark.notebooks
def test_the_quality_against_cost_page_renders_for_two_engines_that_report_usage(priced, tmp_path: Path) -> None:
    report = render_report(priced.path, out_dir=tmp_path / "html", notebooks=["scoreboard"], jobs=1)
    page = (tmp_path / "html" / priced.run_id / "scoreboard.html").read_text()
    assert not report.failed and "Quality against cost" in page
    assert page.count("data:image/png;base64") >= 3 and "reported no usage" in page
    assert json.loads((priced.path / "summary.json").read_text())["suites"]["retrieval"][DEAR_NAME]["usage"]
