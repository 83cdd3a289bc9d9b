"""A missing toolchain (npm, go, a Python test runner) skips the harness cases that need it, with the reason."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import write_corpus
from workbench.corpus import load_corpus
from workbench.run.runner import RunOptions, run
from workbench.suites.toolchains import missing_tool

NPM = [
    {"kind": "install", "group": "setup", "command": "npm install"},
    {"kind": "test", "group": "validate", "command": "npm test"},
]
PYTEST = [{"kind": "test", "group": "validate", "command": "python -m pytest"}]


def _corpus(tmp_path: Path, cases: list[dict]) -> Path:
    fixture = tmp_path / "fixtures" / "fx"
    (fixture / "tests").mkdir(parents=True)
    (fixture / "pyproject.toml").write_text("[project]\nname = 'fx'\nversion = '0.1.0'\n\n[tool.pytest.ini_options]\n")
    (fixture / "tests" / "test_fx.py").write_text("def test_ok():\n    assert True\n")
    (fixture / "package.json").write_text('{"name": "fx", "scripts": {"test": "node -e 0"}}\n')
    return write_corpus(
        tmp_path,
        {
            "fixtureRoots": {"fx": "fixtures/fx"},
            "harnessExecution": cases,
            "thresholds": {"harness": {"casePassRate": 1.0}},
        },
    )


def _no_programs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_missing_tool_reasons(monkeypatch, tmp_path) -> None:
    _no_programs(monkeypatch, tmp_path)
    assert missing_tool("npm install") == "npm not found on PATH (needs Node.js (npm))"
    assert missing_tool("go test ./...") == "go not found on PATH (needs Go)"
    assert missing_tool("python -m pytest") is None  # the workbench's own interpreter, which has pytest
    assert missing_tool("rm -rf /") is None  # refused by the allowlist: fails as refused, not skipped
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert missing_tool("pytest -q") == f"pytest is not installed for {sys.executable}"


def test_cases_needing_a_missing_toolchain_are_skipped_not_failed(monkeypatch, tmp_path) -> None:
    _no_programs(monkeypatch, tmp_path)
    corpus = load_corpus(
        _corpus(
            tmp_path,
            [
                {"name": "node", "repoFixture": "fx", "commands": NPM},
                {"name": "py", "repoFixture": "fx", "commands": PYTEST},
            ],
        )
    )
    result = run(corpus, RunOptions(suites=["harness"], targets=["builtin"], out_dir=tmp_path / "runs", progress=False))
    summary = result.summary["suites"]["harness"]["builtin"]
    assert summary["skipped_cases"] == {"node": "npm not found on PATH (needs Node.js (npm))"}
    assert summary["cases"] == 1 and summary["passed"] is True and summary["errors"] == 0
    assert list(result.cases["case"]) == ["py"]
    assert result.summary["passed"] is True


def test_a_suite_whose_every_case_lacks_its_toolchain_is_skipped(monkeypatch, tmp_path) -> None:
    _no_programs(monkeypatch, tmp_path)
    corpus = load_corpus(_corpus(tmp_path, [{"name": "node", "repoFixture": "fx", "commands": NPM}]))
    result = run(corpus, RunOptions(suites=["harness"], targets=["builtin"], out_dir=tmp_path / "runs", progress=False))
    summary = result.summary["suites"]["harness"]["builtin"]
    assert summary["skipped"] == "every case needs what this machine lacks: npm not found on PATH (needs Node.js (npm))"
    assert summary["passed"] is None and summary["verdict"] == "SKIPPED"
    assert result.summary["verdict"] == "NO FLOORS" and result.summary["passed"] is None  # nothing was judged


def test_scoreboard_names_the_skipped_cases(monkeypatch, tmp_path) -> None:
    from workbench.report.text import render_scoreboard

    summary = {
        "passed": True,
        "suites": {
            "harness": {
                "builtin": {
                    "cases": 1,
                    "scored": 1,
                    "passed_cases": 1,
                    "errors": 0,
                    "metrics": {"casePassRate": 1.0},
                    "thresholds": {},
                    "passed": True,
                    "failures": [],
                    "skipped": None,
                    "skipped_cases": {"node": "npm not found on PATH"},
                }
            }
        },
    }
    assert "  - skipped node: npm not found on PATH" in render_scoreboard(summary).splitlines()
