"""The gate suite: does the engine's merge gate block what it should and pass what it should?

Per case ``<fixture>/base/`` is copied to a temp directory, committed as a deterministic git
baseline (fixed author, committer and dates), the change set is applied and staged, and the target
answers ``gate(Repo(fixture, tmp), options)`` with ``base: HEAD``, ``staged: true`` and the case's
``options``. A change set is ``changes/<changeSet>/`` (files overlaid on the base; ``<path>.delete``
deletes ``<path>``) or ``changes/<changeSet>.patch`` (``git apply``; it lets a case create a
secret-like path only inside the temp repository). Change-set names match ``^[a-z0-9][a-z0-9_-]*$``
and every path must stay inside the repository. The source fixture is only read.

A case passes when the verdict equals ``expectedVerdict``, each expected check is present with its
status, ``summaryIncludes`` and every ``detailsInclude`` fragment (in some detail line), and no
other check FAILs. Metrics: ``caseAccuracy`` (every case), ``blockedAsExpected`` (expected-FAIL
cases that got FAIL) and ``validPassed`` (expected-PASS cases that passed).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..columns import CASE, METRIC, PASSED, VALUE
from ..contract import Repo
from ..corpus.cases import check_gate, expected_checks, gate_fixture, gate_where, safe_rel
from ..errors import CorpusError, SuiteError, TargetError
from ..sandbox import baseline_copy, git
from ..wire import VERDICTS
from .base import Outcome, RunContext, Scored, Suite, mean_metrics

if TYPE_CHECKING:
    import pandas as pd

    from ..corpus import Corpus

DELETE_SUFFIX = ".delete"
METRICS = ("caseAccuracy", "blockedAsExpected", "validPassed")


def apply_patch(patch: Path, repo: Path) -> None:
    """``git apply --index`` after checking (with git's own parser) that every path stays inside."""
    patch = patch.resolve()
    listing = git(["apply", "--numstat", "-z", str(patch)], repo, error=CorpusError)
    for entry in listing.split("\0"):  # "added\tdeleted\tpath", or "a\td\t" then old and new paths
        path = entry.rsplit("\t", 1)[-1]
        if path:
            safe_rel(path, str(patch))
    git(["apply", "--index", "--whitespace=nowarn", str(patch)], repo, error=CorpusError)


def _delete(target: Path, rel: str, changes: Path, repo: Path) -> None:
    if not target.exists() and not target.is_symlink():
        raise CorpusError(f"{changes}: {rel} deletes {target.relative_to(repo)}, which is not in base/")
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    else:
        os.remove(target)


def apply_overlay(changes: Path, repo: Path) -> None:
    """Copy the change-set files over the repo; ``<path>.delete`` markers delete ``<path>`` first."""
    files = [p for p in changes.rglob("*") if p.is_file() or p.is_symlink()]
    root = repo.resolve()
    for source in sorted(files, key=lambda p: (not p.name.endswith(DELETE_SUFFIX), p)):
        rel = safe_rel(source.relative_to(changes).as_posix(), str(changes))
        deletes = rel.endswith(DELETE_SUFFIX)
        target = repo / (rel[: -len(DELETE_SUFFIX)] if deletes else rel)
        if source.is_symlink() or (target.is_symlink() and not deletes):
            raise CorpusError(f"{changes}: {rel} is or replaces a symlink; change sets hold plain files")
        if not target.parent.resolve().is_relative_to(root):
            raise CorpusError(f"{changes}: {rel} resolves outside the repository")
        if deletes:
            _delete(target, rel, changes, repo)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


def build_case_repo(base: Path, change: Path, dest: Path) -> str:
    """Baseline ``base`` into a git repo at ``dest``, apply and stage ``change``; the baseline commit."""
    commit = baseline_copy(base, dest)
    if change.is_dir():
        apply_overlay(change, dest)
    else:
        apply_patch(change, dest)
    git(["add", "-A"], dest)
    return commit


def _check_dicts(result: Any) -> tuple[str, list[dict[str, Any]]]:
    """A GateResult as (verdict, JSON-able checks), or a TargetError saying what is wrong."""
    verdict, checks = getattr(result, "verdict", None), getattr(result, "checks", None)
    if verdict not in VERDICTS or not isinstance(checks, list):
        raise TargetError(f"gate returned {type(result).__name__}, expected a GateResult with a verdict")
    try:
        return verdict, [
            {
                "name": str(c.name),
                "status": str(c.status),
                "summary": str(c.summary),
                "details": [str(d) for d in c.details],
            }
            for c in checks
        ]
    except (AttributeError, TypeError):
        raise TargetError("gate returned a check without name, status, summary and details") from None


def check_misses(expected: list[dict[str, Any]], checks: list[dict[str, Any]]) -> list[str]:
    """One line per expected check that no returned check satisfies."""
    misses = []
    for want in expected:
        same = [c for c in checks if c["name"] == want["name"]]
        if any(_satisfies(c, want) for c in same):
            continue
        got = "; ".join(f"{c['status']} {c['summary']!r}" for c in same) or "no such check"
        misses.append(
            f"{want['name']}: expected {want['status']}"
            + (f" with {want['summaryIncludes']!r}" if want.get("summaryIncludes") else "")
            + (f" and details {want['detailsInclude']}" if want["detailsInclude"] else "")
            + f", got {got}"
        )
    return misses


def _satisfies(check: dict[str, Any], want: dict[str, Any]) -> bool:
    return (
        check["status"] == want["status"]
        and want.get("summaryIncludes", "") in check["summary"]
        and all(any(part in line for line in check["details"]) for part in want["detailsInclude"])
    )


class GateSuite(Suite):
    name = "gate"
    capability = "gate"
    description = "verdict and named checks of a merge gate over committed change sets"

    def check(self, corpus: Corpus) -> None:
        """Every case's options, expected checks, fixture base/ and change set, as CorpusErrors."""
        check_gate(corpus)

    def run_case(self, target: Any, case: dict[str, Any], ctx: RunContext) -> dict[str, Any]:
        fixture, source, change, options = gate_fixture(case, ctx.corpus)
        problem = ctx.corpus.execution_problem(fixture)
        if problem:
            raise SuiteError(
                f"{gate_where(case)}: fixture {fixture!r} is not executable ({problem}); no repository was built"
            )
        with tempfile.TemporaryDirectory(prefix="workbench-gate-", dir=ctx.scratch) as tmp:
            repo = Path(tmp) / fixture
            commit = build_case_repo(source / "base", change, repo)
            verdict, checks = _check_dicts(target.gate(Repo(fixture, repo), options))
        return {"baselineCommit": commit, "verdict": verdict, "checks": checks}

    def score(self, outcomes: list[Outcome], ctx: RunContext) -> Scored:
        import pandas as pd  # here, not at the top: ``workbench validate`` runs check() without pandas

        rows = [self._case_row(outcome) for outcome in outcomes]
        frame = pd.DataFrame(
            {
                CASE: [r["case"] for r in rows],
                "expected": [r["expectedVerdict"] for r in rows],
                "passed": [float(r[PASSED]) for r in rows],
                "blocked": [float(r["verdict"] == "FAIL") for r in rows],
            }
        )
        parts = [
            frame.assign(**{METRIC: METRICS[0], VALUE: frame["passed"]}),
            frame[frame["expected"] == "FAIL"].assign(**{METRIC: METRICS[1], VALUE: lambda f: f["blocked"]}),
            frame[frame["expected"] == "PASS"].assign(**{METRIC: METRICS[2], VALUE: lambda f: f["passed"]}),
        ]
        scores = pd.concat(parts, ignore_index=True)[[CASE, METRIC, VALUE]]
        return Scored(rows, scores)

    @staticmethod
    def _case_row(outcome: Outcome) -> dict[str, Any]:
        case, seen = outcome.case, outcome.observation
        expected = case.get("expectedVerdict")
        row: dict[str, Any] = {
            "case": outcome.name,
            PASSED: False,
            "changeSet": case.get("changeSet"),
            "expectedVerdict": expected,
            "verdict": None,
            "blockedAsExpected": None,
            "baselineCommit": None,
            "checks": [],
            "missing": [],
            "unexpectedFails": [],
        }
        if seen is None or outcome.error is not None:
            return {**row, "blockedAsExpected": False if expected == "FAIL" else None}
        wanted = expected_checks(case)
        allowed_fails = {w["name"] for w in wanted if w["status"] == "FAIL"}
        missing = check_misses(wanted, seen["checks"])
        unexpected = [c["name"] for c in seen["checks"] if c["status"] == "FAIL" and c["name"] not in allowed_fails]
        passed = seen["verdict"] == expected and not missing and not unexpected
        return {
            **row,
            PASSED: passed,
            "verdict": seen["verdict"],
            "baselineCommit": seen["baselineCommit"],
            "blockedAsExpected": seen["verdict"] == "FAIL" if expected == "FAIL" else None,
            "checks": seen["checks"],
            "missing": missing,
            "unexpectedFails": unexpected,
        }

    def aggregate(self, scores: pd.DataFrame, case_rows: pd.DataFrame) -> dict[str, float | None]:
        return mean_metrics(scores, METRICS)
