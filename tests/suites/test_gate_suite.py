"""The gate suite: deterministic temp repos from base + change set, safety rules, scoring."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.conftest import write_corpus, write_tree
from workbench.contract import Check, GateResult, Repo
from workbench.corpus import load_corpus
from workbench.corpus.cases import expected_checks, gate_options
from workbench.errors import CorpusError, SuiteError, TargetError
from workbench.reference.gate import convergence as gate_convergence
from workbench.reference.gate.judge import run_gate
from workbench.run.runner import RunOptions, run
from workbench.sandbox import git, tree_digest
from workbench.suites import get_suite
from workbench.suites.base import Outcome, RunContext
from workbench.suites.gate import GateSuite, build_case_repo, check_misses

REPO_ROOT = Path(__file__).resolve().parents[2]
ENV_PATCH = "diff --git a/.env b/.env\nnew file mode 100644\n--- /dev/null\n+++ b/.env\n@@ -0,0 +1 @@\n+A=1\n"


class GateDouble:
    """A target whose ``gate`` is the reference gate, or a scripted answer; it records each repo."""

    name, version = "double", "0"

    def __init__(self, answer: Callable[[Repo, dict], Any] = run_gate) -> None:
        self.answer, self.calls = answer, []

    def gate(self, repo: Repo, options: dict) -> Any:
        self.calls.append((repo, options, git(["status", "--porcelain"], repo.path)))
        return self.answer(repo, options)


def reference_target() -> GateDouble:
    return GateDouble()


def _fixture(root: Path) -> Path:
    write_tree(root / "base", {"README.md": "# fx\n", "src/a.js": "1\n", "src/old.js": "old\n"})
    write_tree(root / "changes" / "edit", {"src/a.js": "2\n", "src/new.js": "new\n", "src/old.js.delete": ""})
    (root / "changes" / "env.patch").write_text(ENV_PATCH)
    return root


def _corpus(tmp_path: Path, cases: list[dict], outside: bool = False) -> Any:
    project = tmp_path / "project"
    fixture = _fixture((tmp_path / "elsewhere" / "fx") if outside else (project / "fixtures" / "fx"))
    path = write_corpus(
        project, {"fixtureRoots": {"fx": str(fixture) if outside else "fixtures/fx"}, "gateEffectiveness": cases}
    )
    return load_corpus(path)


def _case(change_set: str = "edit", verdict: str = "PASS", checks: list | None = None, **extra: Any) -> dict:
    return {
        "name": f"{change_set}-{verdict}".lower(),
        "repoFixture": "fx",
        "changeSet": change_set,
        "expectedVerdict": verdict,
        "expectedChecks": checks or [],
        **extra,
    }


def test_overlay_with_delete_marker_is_staged_on_a_deterministic_baseline(tmp_path: Path) -> None:
    fixture = _fixture(tmp_path / "fx")
    before = tree_digest(fixture)
    first = build_case_repo(fixture / "base", fixture / "changes" / "edit", tmp_path / "one")
    second = build_case_repo(fixture / "base", fixture / "changes" / "edit", tmp_path / "two")
    assert first == second
    staged = git(["diff", "--cached", "--name-status"], tmp_path / "one").split("\n")
    assert staged[:3] == ["M\tsrc/a.js", "A\tsrc/new.js", "D\tsrc/old.js"]
    assert git(["status", "--porcelain"], tmp_path / "one").split("\n")[0][1] == " "  # nothing unstaged
    assert tree_digest(fixture) == before


def test_patch_change_set_creates_the_path_only_in_the_temp_repo(tmp_path: Path) -> None:
    fixture = _fixture(tmp_path / "fx")
    build_case_repo(fixture / "base", fixture / "changes" / "env.patch", tmp_path / "repo")
    assert (tmp_path / "repo" / ".env").read_text() == "A=1\n"
    assert not list(fixture.rglob(".env"))
    assert git(["diff", "--cached", "--name-only"], tmp_path / "repo").strip() == ".env"


@pytest.mark.parametrize("path", ["../escape.txt", ".git/hooks/pre-commit", "a/../../escape.txt"])
def test_patches_cannot_leave_the_repository(tmp_path: Path, path: str) -> None:
    fixture = _fixture(tmp_path / "fx")
    (fixture / "changes" / "evil.patch").write_text(ENV_PATCH.replace(".env", path))
    with pytest.raises(CorpusError):
        build_case_repo(fixture / "base", fixture / "changes" / "evil.patch", tmp_path / "repo")
    assert not (tmp_path / "escape.txt").exists() and not (tmp_path / "repo" / ".git" / "hooks" / "pre-commit").exists()


def test_overlays_cannot_hold_symlinks_or_delete_missing_files(tmp_path: Path) -> None:
    fixture = _fixture(tmp_path / "fx")
    (fixture / "changes" / "link").mkdir()
    (fixture / "changes" / "link" / "x").symlink_to("/etc/passwd")
    with pytest.raises(CorpusError, match="symlink"):
        build_case_repo(fixture / "base", fixture / "changes" / "link", tmp_path / "r1")
    (fixture / "base" / "link").symlink_to(tmp_path / "outside.txt")
    write_tree(fixture / "changes" / "through", {"link": "overwrite"})
    build_case_repo(fixture / "base", fixture / "changes" / "through", tmp_path / "r3")
    # the copy never holds the outward link: the overlay writes a plain file inside the copy
    assert not (tmp_path / "r3" / "link").is_symlink() and (tmp_path / "r3" / "link").read_text() == "overwrite"
    assert not (tmp_path / "outside.txt").exists()
    write_tree(fixture / "changes" / "ghost", {"missing.js.delete": ""})
    with pytest.raises(CorpusError, match="not in base"):
        build_case_repo(fixture / "base", fixture / "changes" / "ghost", tmp_path / "r2")


@pytest.mark.parametrize(
    ("change_set", "message"),
    [("../fx", "must match"), ("Edit", "must match"), ("-x", "must match"), ("nothing", "neither")],
)
def test_change_set_names_and_existence(tmp_path: Path, change_set: str, message: str) -> None:
    corpus = _corpus(tmp_path, [_case()])
    with pytest.raises(CorpusError, match=message):
        GateSuite().run_case(GateDouble(), _case(change_set), RunContext(corpus=corpus))


def test_directory_and_patch_of_one_name_is_ambiguous(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [_case()])
    (corpus.fixture_dir("fx") / "changes" / "edit.patch").write_text(ENV_PATCH)
    with pytest.raises(CorpusError, match="both"):
        GateSuite().check(corpus)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        (_case(options={"polcy": "team"}), "options.polcy is not a gate option"),
        (_case(options={"minConvergence": "0.5"}), "options.minConvergence should be float"),
        (_case(verdict="BLOCK"), "expectedVerdict"),
        (_case(checks=[{"name": "x", "status": "OK"}]), r"expectedChecks\[0\]\.status"),
        (_case(checks=[{"name": "x", "status": "PASS", "detailsInclude": [1]}]), "detailsInclude"),
    ],
)
def test_malformed_cases_name_the_field(case: dict, message: str) -> None:
    with pytest.raises(CorpusError, match=message):
        gate_options(case)
        expected_checks(case)


def test_target_sees_a_staged_temp_repo_and_default_options(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [_case()])
    before = tree_digest(corpus.fixture_dir("fx"))
    target = GateDouble()
    seen = GateSuite().run_case(target, _case(options={"policy": "high-risk"}), RunContext(corpus=corpus))
    ((repo, options, status),) = target.calls
    assert repo.name == "fx" and not repo.path.exists()  # the temp repo is gone afterwards
    assert options == {"base": "HEAD", "staged": True, "policy": "high-risk"}
    assert status.split("\n")[0] == "M  src/a.js"
    assert seen["verdict"] == "PASS" and len(seen["baselineCommit"]) == 40
    assert tree_digest(corpus.fixture_dir("fx")) == before


def test_non_executable_fixture_is_never_built_or_judged(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [_case()], outside=True)
    target = GateDouble()
    with pytest.raises(SuiteError, match="not executable"):
        GateSuite().run_case(target, _case(), RunContext(corpus=corpus))
    assert target.calls == []


def test_garbage_answer_is_a_target_error(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [_case()])
    with pytest.raises(TargetError, match="expected a GateResult"):
        GateSuite().run_case(GateDouble(lambda r, o: {"verdict": "PASS"}), _case(), RunContext(corpus=corpus))


def _checks(*items: tuple[str, str, str, list[str]]) -> list[dict]:
    return [{"name": n, "status": s, "summary": m, "details": d} for n, s, m, d in items]


def test_check_matching_needs_status_summary_and_every_detail() -> None:
    got = _checks(("Secret safety", "FAIL", "Potential secret file changed", [".env", "src/a.js:3: private key"]))
    want = expected_checks(
        _case(
            checks=[
                {
                    "name": "Secret safety",
                    "status": "FAIL",
                    "summaryIncludes": "secret",
                    "detailsInclude": [".env", "private key"],
                }
            ]
        )
    )
    assert check_misses(want, got) == []
    assert check_misses([{**want[0], "detailsInclude": ["id_rsa"]}], got) != []
    assert check_misses([{**want[0], "status": "WARN"}], got)[0].startswith("Secret safety: expected WARN")
    assert check_misses([{**want[0], "name": "Risk review"}], got)[0].endswith("got no such check")


def _outcome(case: dict, verdict: str | None, checks: list[dict] | None = None, error: str | None = None) -> Outcome:
    seen = None if error else {"baselineCommit": "c" * 40, "verdict": verdict, "checks": checks or []}
    return Outcome(case, seen, error)


def test_scoring_blocks_valid_passes_and_errors() -> None:
    fail_check = {"name": "Secret safety", "status": "FAIL"}
    outcomes = [
        _outcome(_case("ok", "PASS"), "PASS"),
        _outcome(_case("secret", "FAIL", [fail_check]), "FAIL", _checks(("Secret safety", "FAIL", "x", []))),
        _outcome(
            _case("surprise", "FAIL", [fail_check]),
            "FAIL",
            _checks(("Secret safety", "FAIL", "x", []), ("Policy profile", "FAIL", "y", [])),
        ),
        _outcome(_case("crash", "FAIL"), None, error="engine died"),
        _outcome(_case("strict", "PASS"), "WARN"),
    ]
    suite = GateSuite()
    scored = suite.score(outcomes, None)
    rows = {row["case"]: row for row in scored.case_rows}
    assert [rows[n]["passed"] for n in ("ok-pass", "secret-fail", "surprise-fail", "crash-fail", "strict-pass")] == [
        True,
        True,
        False,
        False,
        False,
    ]
    assert rows["surprise-fail"]["unexpectedFails"] == ["Policy profile"]
    assert rows["surprise-fail"]["blockedAsExpected"] is True and rows["crash-fail"]["blockedAsExpected"] is False
    assert rows["ok-pass"]["blockedAsExpected"] is None
    metrics = suite.aggregate(scored.scores, pd.DataFrame(scored.case_rows))
    assert metrics == {
        "caseAccuracy": pytest.approx(2 / 5),
        "blockedAsExpected": pytest.approx(2 / 3),
        "validPassed": pytest.approx(1 / 2),
    }
    assert scored.scores.groupby("metric").size().to_dict() == {
        "blockedAsExpected": 3,
        "caseAccuracy": 5,
        "validPassed": 2,
    }


def test_registered_and_runs_through_the_runner(tmp_path: Path) -> None:
    checks = [{"name": "Secret safety", "status": "FAIL", "detailsInclude": ".env"}]
    corpus = _corpus(tmp_path, [_case(), _case("env", "FAIL", checks)])
    assert isinstance(get_suite("gate"), GateSuite)
    result = run(
        corpus,
        RunOptions(
            suites=["gate"],
            targets=["python:tests.suites.test_gate_suite:reference_target"],
            out_dir=tmp_path / "runs",
            progress=False,
        ),
    )
    summary = result.summary["suites"]["gate"]["double"]
    assert summary["metrics"] == {"caseAccuracy": 1.0, "blockedAsExpected": 1.0, "validPassed": 1.0}
    assert json.loads((result.path / "cases.jsonl").read_text().splitlines()[1])["verdict"] == "FAIL"


def _committed_corpus_rows() -> list[dict]:
    corpus = load_corpus(REPO_ROOT / "corpus" / "corpus.json")
    suite, ctx = GateSuite(), RunContext(corpus=corpus)
    suite.check(corpus)
    before = tree_digest(corpus.fixture_dir("gate-node"))
    outcomes = [Outcome(case, suite.run_case(GateDouble(), case, ctx)) for case in suite.cases(corpus)]
    assert tree_digest(corpus.fixture_dir("gate-node")) == before
    return suite.score(outcomes, ctx).case_rows


def test_committed_corpus_passes_with_the_reference_gate() -> None:
    rows = _committed_corpus_rows()
    assert len(rows) >= 7 and sum(r["expectedVerdict"] == "FAIL" for r in rows) >= 5
    assert [(r["case"], r["missing"], r["unexpectedFails"]) for r in rows if not r["passed"]] == []
    assert len({r["baselineCommit"] for r in rows}) == 1  # one deterministic baseline for the fixture


def test_committed_corpus_passes_with_token_overlap_convergence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate_convergence, "_pack_scope", lambda diff, request: None)
    rows = _committed_corpus_rows()
    assert [(r["case"], r["missing"]) for r in rows if not r["passed"]] == []


def test_gate_result_objects_round_trip_through_scoring(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path, [_case()])
    answer = GateResult("WARN", [Check("Risk review", "WARN", "1 path", ("src/a.js",))])
    seen = GateSuite().run_case(GateDouble(lambda r, o: answer), _case(), RunContext(corpus=corpus))
    assert seen["checks"] == [{"name": "Risk review", "status": "WARN", "summary": "1 path", "details": ["src/a.js"]}]
