"""Issue 41, item 2: a fixture that is a symlink (or lies under one) never runs, whatever its
spelling: a harness case naming ``lnk``, ``fixtureRoots`` naming ``fixtures/lnk``, a link swapped
in after the corpus loaded, a gate fixture whose ``base/`` or change set is a link. The resolved
path is judged; the project the link leads to is neither copied nor run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_corpus
from workbench.contract import Command, Repo
from workbench.corpus import load_corpus
from workbench.corpus.cases import gate_fixture
from workbench.errors import CorpusError, SuiteError
from workbench.suites.base import RunContext
from workbench.suites.gate import GateSuite
from workbench.suites.harness import HarnessSuite

PYTEST = {"kind": "test", "group": "validate", "command": "python -m pytest -q"}


class Recorder:
    """A harness and gate target that records every repository it is shown."""

    name, version = "recorder", "0"

    def __init__(self) -> None:
        self.calls: list[Repo] = []

    def infer_harness(self, repo: Repo) -> Any:
        self.calls.append(repo)
        return {"validate": [Command("test", "python -m pytest -q")]}

    def gate(self, repo: Repo, options: Any) -> Any:
        self.calls.append(repo)
        raise AssertionError("never reached")


def _project(tmp_path: Path) -> Path:
    """``tmp/proj`` with a Python project ``tmp/proj/outside_proj`` whose test would leave a mark."""
    outside = tmp_path / "proj" / "outside_proj"
    (outside / "tests").mkdir(parents=True)
    (outside / "pyproject.toml").write_text("[project]\nname = 'o'\nversion = '0'\n")
    (outside / "tests" / "test_o.py").write_text(f"def test_o():\n    open({str(tmp_path / 'RAN')!r}, 'w')\n")
    return tmp_path / "proj"


def _harness(corpus: Any, name: str) -> tuple[Recorder, pytest.ExceptionInfo[SuiteError]]:
    target = Recorder()
    case = {"name": "h", "repoFixture": name, "commands": [PYTEST]}
    with pytest.raises(SuiteError, match=f"fixture {name!r} is not executable") as caught:
        HarnessSuite().run_case(target, case, RunContext(corpus=corpus))
    return target, caught


@pytest.mark.parametrize("roots", [None, {"lnk": "fixtures/lnk"}, {"lnk": "corpus/fixtures/lnk"}])
def test_a_fixture_that_is_a_link_never_runs(tmp_path: Path, roots: dict[str, str] | None) -> None:
    project = _project(tmp_path)
    (project / "corpus" / "fixtures").mkdir(parents=True)
    (project / "corpus" / "fixtures" / "lnk").symlink_to("../../outside_proj")  # inside the project, spelled inside
    case = {"name": "h", "repoFixture": "lnk", "commands": [PYTEST]}
    corpus = load_corpus(
        write_corpus(project, {**({"fixtureRoots": roots} if roots else {}), "harnessExecution": [case]})
    )
    assert corpus.fixtures["lnk"] == (project / "outside_proj").resolve()  # still read (retrieval may use it)
    assert not corpus.is_executable("lnk")
    target, _ = _harness(corpus, "lnk")
    assert target.calls == [] and not (tmp_path / "RAN").exists()


def test_a_fixture_under_a_linked_folder_never_runs(tmp_path: Path) -> None:
    project = _project(tmp_path)
    real = project / "outside_proj"
    shutil.move(real, tmp_path / "elsewhere")
    (tmp_path / "elsewhere").rename(project / "real")
    (project / "fixtures").symlink_to("real", target_is_directory=True)  # fixtures/ itself is a link
    (project / "real" / "fx").mkdir()
    corpus = load_corpus(
        write_corpus(project, {"harnessExecution": [{"name": "h", "repoFixture": "fx", "commands": [PYTEST]}]})
    )
    assert "fx" in corpus.fixtures and not corpus.is_executable("fx")


def test_a_link_swapped_in_after_loading_is_caught_as_the_case_runs(tmp_path: Path) -> None:
    project = _project(tmp_path)
    fixture = project / "fixtures" / "fx"
    fixture.mkdir(parents=True)
    corpus = load_corpus(
        write_corpus(project, {"harnessExecution": [{"name": "h", "repoFixture": "fx", "commands": [PYTEST]}]})
    )
    assert corpus.is_executable("fx") and corpus.execution_problem("fx") is None
    fixture.rmdir()
    fixture.symlink_to("../outside_proj")
    target, caught = _harness(corpus, "fx")
    assert "leads through a symlink" in str(caught.value)
    assert target.calls == [] and not (tmp_path / "RAN").exists()


def _gate_fixture(root: Path) -> None:
    (root / "base" / "src").mkdir(parents=True)
    (root / "base" / "src" / "a.js").write_text("1\n")
    (root / "changes" / "edit" / "src").mkdir(parents=True)
    (root / "changes" / "edit" / "src" / "a.js").write_text("2\n")


@pytest.mark.parametrize("linked", ["base", "changes/edit"])
def test_a_gate_fixture_copies_only_its_own_files(tmp_path: Path, linked: str) -> None:
    project = _project(tmp_path)
    fixture = project / "fixtures" / "fx"
    _gate_fixture(fixture)
    _gate_fixture(tmp_path / "other")
    shutil.rmtree(fixture / linked)
    os.symlink(tmp_path / "other" / linked, fixture / linked)
    case = {"name": "g", "repoFixture": "fx", "changeSet": "edit", "expectedVerdict": "PASS", "expectedChecks": []}
    corpus = load_corpus(write_corpus(project, {"fixtureRoots": {"fx": "fixtures/fx"}, "gateEffectiveness": [case]}))
    assert corpus.is_executable("fx")
    with pytest.raises(CorpusError, match=f"{linked} of fixture 'fx' is reached through a symlink"):
        gate_fixture(case, corpus)
    target = Recorder()
    with pytest.raises(CorpusError):
        GateSuite().run_case(target, case, RunContext(corpus=corpus))
    assert target.calls == []


def test_a_plain_fixture_still_runs(tmp_path: Path) -> None:
    project = _project(tmp_path)
    shutil.move(project / "outside_proj", project / "fixtures" / "fx")
    corpus = load_corpus(
        write_corpus(project, {"harnessExecution": [{"name": "h", "repoFixture": "fx", "commands": [PYTEST]}]})
    )
    assert corpus.is_executable("fx") and corpus.execution_problem("fx") is None
    outcome = HarnessSuite().run_case(Recorder(), corpus.cases("harnessExecution")[0], RunContext(corpus=corpus))
    assert outcome["commands"][0]["executed"]
