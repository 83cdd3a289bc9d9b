"""The one progress helper (issue 40 item 4): plain lines without a terminal, nothing when disabled."""

from __future__ import annotations

import io
import re

import pytest

from workbench.console import Progress


def test_without_a_terminal_it_prints_plain_lines_with_counts_rate_and_eta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_PROGRESS_SECONDS", "0")
    out = io.StringIO()
    with Progress(4, "cases", "case", stream=out) as bar:
        bar.set_postfix_str("retrieval / bm25")
        for _ in range(4):
            bar.update()
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue() and len(lines) == 5  # one per update, one at the end
    assert re.fullmatch(r"cases: 2/4 \(50%\), [\d.?]+ ?\S*case/s, ETA \S+ \[retrieval / bm25\]", lines[1]), lines[1]
    assert lines[-1].startswith("cases: 4/4 (100%)")


def test_lines_are_spaced_by_the_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_PROGRESS_SECONDS", "3600")
    out = io.StringIO()
    with Progress(100, "commits", "commit", stream=out) as bar:
        for _ in range(100):
            bar.update()
    assert out.getvalue() == ""  # short work says nothing (no line before the interval, none at the end)


def test_disabled_prints_nothing() -> None:
    out = io.StringIO()
    with Progress(3, "pages", "page", enabled=False, stream=out) as bar:
        bar.update(3)
    assert out.getvalue() == "" and bar.n == 3


def test_run_json_stdout_stays_clean_and_progress_goes_to_stderr(tmp_path, monkeypatch) -> None:
    from click.testing import CliRunner

    from workbench.cli import cli

    monkeypatch.setenv("WORKBENCH_PROGRESS_SECONDS", "0")
    monkeypatch.setenv("WORKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "orders.py").write_text("def list_orders():\n    return []\n")
    corpus = tmp_path / "corpus.json"
    corpus.write_text(
        '{"fixtureRoots": {"shop": "repo"}, "retrieval": ['
        '{"name": "c1", "query": "list orders", "repoFixture": "shop", "expectedPrimary": ["src/orders.py"]}]}'
    )
    result = CliRunner().invoke(
        cli, ["run", "--corpus", str(corpus), "--target", "bm25", "--out", str(tmp_path / "runs")]
    )
    assert result.exit_code == 0, result.output + result.stderr
    assert re.search(r"cases: 1/1 \(100%\)", result.stderr)
    json_run = CliRunner().invoke(
        cli, ["run", "--corpus", str(corpus), "--target", "bm25", "--out", str(tmp_path / "runs"), "--json"]
    )
    assert json_run.exit_code == 0 and json_run.stdout.lstrip().startswith("{")
