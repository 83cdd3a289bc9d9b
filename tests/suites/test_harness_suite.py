"""The harness suite: inference per group, execution in temp copies, safety rules, scoring."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.conftest import write_corpus
from workbench.contract import Command, Repo
from workbench.corpus import load_corpus
from workbench.errors import CorpusError, SuiteError, TargetError
from workbench.reference.harness import infer_harness
from workbench.run.runner import RunOptions, run
from workbench.sandbox import tree_digest
from workbench.suites import get_suite
from workbench.suites.base import Outcome, RunContext
from workbench.suites.harness import HarnessSuite

REPO_ROOT = Path(__file__).resolve().parents[2]
PYTEST = {"kind": "test", "group": "validate", "command": "python -m pytest -q"}


class HarnessDouble:
    """A target whose ``infer_harness`` is the reference inference, or a scripted answer."""

    name, version = "double", "0"

    def __init__(self, answer: Callable[[Repo], Any] = infer_harness) -> None:
        self.answer, self.calls = answer, []

    def infer_harness(self, repo: Repo) -> Any:
        self.calls.append(repo)
        return self.answer(repo)


def reference_target() -> HarnessDouble:
    return HarnessDouble()


def _python_fixture(root: Path, test_body: str = "def test_ok():\n    assert True\n") -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'fx'\nversion = '0.1.0'\n\n[tool.pytest.ini_options]\n")
    (root / "tests" / "test_fx.py").write_text(test_body)
    return root


def _corpus(tmp_path: Path, cases: list[dict], outside: bool = False, test_body: str | None = None) -> Any:
    project = tmp_path / "project"
    fixture = (tmp_path / "elsewhere" / "fx") if outside else (project / "fixtures" / "fx")
    _python_fixture(fixture, *([test_body] if test_body else []))
    root = str(fixture) if outside else "fixtures/fx"
    path = write_corpus(project, {"fixtureRoots": {"fx": root}, "harnessExecution": cases})
    return load_corpus(path)


def _case(*commands: dict, name: str = "py") -> dict:
    return {"name": name, "repoFixture": "fx", "commands": list(commands)}


def _run(suite: HarnessSuite, target: Any, corpus: Any) -> list[Outcome]:
    ctx = RunContext(corpus=corpus, timeout=60)
    outcomes = []
    for case in suite.cases(corpus):
        try:
            outcomes.append(Outcome(case, suite.run_case(target, case, ctx)))
        except Exception as exc:
            outcomes.append(Outcome(case, None, str(exc)))
    return outcomes


def test_inferred_command_runs_in_a_copy_and_passes(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [_case({**PYTEST, "command": "python -m pytest"})])
    before = tree_digest(corpus.fixture_dir("fx"))
    target = HarnessDouble()
    (outcome,) = _run(HarnessSuite(), target, corpus)
    (command,) = outcome.observation["commands"]
    assert command["passed"] and command["executed"] and command["exitCode"] == 0 and command["groupOk"]
    assert target.calls[0].path != corpus.fixture_dir("fx")  # the engine sees the temp copy
    assert tree_digest(corpus.fixture_dir("fx")) == before  # pytest's caches never reached the source


def test_failing_command_records_exit_code_and_output(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [_case(PYTEST)], test_body="def test_no():\n    assert 1 == 2\n")
    answer = {"validate": [Command("test", "python  -m pytest -q")]}
    (outcome,) = _run(HarnessSuite(), HarnessDouble(lambda repo: answer), corpus)
    (command,) = outcome.observation["commands"]
    assert command["exitCode"] == 1 and not command["passed"] and command["reason"] == "exit code 1"


def test_wrong_group_and_missing_commands_are_not_executed(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [_case(PYTEST, {"kind": "install", "group": "setup", "command": "npm install"})])
    answer = {"setup": [Command("test", "python -m pytest -q")], "validate": []}
    (outcome,) = _run(HarnessSuite(), HarnessDouble(lambda repo: answer), corpus)
    wrong, missing = outcome.observation["commands"]
    assert wrong["inferred"] and not wrong["groupOk"] and not wrong["executed"]
    assert wrong["reason"] == "inferred in setup, expected in validate"
    assert missing["reason"] == "not inferred" and not missing["executed"]


def test_inferred_command_outside_the_allowlist_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pwned").unlink(missing_ok=True)
    command = {"kind": "test", "group": "validate", "command": "python -m pip install -e ."}
    corpus = _corpus(tmp_path, [_case(command)])
    answer = {"validate": [Command("test", command["command"])]}
    (outcome,) = _run(HarnessSuite(), HarnessDouble(lambda repo: answer), corpus)
    (row,) = outcome.observation["commands"]
    assert not row["executed"] and not row["passed"] and "not an allowlisted" in row["reason"]
    with pytest.raises(CorpusError, match=r"commands\[0\]: refused"):
        HarnessSuite().check(corpus)


def test_runtime_commands_are_checked_for_inference_only(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [_case({"kind": "start", "group": "runtime", "command": "npm start"})])
    answer = {"runtime": [Command("start", "npm start")]}
    (outcome,) = _run(HarnessSuite(), HarnessDouble(lambda repo: answer), corpus)
    (row,) = outcome.observation["commands"]
    assert row["passed"] and not row["executed"] and "inference only" in row["reason"]


def test_non_executable_fixture_is_never_copied_inferred_or_run(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [_case(PYTEST)], outside=True)
    assert not corpus.is_executable("fx")
    target = HarnessDouble()
    with pytest.raises(SuiteError, match="'fx' is not executable"):
        HarnessSuite().run_case(target, corpus.cases("harnessExecution")[0], RunContext(corpus=corpus))
    assert target.calls == []


@pytest.mark.parametrize(
    "answer", [["python -m pytest"], {"validate": "python -m pytest"}, {"validate": [{"cmd": "x"}]}]
)
def test_garbage_answers_are_target_errors(tmp_path: Path, answer: Any) -> None:
    corpus = _corpus(tmp_path, [_case(PYTEST)])
    with pytest.raises(TargetError):
        HarnessSuite().run_case(
            HarnessDouble(lambda repo: answer), corpus.cases("harnessExecution")[0], RunContext(corpus=corpus)
        )


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ({"name": "c", "repoFixture": "fx", "commands": []}, "non-empty list"),
        (
            {"name": "c", "repoFixture": "fx", "commands": [{"group": "setup", "command": " "}]},
            r"commands\[0\]\.command",
        ),
        ({"name": "c", "repoFixture": "fx", "commands": [{"group": "later", "command": "npm test"}]}, "group must be"),
    ],
)
def test_malformed_cases_name_the_field(tmp_path: Path, case: dict, message: str) -> None:
    corpus = _corpus(tmp_path, [_case(PYTEST)])
    with pytest.raises(CorpusError, match=message):
        HarnessSuite().run_case(HarnessDouble(), case, RunContext(corpus=corpus))


def test_scoring_rates_and_errored_cases() -> None:
    def cmd(ok: bool) -> dict:
        return {"passed": ok}

    outcomes = [
        Outcome({"name": "all"}, {"commands": [cmd(True), cmd(True)]}),
        Outcome({"name": "half"}, {"commands": [cmd(True), cmd(False)]}),
        Outcome({"name": "crashed", "commands": [{}, {}]}, None, "engine died"),
    ]
    suite = HarnessSuite()
    scored = suite.score(outcomes, None)
    wide = scored.scores.pivot(index="case", columns="metric", values="value")
    assert wide.loc["all"].tolist() == [1.0, 1.0]
    assert wide.loc["half", "commandPassRate"] == 0.5 and wide.loc["half", "casePassRate"] == 0.0
    assert wide.loc["crashed"].tolist() == [0.0, 0.0]
    assert [row["passed"] for row in scored.case_rows] == [True, False, False]
    assert scored.case_rows[2]["expected"] == 2 and scored.case_rows[2]["passedCommands"] == 0
    metrics = suite.aggregate(scored.scores, pd.DataFrame(scored.case_rows))
    assert metrics == {"commandPassRate": pytest.approx(0.5), "casePassRate": pytest.approx(1 / 3)}


def test_registered_and_runs_through_the_runner(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [_case({**PYTEST, "command": "python -m pytest"}, name="py")])
    assert isinstance(get_suite("harness"), HarnessSuite)
    spec = "python:tests.suites.test_harness_suite:reference_target"
    result = run(corpus, RunOptions(suites=["harness"], targets=[spec], out_dir=tmp_path / "runs", progress=False))
    summary = result.summary["suites"]["harness"]["double"]
    assert summary["metrics"] == {"commandPassRate": 1.0, "casePassRate": 1.0} and summary["errors"] == 0
    assert result.cases.loc[0, "commands"][0]["exitCode"] == 0


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm not installed")
def test_committed_corpus_passes_with_the_reference_inference() -> None:
    corpus = load_corpus(REPO_ROOT / "corpus" / "corpus.json")
    digests = {name: tree_digest(corpus.fixture_dir(name)) for name in ("harness-node", "harness-python")}
    started = time.perf_counter()
    outcomes = _run(HarnessSuite(), HarnessDouble(), corpus)
    assert [o.error for o in outcomes] == [None] * len(outcomes)
    scored = HarnessSuite().score(outcomes, None)
    assert all(row["passed"] for row in scored.case_rows), scored.case_rows
    assert {name: tree_digest(corpus.fixture_dir(name)) for name in digests} == digests
    assert time.perf_counter() - started < 60
