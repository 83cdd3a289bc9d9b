"""The harness suite: does the engine infer the commands that set up and validate a repository?

Per case the target answers ``infer_harness`` for a temp copy of the fixture. Each expected
command must appear (whitespace-normalised) in its expected group, and is then executed in that
copy, in corpus order, through ``workbench.sandbox`` (no shell, allowlisted forms only, lifecycle
scripts off on install, ``CI=1``, ``ctx.timeout`` per command). Runtime-group commands start
long-running processes, so they are checked for inference only. Fixtures that are not executable
(see ``Corpus.execution_problem``) fail the case before anything is inferred or run. A case whose
commands need a toolchain this machine lacks (``npm``, ``go``, pytest, ...) is skipped with that
reason (``unavailable``), never failed.

Metrics per case: ``commandPassRate`` (fraction of expected commands inferred in their group and
exiting 0) and ``casePassRate`` (1 when all of them do); an errored case scores 0 on both.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..columns import CASE, METRIC, PASSED, VALUE
from ..contract import Repo
from ..corpus.cases import INFERENCE_ONLY, check_harness, expected_commands
from ..errors import CorpusError, SuiteError, TargetError
from ..sandbox import normalise, run_allowlisted, temp_copy
from .base import Outcome, RunContext, Scored, Suite, mean_metrics
from .toolchains import missing_tool

if TYPE_CHECKING:
    import pandas as pd

    from ..corpus import Corpus

METRICS = ("commandPassRate", "casePassRate")


def inferred_groups(answer: Any) -> dict[str, list[str]]:
    """The target's answer as group -> normalised command strings, or a TargetError."""
    if not isinstance(answer, dict):
        raise TargetError(f"infer_harness returned {type(answer).__name__}, expected a dict of groups")
    groups: dict[str, list[str]] = {}
    for group, commands in answer.items():
        if not isinstance(commands, (list, tuple)):
            raise TargetError(f"infer_harness: group {group!r} is not a list")
        texts = [getattr(c, "command", None) for c in commands]
        if not all(isinstance(t, str) for t in texts):
            raise TargetError(f"infer_harness: group {group!r} holds an entry without a command string")
        groups[str(group)] = [normalise(str(t)) for t in texts]
    return groups


def check_command(
    expected: dict[str, str], inferred: dict[str, list[str]], work: Path, timeout: float
) -> dict[str, Any]:
    """One expected command: inferred? in its group? then its execution in the temp copy."""
    text, group = normalise(expected["command"]), expected["group"]
    found_in = [g for g, commands in inferred.items() if text in commands]
    row: dict[str, Any] = {
        "command": text,
        "group": group,
        "kind": expected.get("kind"),
        "script": expected.get("script"),
        "inferred": bool(found_in),
        "inferredGroups": found_in,
        "groupOk": group in found_in,
        "executed": False,
        "exitCode": None,
        "seconds": None,
        "stderrTail": "",
        "reason": None,
        PASSED: False,
    }
    if not found_in:
        return {**row, "reason": "not inferred"}
    if group not in found_in:
        return {**row, "reason": f"inferred in {', '.join(found_in)}, expected in {group}"}
    if group in INFERENCE_ONLY:
        return {**row, PASSED: True, "reason": f"{group} commands are checked for inference only"}
    run = run_allowlisted(text, work, timeout)
    return {
        **row,
        "executed": run.exit_code is not None,
        "exitCode": run.exit_code,
        "seconds": run.seconds,
        "stderrTail": run.stderr_tail,
        "reason": run.reason,
        PASSED: run.ok,
    }


class HarnessSuite(Suite):
    name = "harness"
    capability = "infer_harness"
    description = "expected commands inferred in their group and exiting 0 in a temp copy"
    cacheable = False  # whether a command runs depends on this machine's tools, not only the engine's answer

    def check(self, corpus: Corpus) -> None:
        """Every case's commands and fixture; an expected command the allowlist refuses never runs."""
        check_harness(corpus)

    def unavailable(self, case: dict[str, Any], corpus: Corpus) -> str | None:
        """The first missing toolchain among the commands the case runs (runtime ones never run)."""
        found = case.get("commands")
        commands: list[Any] = found if isinstance(found, list) else []
        for item in commands:
            if isinstance(item, dict) and item.get("group") not in INFERENCE_ONLY:
                reason = missing_tool(str(item.get("command", "")))
                if reason:
                    return reason
        return None

    @staticmethod
    def _prepare(case: dict[str, Any], corpus: Corpus) -> tuple[str, Path, list[dict[str, str]]]:
        expected = expected_commands(case)
        fixture = case.get("repoFixture")
        if not isinstance(fixture, str):
            raise CorpusError(f"harness case {case.get('name', '?')!r}: repoFixture must be a string")
        return fixture, corpus.fixture_dir(fixture), expected

    def run_case(self, target: Any, case: dict[str, Any], ctx: RunContext) -> dict[str, Any]:
        fixture, source, expected = self._prepare(case, ctx.corpus)
        problem = ctx.corpus.execution_problem(fixture)
        if problem:
            raise SuiteError(
                f"harness case {case.get('name')!r}: fixture {fixture!r} is not executable ({problem}); nothing was run"
            )
        with temp_copy(source, ctx.scratch) as work:
            inferred = inferred_groups(target.infer_harness(Repo(fixture, work)))
            commands = [check_command(item, inferred, work, ctx.timeout) for item in expected]
        return {"inferred": inferred, "commands": commands}

    def score(self, outcomes: list[Outcome], ctx: RunContext) -> Scored:
        import pandas as pd  # here, not at the top: ``workbench validate`` runs check() without pandas

        rows = [self._case_row(outcome) for outcome in outcomes]
        flat = pd.DataFrame(
            [{CASE: row["case"], PASSED: cmd[PASSED]} for row in rows for cmd in row["commands"]],
            columns=[CASE, PASSED],
        )
        names = [row["case"] for row in rows]
        rate = flat.astype({PASSED: float}).groupby(CASE, sort=False)[PASSED].mean()
        rate = rate.reindex(names).fillna(0.0).to_numpy(float, copy=True)
        rate[np.array([o.observation is None or o.error is not None for o in outcomes], bool)] = 0.0
        whole = (rate == 1.0).astype(float)
        for row, ok in zip(rows, whole):
            row[PASSED] = bool(ok)
        scores = pd.DataFrame(
            {CASE: names * 2, METRIC: [METRICS[0]] * len(names) + [METRICS[1]] * len(names), VALUE: [*rate, *whole]}
        )
        return Scored(rows, scores)

    @staticmethod
    def _case_row(outcome: Outcome) -> dict[str, Any]:
        seen = outcome.observation or {}
        commands = seen.get("commands", [])
        return {
            "case": outcome.name,
            PASSED: False,
            "repoFixture": outcome.case.get("repoFixture"),
            "expected": len(outcome.case.get("commands") or []),
            "passedCommands": sum(bool(c[PASSED]) for c in commands),
            "inferred": seen.get("inferred"),
            "commands": commands,
        }

    def aggregate(self, scores: pd.DataFrame, case_rows: pd.DataFrame) -> dict[str, float | None]:
        return mean_metrics(scores, METRICS)
